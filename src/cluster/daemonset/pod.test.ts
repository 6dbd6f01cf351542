import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1DaemonSet } from '@kubernetes/client-node';
import { daemonPod } from './pod.ts';
import type { DaemonSet } from './types.ts';

const ds = {
  metadata: { name: 'agent', namespace: 'kube-system', uid: 'u-ds' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: { metadata: { labels: { app: 'agent' } }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'agent:1' }], tolerations: [{ key: 'gpu', operator: 'Exists' }] } },
  },
} as V1DaemonSet as DaemonSet;

describe('daemonPod', () => {
  it('is the template, labelled with the hash, tolerating what daemons tolerate, pinned by affinity', () => {
    const pod = daemonPod(ds, 'h4sh', 'n1', 'affinity');
    assert.equal(pod.metadata?.generateName, 'agent-');
    assert.equal(pod.metadata?.namespace, 'kube-system');
    assert.deepEqual(pod.metadata?.labels, { app: 'agent', 'controller-revision-hash': 'h4sh' });
    assert.deepEqual(pod.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'u-ds', controller: true, blockOwnerDeletion: true }]);
    assert.equal(pod.spec?.nodeName, undefined);
    assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]);
    const keys = pod.spec?.tolerations?.map((t) => t.key);
    assert.equal(keys?.[0], 'gpu');
    assert.ok(keys?.includes('node.kubernetes.io/network-unavailable'), 'host-network daemons tolerate a node whose network is down');
    assert.equal(ds.spec?.template?.spec?.tolerations?.length, 1, 'the cached template is left alone');
  });

  it('binds directly in nodeName mode', () => {
    const pod = daemonPod(ds, 'h4sh', 'n2', 'nodeName');
    assert.equal(pod.spec?.nodeName, 'n2');
    assert.equal(pod.spec?.affinity, undefined);
  });
});
