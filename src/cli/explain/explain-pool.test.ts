import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MachineConfigPool } from '../../api/machineconfiguration/index.ts';
import { renderPoolExplanation } from './explain-pool.ts';
import { parseDrainBlocker, type PoolFacts } from './pool-facts.ts';

const reason = 'failed to drain node worker-0: Cannot evict pod openshift-ingress/router-default-6c9f-abcde: would violate PodDisruptionBudget openshift-ingress/router-default';

function pool(over: Partial<{ paused: boolean; target: string; current: string; conditions: object[] }> = {}): MachineConfigPool {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: 'worker' },
    spec: { configuration: { name: over.target ?? 'rendered-worker-new' }, paused: over.paused ?? false, maxUnavailable: 1 },
    status: { configuration: { name: over.current ?? 'rendered-worker-old' }, conditions: over.conditions ?? [{ type: 'Updated', status: 'False' }, { type: 'Updating', status: 'True' }, { type: 'Degraded', status: 'True' }] },
  } as unknown as MachineConfigPool;
}

describe('shipyard explain mcp/<pool>', () => {
  it('reads the pod and the budget out of the daemon’s drain failure', () => {
    assert.deepEqual(parseDrainBlocker(`Marking Degraded due to: ${reason}`), { pod: 'openshift-ingress/router-default-6c9f-abcde', budget: 'openshift-ingress/router-default' });
    assert.equal(parseDrainBlocker('content mismatch for file "/etc/motd"'), undefined);
    assert.equal(parseDrainBlocker(undefined), undefined);
  });

  it('names the blocked node, its step, the pod, the budget and why the other replica cannot move', () => {
    const facts: PoolFacts = {
      pool: pool(),
      nodes: [{ name: 'worker-0', ready: 'Ready', unschedulable: true, currentConfig: 'rendered-worker-old', desiredConfig: 'rendered-worker-new', state: 'Degraded', reason }],
      blockers: new Map([
        [
          'worker-0',
          {
            pod: 'openshift-ingress/router-default-6c9f-abcde',
            budget: 'openshift-ingress/router-default',
            budgetStatus: { minAvailable: '1', currentHealthy: 1, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 0 },
            owner: { kind: 'Deployment', name: 'openshift-ingress/router-default', replicas: 2 },
            pendingSiblings: [{ name: 'router-default-6c9f-fghij', message: "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }." }],
          },
        ],
      ]),
    };
    const text = renderPoolExplanation(facts);
    assert.match(text, /^MachineConfigPool worker: Updating, Degraded; 1 node\(s\)/);
    assert.match(text, /target config: {2}rendered-worker-new/);
    assert.match(text, /node worker-0 \(Ready,SchedulingDisabled\): draining: an eviction is refused/);
    assert.match(text, /pod openshift-ingress\/router-default-6c9f-abcde cannot be evicted: it would violate PodDisruptionBudget openshift-ingress\/router-default/);
    assert.match(text, /minAvailable 1; 1 healthy of 2 expected \(1 required\), 0 disruptions allowed/);
    assert.match(text, /belongs to Deployment openshift-ingress\/router-default \(2 replicas\)/);
    assert.match(text, /router-default-6c9f-fghij cannot be scheduled elsewhere: 0\/4 nodes are available: 1 node\(s\) were unschedulable/);
    assert.match(text, /scale Deployment openshift-ingress\/router-default down/);
  });

  it('says what keeps an unreconcilable node, a paused pool and a failed render where they are', () => {
    const unreconcilable: PoolFacts = {
      pool: pool({ paused: true, conditions: [{ type: 'RenderDegraded', status: 'True', message: 'Failed to render configuration for pool worker: bad' }] }),
      nodes: [{ name: 'worker-1', ready: 'Ready', unschedulable: false, currentConfig: 'rendered-worker-old', desiredConfig: 'rendered-worker-new', state: 'Unreconcilable', reason: "can't reconcile config rendered-worker-old with rendered-worker-new: ignition passwd user section contains unsupported changes: non-core user" }],
      blockers: new Map(),
    };
    const text = renderPoolExplanation(unreconcilable);
    assert.match(text, /paused: nodes will not be updated to rendered-worker-new/);
    assert.match(text, /render failed: Failed to render configuration for pool worker: bad/);
    assert.match(text, /node worker-1 \(Ready\): refused the change/);
    assert.match(text, /state Unreconcilable: can't reconcile config rendered-worker-old with rendered-worker-new/);
    assert.match(text, /reverted or deleted/);
  });

  it('says so when nothing is in the way', () => {
    const done: PoolFacts = {
      pool: pool({ target: 'rendered-worker-a', current: 'rendered-worker-a', conditions: [{ type: 'Updated', status: 'True' }] }),
      nodes: [{ name: 'worker-0', ready: 'Ready', unschedulable: false, currentConfig: 'rendered-worker-a', desiredConfig: 'rendered-worker-a', state: 'Done' }],
      blockers: new Map(),
    };
    assert.equal(renderPoolExplanation(done), 'MachineConfigPool worker: Updated; 1 node(s)\n  current config: rendered-worker-a\n  every node runs the current config; nothing is in the way\n');
  });
});
