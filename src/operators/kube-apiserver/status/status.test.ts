/**
 * The kube-apiserver operator's status as tables: when every node is at the latest revision,
 * the versions (raw-internal always, operator and kube-apiserver once rolled out and kept through
 * the next rollout), the conditions with the static-pod Degraded inertia on a FakeClock, and
 * library-go's status diff and version-change texts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterOperatorStatus } from '../../../api/config/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { FakeClock } from '../../../runtime/clock.ts';
import { allNodesAtLatest, operatorConditions, operatorVersions, relatedObjects, statusDiff, versionChanges } from './status.ts';

describe('allNodesAtLatest', () => {
  const cases = [
    { name: 'no revision yet', status: { latestAvailableRevision: 0, nodeStatuses: [{ nodeName: 'm0', currentRevision: 0 }] }, want: false },
    { name: 'no nodes', status: { latestAvailableRevision: 1, nodeStatuses: [] }, want: false },
    { name: 'one behind', status: { latestAvailableRevision: 2, nodeStatuses: [{ nodeName: 'm0', currentRevision: 2 }, { nodeName: 'm1', currentRevision: 1 }] }, want: false },
    { name: 'all at latest', status: { latestAvailableRevision: 2, nodeStatuses: [{ nodeName: 'm0', currentRevision: 2 }, { nodeName: 'm1', currentRevision: 2 }] }, want: true },
    { name: 'no status', status: undefined, want: false },
  ];
  for (const c of cases) it(c.name, () => assert.equal(allNodesAtLatest(c.status), c.want));
});

describe('operatorVersions', () => {
  it('raw-internal only before the first rollout', () => {
    assert.deepEqual(operatorVersions({ operatorVersion: '1.0', atLatest: false, current: undefined }), [{ name: 'raw-internal', version: '1.0' }]);
  });
  it('operator and kube-apiserver once every node is at the latest revision', () => {
    assert.deepEqual(operatorVersions({ operatorVersion: '1.0', operandVersion: '1.30', atLatest: true, current: [] }), [
      { name: 'raw-internal', version: '1.0' },
      { name: 'operator', version: '1.0' },
      { name: 'kube-apiserver', version: '1.30' },
    ]);
  });
  it('during a later rollout the rolled-out versions stay until it completes', () => {
    const current = [
      { name: 'raw-internal', version: '1.0' },
      { name: 'operator', version: '1.0' },
      { name: 'kube-apiserver', version: '1.0' },
    ];
    assert.deepEqual(operatorVersions({ operatorVersion: '2.0', atLatest: false, current }), [
      { name: 'raw-internal', version: '2.0' },
      { name: 'operator', version: '1.0' },
      { name: 'kube-apiserver', version: '1.0' },
    ]);
  });
});

describe('operatorConditions', () => {
  const clock = new FakeClock();
  const at = (agoMs: number) => formatTimestamp(clock.wallNow() - agoMs);
  const base = [
    { type: 'StaticPodsAvailable', status: 'True', lastTransitionTime: at(600_000), message: '3 nodes are active; 3 nodes are at revision 2' },
    { type: 'NodeInstallerProgressing', status: 'True', lastTransitionTime: at(10_000), reason: '', message: '1 node is at revision 1; 2 nodes are at revision 2' },
  ];
  const find = (cs: ReturnType<typeof operatorConditions>, type: string) => cs.find((c) => c.type === type)!;

  it('Available from StaticPodsAvailable, Progressing reason NodeInstaller', () => {
    const cs = operatorConditions(base, { clock });
    assert.deepEqual(find(cs, 'Available'), { type: 'Available', status: 'True', reason: 'AsExpected', message: 'StaticPodsAvailable: 3 nodes are active; 3 nodes are at revision 2' });
    assert.deepEqual(find(cs, 'Progressing'), { type: 'Progressing', status: 'True', reason: 'NodeInstaller', message: 'NodeInstallerProgressing: 1 node is at revision 1; 2 nodes are at revision 2' });
  });

  const degraded = (agoMs: number, type = 'TargetConfigControllerDegraded') => [...base, { type, status: 'True', reason: 'InvalidConfig', lastTransitionTime: at(agoMs), message: 'unsupportedConfigOverrides: x: unknown field' }];
  const cases = [
    { name: 'a young Degraded is not counted', conditions: degraded(60_000), want: 'False' },
    { name: 'counted past 2 minutes', conditions: degraded(121_000), want: 'True' },
    { name: 'StaticPodsDegraded waits 10 minutes', conditions: degraded(300_000, 'StaticPodsDegraded'), want: 'False' },
    { name: 'StaticPodsDegraded after 10 minutes', conditions: degraded(601_000, 'StaticPodsDegraded'), want: 'True' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(find(operatorConditions(c.conditions, { clock }), 'Degraded').status, c.want));

  it('the Degraded reason and message', () => {
    const d = find(operatorConditions(degraded(121_000), { clock }), 'Degraded');
    assert.equal(d.reason, 'TargetConfigController_InvalidConfig');
    assert.equal(d.message, 'TargetConfigControllerDegraded: unsupportedConfigOverrides: x: unknown field');
  });

  it('Upgradeable=False from overrides', () => {
    const cs = operatorConditions([...base, { type: 'UnsupportedConfigOverridesUpgradeable', status: 'False', reason: 'UnsupportedConfigOverridesSet', message: 'setting: [a]' }], { clock });
    assert.deepEqual(find(cs, 'Upgradeable'), { type: 'Upgradeable', status: 'False', reason: 'UnsupportedConfigOverrides_UnsupportedConfigOverridesSet', message: 'UnsupportedConfigOverridesUpgradeable: setting: [a]' });
  });
});

describe('statusDiff', () => {
  it('a new, a flipped, a reworded and a removed condition; versions and relatedObjects', () => {
    const before: ClusterOperatorStatus = {
      conditions: [
        { type: 'Degraded', status: 'False', lastTransitionTime: 't', message: 'All is well' },
        { type: 'Progressing', status: 'False', lastTransitionTime: 't', message: 'a' },
        { type: 'Gone', status: 'True', lastTransitionTime: 't' },
      ],
      versions: [{ name: 'raw-internal', version: '1' }],
    };
    const after: ClusterOperatorStatus = {
      conditions: [
        { type: 'Degraded', status: 'True', lastTransitionTime: 't', message: 'bad' },
        { type: 'Progressing', status: 'False', lastTransitionTime: 't', message: 'b' },
        { type: 'Available', status: 'True', lastTransitionTime: 't', message: 'ok' },
      ],
      versions: [
        { name: 'raw-internal', version: '1' },
        { name: 'operator', version: '1' },
      ],
      relatedObjects: [...relatedObjects],
    };
    const parts = statusDiff(before, after).split(/,(?=[A-Za-z.]+ )/);
    assert.deepEqual(parts.slice(0, 4), ['Degraded changed from False to True ("bad")', 'Progressing message changed from "a" to "b"', 'Available set to True ("ok")', 'Gone was removed']);
    assert.match(parts[4]!, /^status\.relatedObjects changed from \[\] to \[\{"group":"operator\.openshift\.io","resource":"kubeapiservers","name":"cluster"\}/);
    assert.equal(parts[5], 'status.versions changed from [{"raw-internal" "1"}] to [{"raw-internal" "1"} {"operator" "1"}]');
  });

  it('nothing changed is empty', () => {
    const s: ClusterOperatorStatus = { conditions: [{ type: 'Degraded', status: 'False', lastTransitionTime: 't' }], versions: [], relatedObjects: [] };
    assert.equal(statusDiff(s, structuredClone(s)), '');
  });
});

describe('versionChanges', () => {
  it('one message per changed version', () => {
    assert.deepEqual(
      versionChanges('kube-apiserver', [{ name: 'raw-internal', version: '1' }], [
        { name: 'raw-internal', version: '1' },
        { name: 'operator', version: '1' },
      ]),
      ['clusteroperator/kube-apiserver version "operator" changed from "" to "1"'],
    );
  });
});
