import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1PodAffinityTerm } from '@kubernetes/client-node';
import { SchedulerCache } from '../cache.ts';
import { podInfo } from '../pod-info.ts';
import { interPodAffinity, preFilterInterPodAffinity } from './inter-pod-affinity.ts';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

interface PodOpts {
  namespace?: string;
  node?: string;
  labels?: Record<string, string>;
  affinity?: V1PodAffinityTerm[];
  anti?: V1PodAffinityTerm[];
}

function pod(name: string, o: PodOpts = {}): V1Pod {
  return {
    metadata: { namespace: o.namespace ?? 'ns', name, uid: name, labels: o.labels ?? {} },
    spec: {
      nodeName: o.node,
      containers: [],
      affinity: {
        podAffinity: o.affinity ? { requiredDuringSchedulingIgnoredDuringExecution: o.affinity } : undefined,
        podAntiAffinity: o.anti ? { requiredDuringSchedulingIgnoredDuringExecution: o.anti } : undefined,
      },
    },
  };
}

const term = (app: string, topologyKey = HOST, extra: Partial<V1PodAffinityTerm> = {}): V1PodAffinityTerm => ({ labelSelector: { matchLabels: { app } }, topologyKey, ...extra });

/** n1, n2 in zone a; n3 in zone b; n4 has no zone label. */
function cluster(...existing: V1Pod[]): SchedulerCache {
  const cache = new SchedulerCache();
  const zones: Record<string, string | undefined> = { n1: 'a', n2: 'a', n3: 'b', n4: undefined };
  for (const [name, zone] of Object.entries(zones)) cache.setNode({ metadata: { name, labels: { [HOST]: name, ...(zone ? { [ZONE]: zone } : {}) } } });
  cache.setNamespace('ns', { team: 'x' });
  cache.setNamespace('other', { team: 'y' });
  for (const p of existing) cache.updatePod(p);
  return cache;
}

/** The filter's verdict per node, '' for a pass. */
function verdicts(incoming: V1Pod, cache: SchedulerCache): Record<string, string> {
  const state = preFilterInterPodAffinity(podInfo(incoming), cache);
  const out: Record<string, string> = {};
  for (const n of cache.nodeInfos()) out[n.name] = interPodAffinity(state, n.node, cache)?.reasons.join() ?? '';
  return out;
}

const ANTI = "node(s) didn't match pod anti-affinity rules";
const EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules";
const AFFINITY = "node(s) didn't match pod affinity rules";

describe('InterPodAffinity', () => {
  it('has nothing to check when no pod has required terms', () => {
    assert.equal(preFilterInterPodAffinity(podInfo(pod('p')), cluster(pod('a', { node: 'n1', labels: { app: 'web' } }))), undefined);
  });

  it('keeps a pod off hosts that run a pod its anti-affinity selects', () => {
    const cache = cluster(pod('w1', { node: 'n1', labels: { app: 'web' } }), pod('db', { node: 'n2', labels: { app: 'db' } }));
    assert.deepEqual(verdicts(pod('w2', { labels: { app: 'web' }, anti: [term('web')] }), cache), { n1: ANTI, n2: '', n3: '', n4: '' });
  });

  it('applies anti-affinity per topology domain, not per node', () => {
    const cache = cluster(pod('w1', { node: 'n1', labels: { app: 'web' } }));
    assert.deepEqual(verdicts(pod('w2', { anti: [term('web', ZONE)] }), cache), { n1: ANTI, n2: ANTI, n3: '', n4: '' });
  });

  it('honours the anti-affinity of pods already placed against the incoming pod', () => {
    const cache = cluster(pod('loner', { node: 'n3', labels: { app: 'loner' }, anti: [term('db', ZONE)] }));
    assert.deepEqual(verdicts(pod('db', { labels: { app: 'db' } }), cache), { n1: '', n2: '', n3: EXISTING, n4: '' });
    assert.deepEqual(verdicts(pod('web', { labels: { app: 'web' } }), cache), { n1: '', n2: '', n3: '', n4: '' });
  });

  it('selects pods in the term\'s namespaces: its own by default, named ones, or by namespace selector', () => {
    const cache = cluster(pod('w1', { namespace: 'other', node: 'n1', labels: { app: 'web' } }));
    assert.equal(verdicts(pod('w2', { anti: [term('web')] }), cache).n1, '', 'own namespace only');
    assert.equal(verdicts(pod('w2', { anti: [term('web', HOST, { namespaces: ['other'] })] }), cache).n1, ANTI);
    assert.equal(verdicts(pod('w2', { anti: [term('web', HOST, { namespaceSelector: {} })] }), cache).n1, ANTI, 'empty selector: all namespaces');
    assert.equal(verdicts(pod('w2', { anti: [term('web', HOST, { namespaceSelector: { matchLabels: { team: 'y' } } })] }), cache).n1, ANTI);
    assert.equal(verdicts(pod('w2', { anti: [term('web', HOST, { namespaceSelector: { matchLabels: { team: 'x' } } })] }), cache).n1, '');
  });

  it('requires a selected pod in the node\'s domain for affinity', () => {
    const cache = cluster(pod('cache', { node: 'n3', labels: { app: 'cache' } }));
    assert.deepEqual(verdicts(pod('web', { affinity: [term('cache', ZONE)] }), cache), { n1: AFFINITY, n2: AFFINITY, n3: '', n4: AFFINITY });
  });

  it('lets the first pod of a group that selects itself go anywhere the topology key exists', () => {
    const first = pod('web-0', { labels: { app: 'web' }, affinity: [term('web', ZONE)] });
    assert.deepEqual(verdicts(first, cluster()), { n1: '', n2: '', n3: '', n4: AFFINITY });
    const stranger = pod('api-0', { labels: { app: 'api' }, affinity: [term('web', ZONE)] });
    assert.deepEqual(verdicts(stranger, cluster()), { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY }, 'a pod that does not select itself has to wait');
  });

  it('checks affinity before anti-affinity, as kube-scheduler does', () => {
    const cache = cluster(pod('w1', { node: 'n1', labels: { app: 'web' } }));
    const p = pod('x', { affinity: [term('db')], anti: [term('web')] });
    assert.equal(verdicts(p, cache).n1, AFFINITY);
  });
});
