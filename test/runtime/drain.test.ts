/**
 * The drain helper against a real API server (with the disruption controller keeping budgets'
 * status) and a real kubelet running the pods: the seed's failure, where a PodDisruptionBudget
 * keeps the router on the node. Evictions are retried every 5 s and the drain gives up after
 * its timeout naming the node, the pod and the budget; the node stays cordoned, DaemonSet and
 * mirror pods stay, other pods go. Once the budget allows it, a drain still retrying finishes
 * on its own. The helper's waits run on a FakeClock the test moves; the kubelet and the
 * controllers run in real time.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1DaemonSet, V1Node, V1PodDisruptionBudget, V1ReplicaSet } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { DrainError, drainNode, uncordonNode, type DrainLog } from '../../src/runtime/drain.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { boundPod, condition, startNode, until, type NodeUnderTest } from '../node/support.ts';

const NODE = 'worker-drain-0';
const NS = 'openshift-ingress';
const ROUTER = 'router-default-796df5847b-9hxzx';
const PAUSE = 'registry.k8s.io/pause:3.10';
const REFUSED = 'Cannot evict pod as it would violate the pod\'s disruption budget.';

/** Log lines as the helper writes them, each with the fake time it was written at. */
function recorder(clock: FakeClock) {
  const lines: { at: number; level: 'I' | 'E'; text: string }[] = [];
  const log: DrainLog = {
    info: (text) => lines.push({ at: clock.now(), level: 'I', text }),
    error: (text) => lines.push({ at: clock.now(), level: 'E', text }),
  };
  return { lines, log, retries: () => lines.filter((l) => l.text.startsWith(`error when evicting pod "${ROUTER}"`)) };
}

/** Moves the fake clock by `ms` whenever the helper waits on it, until `done` settles. */
async function pump(clock: FakeClock, done: Promise<unknown>, ms: number): Promise<void> {
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await until('the drain to wait on its clock or finish', () => settled || clock.pending() > 0);
    if (!settled) clock.advance(ms);
    await new Promise((r) => setImmediate(r));
  }
}

describe('drainNode on a real API server and kubelet', () => {
  let ts: TestServer;
  let n: NodeUnderTest;

  before(async () => {
    ts = await startTestServer({ controllers: true });
    n = await startNode({
      server: ts,
      nodeName: NODE,
      nodeIP: '127.1.44.9',
      podCIDR: '127.130.44.0/24',
      prepare: (nodeDir) => {
        const dir = join(nodeDir, 'root', 'etc', 'kubernetes', 'manifests');
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'static-web.yaml'), stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static-web', namespace: 'kube-system' }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'web', image: PAUSE }] } }));
      },
    });
  });

  after(async () => {
    await n?.stop();
    await ts?.stop();
  });

  it('gives up after the timeout naming the node, the pod and the budget; retries every 5 s; leaves DaemonSet and mirror pods', async () => {
    const { client } = n;
    for (const ns of [NS, 'openshift-dns']) await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const labels = { 'ingresscontroller.operator.openshift.io/deployment-ingresscontroller': 'default' };
    const rs = await client.create<V1ReplicaSet>(resources.replicaSets, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'router-default-796df5847b', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'router', image: PAUSE }] } } },
    });
    const ds = await client.create<V1DaemonSet>(resources.daemonSets, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'dns-default', namespace: 'openshift-dns' },
      spec: { selector: { matchLabels: { app: 'dns' } }, template: { metadata: { labels: { app: 'dns' } }, spec: { containers: [{ name: 'dns', image: PAUSE }] } } },
    });
    const router = boundPod(ROUTER, NODE, { containers: [{ name: 'router', image: PAUSE }], labels });
    router.metadata = { ...router.metadata, namespace: NS, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata!.name!, uid: rs.metadata!.uid!, controller: true }] };
    const dns = boundPod('dns-default-h2lt5', NODE, { containers: [{ name: 'dns', image: PAUSE }], labels: { app: 'dns' } });
    dns.metadata = { ...dns.metadata, namespace: 'openshift-dns', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.metadata!.name!, uid: ds.metadata!.uid!, controller: true }] };
    await client.create(resources.pods, router);
    await client.create(resources.pods, dns);
    await client.create(resources.pods, boundPod('web', NODE, { containers: [{ name: 'web', image: PAUSE }] }));
    await client.create<V1PodDisruptionBudget>(resources.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'router-default', namespace: NS }, spec: { minAvailable: 1, selector: { matchLabels: labels } } });
    for (const [ns, name] of [[NS, ROUTER], ['openshift-dns', 'dns-default-h2lt5'], ['default', 'web'], ['kube-system', `static-web-${NODE}`]] as const) {
      await until(`${ns}/${name} Ready`, async () => condition(await n.pod(name, ns), 'Ready') === 'True');
    }
    await until('the budget to allow no disruption', async () => {
      const pdb = await client.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, NS, 'router-default');
      return pdb.status?.currentHealthy === 1 && pdb.status.disruptionsAllowed === 0;
    });

    const clock = new FakeClock();
    const { lines, log, retries } = recorder(clock);
    const drain = drainNode(client, NODE, { clock, timeoutMs: 90_000, log });
    drain.catch(() => {});
    // The unprotected pod goes in real time (the kubelet stops it); the drain's 1 s poll for it
    // moves only when the test moves the clock, once the pod is gone.
    const webEvicted = () => lines.some((l) => l.text === 'evicted pod default/web');
    await until('web gone from the API while the drain waits', async () => (await n.pod('web')) === undefined && (webEvicted() || clock.pending() === 2));
    if (!webEvicted()) clock.advance(1000);
    await until('the drain to see web gone', webEvicted);
    // From here only the router's retry waits on the clock: each step is exactly one retry interval.
    await pump(clock, drain, 5000);
    const err = await drain.then(
      () => assert.fail('the drain should have failed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DrainError, String(err));
    assert.equal(err.message, `failed to drain node ${NODE}: Cannot evict pod ${NS}/${ROUTER}: would violate PodDisruptionBudget ${NS}/router-default`);
    assert.deepEqual(err.blockers.map((b) => [b.pod, b.budget]), [[`${NS}/${ROUTER}`, `${NS}/router-default`]]);
    assert.ok(clock.now() >= 90_000 && clock.now() < 95_000, `gave up at ${clock.now()} ms on the drain's clock`);

    // The helper's words, as the seed's daemon log shows them.
    assert.deepEqual(lines[0], { at: 0, level: 'E', text: 'WARNING: ignoring DaemonSet-managed Pods: openshift-dns/dns-default-h2lt5; deleting Pods that declare no controller: default/web' });
    assert.ok(lines.some((l) => l.level === 'I' && l.text === `evicting pod ${NS}/${ROUTER}`));
    const tries = retries();
    assert.ok(tries.length >= 2, lines.map((l) => l.text).join('\n'));
    for (const t of tries) assert.deepEqual([t.level, t.text], ['E', `error when evicting pod "${ROUTER}" (will retry after 5s): ${REFUSED}`]);
    const late = tries.filter((t) => t.at > 0);
    for (let i = 1; i < late.length; i++) assert.equal(late[i]!.at - late[i - 1]!.at, 5000, 'one refused eviction each 5 s');

    const node = await client.get<V1Node>(resources.nodes, undefined, NODE);
    assert.equal(node.spec?.unschedulable, true, 'a failed drain leaves the node cordoned');
    assert.equal(await n.pod('web'), undefined, 'the unprotected pod is gone');
    assert.equal(condition(await n.pod(ROUTER, NS), 'Ready'), 'True', 'the protected pod still runs');
    assert.ok(await n.pod('dns-default-h2lt5', 'openshift-dns'), 'the DaemonSet pod stays');
    assert.ok(await n.pod(`static-web-${NODE}`, 'kube-system'), 'the mirror pod stays');
  });

  it('a drain still retrying finishes alone once the budget allows the eviction; uncordon makes the node schedulable', async () => {
    const { client } = n;
    const clock = new FakeClock();
    const { lines, log, retries } = recorder(clock);
    const drain = drainNode(client, NODE, { clock, timeoutMs: 90_000, log });
    drain.catch(() => {});
    await until('a first refused eviction', () => retries().length === 1 && clock.pending() === 1);
    await client.patch(resources.podDisruptionBudgets, NS, 'router-default', { spec: { minAvailable: 0 } }, { type: 'merge' });
    await until('the budget to allow a disruption', async () => {
      const pdb = await client.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, NS, 'router-default');
      return pdb.status?.observedGeneration === pdb.metadata?.generation && pdb.status?.disruptionsAllowed === 1;
    });
    clock.advance(5000);
    // The retry evicts it; the kubelet stops it in real time, then one poll on the clock sees it gone.
    await until('the router evicted and gone while the drain polls', async () => (await n.pod(ROUTER, NS)) === undefined && clock.pending() === 1);
    clock.advance(1000);
    const result = await drain;
    assert.deepEqual(result, { evicted: [`${NS}/${ROUTER}`], ignored: ['openshift-dns/dns-default-h2lt5'] });
    assert.ok(lines.some((l) => l.text === `evicted pod ${NS}/${ROUTER}`));
    assert.equal(await n.pod(ROUTER, NS), undefined, 'the router is gone');
    assert.ok(await n.pod('dns-default-h2lt5', 'openshift-dns'), 'the DaemonSet pod stays');

    assert.equal(await uncordonNode(client, NODE), true);
    const node = await client.get<V1Node>(resources.nodes, undefined, NODE);
    assert.equal(node.spec?.unschedulable, undefined, 'uncordoned: the field is gone, as kubectl uncordon leaves it');
    assert.equal(await uncordonNode(client, NODE), false, 'nothing to do the second time');
  });

  it('an eviction the API server does not answer is tried again after the retry interval, not a failure', async () => {
    const { client } = n;
    await client.create(resources.pods, boundPod('web-again', NODE, { containers: [{ name: 'web', image: PAUSE }] }));
    await until('default/web-again Ready', async () => condition(await n.pod('web-again'), 'Ready') === 'True');
    // Its first eviction meets a connection the server closed, as while an API server restarts.
    let tries = 0;
    const flaky = new Proxy(client, {
      get(target, prop) {
        if (prop === 'request') {
          return async (method: string, path: string, opts?: unknown) => {
            if (method === 'POST' && path.endsWith('/pods/web-again/eviction') && tries++ === 0) throw new Error('socket hang up');
            return target.request(method, path, opts as never);
          };
        }
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const clock = new FakeClock();
    const { lines, log } = recorder(clock);
    const drain = drainNode(flaky, NODE, { clock, timeoutMs: 90_000, log });
    drain.catch(() => {});
    await pump(clock, drain, 1000);
    const result = await drain;
    assert.ok(result.evicted.includes('default/web-again'), JSON.stringify(result));
    assert.equal(tries, 2, 'refused once, then evicted');
    assert.ok(lines.some((l) => l.level === 'E' && l.text === 'error when evicting pod "web-again" (will retry after 5s): socket hang up'), lines.map((l) => l.text).join('\n'));
    assert.equal(await n.pod('web-again'), undefined);
    await uncordonNode(client, NODE);
  });
});
