import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { NodeStatus } from '../../../api/operator/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { FakeClock } from '../../../runtime/clock.ts';
import { decideInstallerState, installerConditions, retryDelayMs, revisionDescription, startNode, type InstallerStateInput } from './state.ts';

const NS = 'openshift-kube-apiserver';

const node = (nodeName: string, s: Partial<NodeStatus> = {}): NodeStatus => ({ nodeName, ...s });

/** Mirror pod `kube-apiserver-<node>` at a revision; Ready since `readySince` (ms) unless not ready. */
function mirror(nodeName: string, revision: number, o: { readySince?: number; phase?: string; message?: string } = {}): [string, V1Pod] {
  const ready = o.readySince !== undefined;
  return [
    `kube-apiserver-${nodeName}`,
    {
      metadata: { name: `kube-apiserver-${nodeName}`, namespace: NS, labels: { apiserver: 'true', revision: String(revision) } },
      status: {
        phase: o.phase ?? 'Running',
        message: o.message,
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: (ready ? formatTimestamp(o.readySince!) : undefined) as unknown as Date }],
      },
    },
  ];
}

function installer(name: string, phase: string, message?: string): [string, V1Pod] {
  return [
    name,
    {
      metadata: { name, namespace: NS, labels: { app: 'installer' } },
      status: { phase, containerStatuses: phase === 'Failed' ? [{ name: 'installer', image: 'x', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, message } } }] : [] },
    },
  ];
}

describe('installer state machine', () => {
  const clock = new FakeClock();
  const T = () => clock.wallNow();
  const input = (o: Partial<InstallerStateInput> & Pick<InstallerStateInput, 'nodeStatuses' | 'latestAvailableRevision'>): InstallerStateInput => ({
    installerPods: new Map(),
    mirrorPods: new Map(),
    now: T(),
    namespace: NS,
    ...o,
  });
  const three = (s: Partial<NodeStatus> = {}) => [node('m0', s), node('m1', s), node('m2', s)];

  it('does nothing before revision 1; conditions say no node is active', () => {
    const d = decideInstallerState(input({ nodeStatuses: three(), latestAvailableRevision: 0 }));
    assert.equal(d.changed, false);
    assert.deepEqual(d.actions, []);
    assert.deepEqual(d.conditions[0], { type: 'StaticPodsAvailable', status: 'False', reason: 'ZeroNodesActive', message: '0 nodes are active; 3 nodes are at revision 0' });
  });

  it('bootstrap: the first node without a static pod is targeted at the latest revision', () => {
    const d = decideInstallerState(input({ nodeStatuses: three(), latestAvailableRevision: 1 }));
    assert.equal(d.changed, true);
    assert.deepEqual(d.nodeStatuses, [node('m0', { targetRevision: 1 }), node('m1'), node('m2')]);
    assert.deepEqual(d.events, [{ type: 'Normal', reason: 'NodeTargetRevisionChanged', message: 'Updating node "m0" from revision 0 to 1 because node m0 static pod not found' }]);
    assert.deepEqual(d.conditions[1], { type: 'NodeInstallerProgressing', status: 'True', message: '3 nodes are at revision 0; 0 nodes have achieved new revision 1' });
    assert.deepEqual(d.actions, []);
  });

  it('a targeted node gets its installer pod installer-N-<node>', () => {
    const nodes = [node('m0', { currentRevision: 0, targetRevision: 1 }), node('m1'), node('m2')];
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 1 }));
    assert.equal(d.changed, false);
    assert.deepEqual(d.actions, [{ kind: 'createInstallerPod', name: 'installer-1-m0', nodeName: 'm0', revision: 1, retry: 0 }]);
  });

  const waits: { name: string; pods: [string, V1Pod][]; mirrors: [string, V1Pod][] }[] = [
    { name: 'installer pending', pods: [installer('installer-1-m0', 'Pending')], mirrors: [] },
    { name: 'installer running', pods: [installer('installer-1-m0', 'Running')], mirrors: [] },
    { name: 'installed, no static pod yet', pods: [installer('installer-1-m0', 'Succeeded')], mirrors: [] },
    { name: 'installed, static pod of an older revision', pods: [installer('installer-1-m0', 'Succeeded')], mirrors: [mirror('m0', 0, { readySince: 0 })] },
    { name: 'installed, static pod not ready (crash-looping: no timeout)', pods: [installer('installer-1-m0', 'Succeeded')], mirrors: [mirror('m0', 1)] },
  ];
  for (const w of waits) {
    it(`waits, writing nothing: ${w.name}`, () => {
      const nodes = [node('m0', { currentRevision: 0, targetRevision: 1 }), node('m1'), node('m2')];
      const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 1, installerPods: new Map(w.pods), mirrorPods: new Map(w.mirrors) }));
      assert.equal(d.changed, false);
      assert.deepEqual(d.actions, []);
      assert.deepEqual(d.events, []);
      assert.equal(d.requeueAfterMs, undefined);
      assert.deepEqual(d.nodeStatuses, nodes);
    });
  }

  it('installed and Ready for the minimum time: the node is current, the next one waits its turn', () => {
    clock.advance(60_000);
    const nodes = [node('m0', { currentRevision: 0, targetRevision: 1, lastFailedRevision: 1, lastFailedCount: 1, lastFailedReason: 'InstallerFailed', lastFailedRevisionErrors: ['x'] }), node('m1'), node('m2')];
    const d = decideInstallerState(
      input({ nodeStatuses: nodes, latestAvailableRevision: 1, installerPods: new Map([installer('installer-1-retry-1-m0', 'Succeeded')]), mirrorPods: new Map([mirror('m0', 1, { readySince: T() - 30_000 })]) }),
    );
    assert.deepEqual(d.nodeStatuses[0], node('m0', { currentRevision: 1, targetRevision: 0 }));
    assert.deepEqual(d.events, [{ type: 'Normal', reason: 'NodeCurrentRevisionChanged', message: 'Updated node "m0" from revision 0 to 1 because static pod is ready' }]);
    assert.equal(d.conditions[0]!.status, 'True');
    assert.equal(d.conditions[0]!.message, '1 nodes are active; 2 nodes are at revision 0; 1 node is at revision 1');
  });

  it('a replica Ready just now makes its node current at once; the next master with a replica then waits out the minimum ready time', () => {
    const nodes = [node('m0', { currentRevision: 1, targetRevision: 2 }), node('m1', { currentRevision: 1 }), node('m2', { currentRevision: 1 })];
    const mirrors = new Map([mirror('m0', 2, { readySince: T() - 1_000 }), mirror('m1', 1, { readySince: 0 }), mirror('m2', 1, { readySince: 0 })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 2, installerPods: new Map([installer('installer-2-m0', 'Succeeded')]), mirrorPods: mirrors }));
    assert.equal(d.changed, true);
    assert.deepEqual(d.nodeStatuses[0], node('m0', { currentRevision: 2, targetRevision: 0 }));
    assert.equal(d.requeueAfterMs, undefined);
    const next = decideInstallerState(input({ nodeStatuses: d.nodeStatuses, latestAvailableRevision: 2, mirrorPods: mirrors }));
    assert.equal(next.changed, false, 'm1 has a replica to take down');
    assert.deepEqual(next.actions, []);
    assert.equal(next.requeueAfterMs, 29_000);
  });

  it('the minimum ready time holds back a master with a replica to take down until it has passed (default 30 s, settable)', () => {
    const nodes = [node('m0', { currentRevision: 2, targetRevision: 0 }), node('m1', { currentRevision: 1 }), node('m2', { currentRevision: 2 })];
    const mirrors = new Map([mirror('m0', 2, { readySince: T() - 10_000 }), mirror('m1', 1, { readySince: 0 }), mirror('m2', 2, { readySince: 0 })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 2, mirrorPods: mirrors }));
    assert.equal(d.changed, false);
    assert.equal(d.requeueAfterMs, 20_000);
    const shorter = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 2, mirrorPods: mirrors, minReadyMs: 5_000 }));
    assert.equal(shorter.changed, true);
    assert.equal(shorter.nodeStatuses[1]!.targetRevision, 2);
  });

  it('a master without a replica (no mirror pod, no bootstrap server) does not wait: it takes nothing down', () => {
    const nodes = [node('m0', { currentRevision: 1, targetRevision: 0 }), node('m1'), node('m2')];
    const mirrors = new Map([mirror('m0', 1, { readySince: T() - 10_000 })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 1, mirrorPods: mirrors }));
    assert.equal(d.changed, true);
    assert.equal(d.nodeStatuses[1]!.targetRevision, 1);
    assert.match(d.events[0]!.message, /because node m1 static pod not found$/);
    // The bootstrap server's master has one to take down: it waits.
    const last = [node('m0'), node('m1', { currentRevision: 1 }), node('m2', { currentRevision: 1 })];
    const young = new Map([mirror('m1', 1, { readySince: T() - 40_000 }), mirror('m2', 1, { readySince: T() - 10_000 })]);
    const held = decideInstallerState(input({ nodeStatuses: last, latestAvailableRevision: 1, mirrorPods: young, bootstrapNodes: new Set(['m0']) }));
    assert.equal(held.changed, false);
    assert.equal(held.requeueAfterMs, 20_000);
  });

  it('start node: the lowest current revision when every static pod is ready and matches', () => {
    const nodes = [node('m0', { currentRevision: 2 }), node('m1', { currentRevision: 1 }), node('m2', { currentRevision: 1 })];
    const mirrors = new Map([mirror('m0', 2, { readySince: 0 }), mirror('m1', 1, { readySince: 0 }), mirror('m2', 1, { readySince: 0 })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 2, mirrorPods: mirrors }));
    assert.equal(d.nodeStatuses[1]!.targetRevision, 2);
    assert.equal(d.events[0]!.message, 'Updating node "m1" from revision 1 to 2 because node m1 with revision 1 is the oldest');
    assert.deepEqual(d.conditions[1], { type: 'NodeInstallerProgressing', status: 'True', message: '2 nodes are at revision 1; 1 node is at revision 2' });
  });

  it('a later node follows the one before it once that one is done, unless it failed that revision', () => {
    // m0 is picked (its static pod does not match its status) but is at the latest: the walk goes on to m1.
    const nodes = [node('m0', { currentRevision: 3 }), node('m1', { currentRevision: 2 }), node('m2', { currentRevision: 2 })];
    const mirrors = new Map([mirror('m0', 2, { readySince: 0 }), mirror('m1', 2, { readySince: 0 }), mirror('m2', 2, { readySince: 0 })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 3, mirrorPods: mirrors }));
    assert.equal(d.events[0]!.message, 'Updating node "m1" from revision 2 to 3 because node m1 is the next node in the line');
    const failedThere = decideInstallerState(input({ nodeStatuses: [nodes[0]!, { ...nodes[1]!, lastFailedRevision: 3, lastFailedReason: 'OperandFailed' }, nodes[2]!], latestAvailableRevision: 3, mirrorPods: mirrors }));
    assert.equal(failedThere.nodeStatuses[1]!.targetRevision, undefined, 'm1 failed revision 3: not moved by its neighbour');
    assert.equal(failedThere.nodeStatuses[2]!.targetRevision, undefined, 'm2 follows m1, which is not ahead');
    assert.equal(failedThere.changed, false);
  });

  it('start node rules, in order', () => {
    const ready = (n: string, r: number) => mirror(n, r, { readySince: 0 });
    const cases: { name: string; nodes: NodeStatus[]; mirrors: [string, V1Pod][]; want: string }[] = [
      { name: 'the targeted node', nodes: [node('a'), node('b', { currentRevision: 1, targetRevision: 2 })], mirrors: [], want: 'node b is progressing towards 2' },
      { name: 'a failure newer than every current revision', nodes: [node('a', { currentRevision: 1 }), node('b', { currentRevision: 1, lastFailedRevision: 2 })], mirrors: [ready('a', 1), ready('b', 1)], want: 'node b failed revision 2' },
      { name: 'the oldest not-ready static pod', nodes: [node('a', { currentRevision: 1 }), node('b', { currentRevision: 2 }), node('c', { currentRevision: 3 })], mirrors: [ready('a', 1), mirror('b', 2), mirror('c', 3)], want: 'node b with revision 2 is the oldest not ready' },
      { name: 'a node without static pod', nodes: [node('a', { currentRevision: 1 }), node('b', { currentRevision: 2 })], mirrors: [ready('a', 1)], want: 'node b static pod not found' },
      { name: 'a static pod not at its node\'s revision', nodes: [node('a', { currentRevision: 1 }), node('b', { currentRevision: 2 })], mirrors: [ready('a', 1), ready('b', 1)], want: 'node b with revision 1 is the oldest not matching its expected revision 2' },
      { name: 'the lowest current revision, first on ties', nodes: [node('a', { currentRevision: 2 }), node('b', { currentRevision: 1 }), node('c', { currentRevision: 1 })], mirrors: [ready('a', 2), ready('b', 1), ready('c', 1)], want: 'node b with revision 1 is the oldest' },
    ];
    for (const c of cases) assert.equal(startNode(c.nodes, new Map(c.mirrors)).reason, c.want, c.name);
  });

  it('among masters without a revision, the one running the bootstrap API server goes last', () => {
    const fresh = [node('m0'), node('m1'), node('m2')];
    assert.equal(startNode(fresh, new Map(), new Set(['m0'])).reason, 'node m1 static pod not found');
    assert.equal(startNode(fresh, new Map(), new Set()).reason, 'node m0 static pod not found', 'no bootstrap server: the first in the list');
    const bothDone = [node('m0'), node('m1', { currentRevision: 1 }), node('m2', { currentRevision: 1 })];
    assert.equal(startNode(bothDone, new Map([mirror('m1', 1, { readySince: 0 }), mirror('m2', 1, { readySince: 0 })]), new Set(['m0'])).reason, 'node m0 static pod not found', 'its turn comes once the others run a replica');
  });

  it('a newer revision fast-forwards a node still installing: its installer is deleted, no backoff', () => {
    const nodes = [node('m0', { currentRevision: 1, targetRevision: 2, lastFailedRevision: 2, lastFailedCount: 3, lastFailedTime: formatTimestamp(T()) }), node('m1', { currentRevision: 1 })];
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 3, installerPods: new Map([installer('installer-2-retry-3-m0', 'Running')]) }));
    assert.deepEqual(d.actions, [{ kind: 'deleteInstallerPod', name: 'installer-2-retry-3-m0' }]);
    assert.equal(d.nodeStatuses[0]!.targetRevision, 3);
    assert.equal(d.events[0]!.message, 'Updating node "m0" from revision 1 to 3 because new revision 3 is available');
    assert.equal(d.requeueAfterMs, undefined);
  });

  describe('a failing installer', () => {
    const targeted = [node('m0', { currentRevision: 1, targetRevision: 2 }), node('m1', { currentRevision: 1 })];

    it('records lastFailed* with the termination message (the log tail), keeps the target, and reports NodeInstallerDegraded', () => {
      const start = T();
      const d = decideInstallerState(input({ nodeStatuses: targeted, latestAvailableRevision: 2, now: start, installerPods: new Map([installer('installer-2-m0', 'Failed', 'copy failed: disk full')]) }));
      assert.deepEqual(d.nodeStatuses[0], {
        nodeName: 'm0',
        currentRevision: 1,
        targetRevision: 2,
        lastFailedRevision: 2,
        lastFailedReason: 'InstallerFailed',
        lastFailedCount: 1,
        lastFailedTime: formatTimestamp(start),
        lastFailedRevisionErrors: ['installer: copy failed: disk full'],
      });
      assert.deepEqual(d.events, [{ type: 'Warning', reason: 'InstallerPodFailed', message: 'installer errors: installer: copy failed: disk full' }]);
      assert.equal(d.requeueAfterMs, 15_000);
      assert.deepEqual(d.conditions[2], { type: 'NodeInstallerDegraded', status: 'True', reason: 'InstallerPodFailed', message: '1 nodes are failing on revision 2:\ninstaller: copy failed: disk full' });
    });

    it('without a termination message: the log tail given, else where to look', () => {
      const pods = new Map([installer('installer-2-m0', 'Failed')]);
      const withLogs = decideInstallerState(input({ nodeStatuses: targeted, latestAvailableRevision: 2, installerPods: pods, installerLogs: new Map([['installer-2-m0', 'E1127 boom']]) }));
      assert.deepEqual(withLogs.nodeStatuses[0]!.lastFailedRevisionErrors, ['installer: E1127 boom']);
      const bare = decideInstallerState(input({ nodeStatuses: targeted, latestAvailableRevision: 2, installerPods: pods }));
      assert.deepEqual(bare.nodeStatuses[0]!.lastFailedRevisionErrors, ['no detailed termination message, see `oc get -oyaml -n "openshift-kube-apiserver" pods "installer-2-m0"`']);
    });

    it('retries as installer-N-retry-K-<node> after 10 s × 1.5^count, counting on', () => {
      const start = T();
      const failed = decideInstallerState(input({ nodeStatuses: targeted, latestAvailableRevision: 2, now: start, installerPods: new Map([installer('installer-2-m0', 'Failed', 'x')]) })).nodeStatuses;
      const old = new Map([installer('installer-2-m0', 'Failed', 'x')]);
      clock.advance(10_000);
      const early = decideInstallerState(input({ nodeStatuses: failed, latestAvailableRevision: 2, installerPods: old }));
      assert.deepEqual(early.actions, []);
      assert.equal(early.requeueAfterMs, 5_000);
      assert.equal(early.changed, false);
      clock.advance(5_000);
      const due = decideInstallerState(input({ nodeStatuses: failed, latestAvailableRevision: 2, installerPods: old }));
      assert.deepEqual(due.actions, [{ kind: 'createInstallerPod', name: 'installer-2-retry-1-m0', nodeName: 'm0', revision: 2, retry: 1 }]);
      const again = decideInstallerState(input({ nodeStatuses: failed, latestAvailableRevision: 2, installerPods: new Map([...old, installer('installer-2-retry-1-m0', 'Failed', 'y')]) }));
      assert.equal(again.nodeStatuses[0]!.lastFailedCount, 2);
      assert.equal(again.nodeStatuses[0]!.lastFailedTime, formatTimestamp(T()));
      assert.equal(again.requeueAfterMs, 22_500);
    });

    it('a new revision failing starts its count again', () => {
      const oldFailure = [node('m0', { currentRevision: 1, targetRevision: 3, lastFailedRevision: 2, lastFailedCount: 4, lastFailedReason: 'InstallerFailed' }), node('m1', { currentRevision: 1 })];
      const d = decideInstallerState(input({ nodeStatuses: oldFailure, latestAvailableRevision: 3, installerPods: new Map([installer('installer-3-retry-4-m0', 'Failed', 'z')]) }));
      assert.equal(d.nodeStatuses[0]!.lastFailedRevision, 3);
      assert.equal(d.nodeStatuses[0]!.lastFailedCount, 1);
    });
  });

  it('an operand that fails: OperandFailed, target cleared; the node is then picked again and retried with backoff', () => {
    const nodes = [node('m0', { currentRevision: 1, targetRevision: 2 }), node('m1', { currentRevision: 1 })];
    const mirrors = new Map([mirror('m0', 2, { phase: 'Failed', message: 'exit 1: bad flag' })]);
    const d = decideInstallerState(input({ nodeStatuses: nodes, latestAvailableRevision: 2, installerPods: new Map([installer('installer-2-m0', 'Succeeded')]), mirrorPods: mirrors }));
    assert.deepEqual({ ...d.nodeStatuses[0], lastFailedTime: undefined }, {
      nodeName: 'm0',
      currentRevision: 1,
      targetRevision: 0,
      lastFailedRevision: 2,
      lastFailedReason: 'OperandFailed',
      lastFailedCount: 1,
      lastFailedTime: undefined,
      lastFailedRevisionErrors: ['exit 1: bad flag'],
    });
    assert.equal(d.conditions[2]!.status, 'False', 'target cleared: not degraded by the installer');
    const next = decideInstallerState(input({ nodeStatuses: d.nodeStatuses, latestAvailableRevision: 2, mirrorPods: new Map([mirror('m0', 1, { readySince: 0 }), mirror('m1', 1, { readySince: 0 })]) }));
    assert.equal(next.nodeStatuses[0]!.targetRevision, 2);
    assert.equal(next.events[0]!.message, 'Updating node "m0" from revision 1 to 2 because node m0 failed revision 2');
    const wait = decideInstallerState(input({ nodeStatuses: next.nodeStatuses, latestAvailableRevision: 2, mirrorPods: new Map([mirror('m0', 1, { readySince: 0 }), mirror('m1', 1, { readySince: 0 })]) }));
    assert.equal(wait.requeueAfterMs, 15_000);
    assert.deepEqual(wait.actions, []);
  });

  it('backoff settings: installer 10 s × 1.5ⁿ capped at 10 min, fallback 10 min × 2ⁿ capped at 2 h, both settable', () => {
    assert.equal(retryDelayMs(node('a', { lastFailedCount: 0 })), 10_000);
    assert.equal(retryDelayMs(node('a', { lastFailedCount: 2 })), 22_500);
    assert.equal(retryDelayMs(node('a', { lastFailedCount: 20 })), 600_000);
    assert.equal(retryDelayMs(node('a', { lastFailedReason: 'OperandFailedFallback', lastFallbackCount: 1 })), 1_200_000);
    assert.equal(retryDelayMs(node('a', { lastFailedReason: 'OperandFailedFallback', lastFallbackCount: 9 })), 7_200_000);
    const fast = { installer: { baseMs: 100, factor: 2, maxMs: 1_000 }, fallback: { baseMs: 1, factor: 1, maxMs: 1 } };
    assert.equal(retryDelayMs(node('a', { lastFailedCount: 3 }), fast), 800);
    assert.equal(retryDelayMs(node('a', { lastFailedCount: 4 }), fast), 1_000);
  });

  it('condition messages as upstream words them', () => {
    const at = (revs: number[]) => revs.map((r, i) => node(`m${i}`, { currentRevision: r }));
    assert.equal(revisionDescription(at([3, 4, 4]), 4), '1 node is at revision 3; 2 nodes are at revision 4');
    assert.equal(revisionDescription(at([3, 4, 4]), 5), '1 node is at revision 3; 2 nodes are at revision 4; 0 nodes have achieved new revision 5');
    assert.deepEqual(installerConditions(at([7, 7, 7]), 7), [
      { type: 'StaticPodsAvailable', status: 'True', message: '3 nodes are active; 3 nodes are at revision 7' },
      { type: 'NodeInstallerProgressing', status: 'False', reason: 'AllNodesAtLatestRevision', message: '3 nodes are at revision 7' },
      { type: 'NodeInstallerDegraded', status: 'False', message: '' },
    ]);
    const failing = [
      node('m0', { currentRevision: 4, targetRevision: 5, lastFailedRevision: 5, lastFailedRevisionErrors: ['installer: a'] }),
      node('m1', { currentRevision: 4, lastFailedRevision: 3, lastFailedRevisionErrors: ['old'] }),
      node('m2', { currentRevision: 4, targetRevision: 0, lastFailedRevision: 5, lastFailedReason: 'OperandFailed', lastFailedRevisionErrors: ['not targeted'] }),
    ];
    assert.deepEqual(installerConditions(failing, 5)[2], { type: 'NodeInstallerDegraded', status: 'True', reason: 'InstallerPodFailed', message: '1 nodes are failing on revision 5:\ninstaller: a' });
    const fallback = [node('m0', { currentRevision: 4, targetRevision: 5, lastFailedRevision: 5, lastFailedReason: 'OperandFailedFallback' })];
    assert.equal(installerConditions(fallback, 5)[2]!.status, 'False');
  });
});
