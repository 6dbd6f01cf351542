import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeStatus, syncState, type StatusInput } from './status.ts';

const r1 = { version: '0.1.0', image: 'shipyard.local/release:0.1.0' };
const r2 = { version: '0.1.1', image: 'shipyard.local/release:0.1.1' };
const base = (over: Partial<StatusInput>): StatusInput => ({ previous: {}, desired: r1, generation: 1, versionHash: 'h', state: 'Initializing', overridesSet: false, notUpgradeable: [], channel: 'stable-0.1', now: '2026-11-25T12:00:00Z', ...over });
const cond = (s: ReturnType<typeof computeStatus>, t: string) => s.conditions!.find((c) => c.type === t)!;
const manifest = { file: '0000_50_test_01_broken.yaml', index: 0, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'openshift-config', name: 'broken' };

describe('ClusterVersion status', () => {
  it('while installing: Progressing says how far, Available False, history Partial', () => {
    const s = computeStatus(base({ result: { total: 10, done: 4, failures: [], aborted: false } }));
    assert.equal(cond(s, 'Progressing').status, 'True');
    assert.equal(cond(s, 'Progressing').message, 'Working towards 0.1.0: 4 of 10 done (40% complete)');
    assert.equal(cond(s, 'Available').status, 'False');
    assert.equal(s.history![0]!.state, 'Partial');
    assert.equal(s.history![0]!.completionTime, null);
  });

  it('a completed pass: Completed history, Available, "Cluster version is X"', () => {
    const s = computeStatus(base({ result: { total: 10, done: 10, failures: [], aborted: false } }));
    assert.equal(s.history![0]!.state, 'Completed');
    assert.equal(cond(s, 'Available').status, 'True');
    assert.equal(cond(s, 'Available').message, 'Done applying 0.1.0');
    assert.equal(cond(s, 'Progressing').status, 'False');
    assert.equal(cond(s, 'Progressing').message, 'Cluster version is 0.1.0');
    assert.equal(cond(s, 'Failing').status, 'False');
    assert.equal(syncState(s.history, r1), 'Reconciling');
    assert.equal(syncState(s.history, r2), 'Updating');
  });

  it('a refused manifest: Failing names the file and the API error; Progressing says reconciling failed', () => {
    const installed = computeStatus(base({ result: { total: 2, done: 2, failures: [], aborted: false } }));
    const s = computeStatus(base({ previous: installed, state: 'Reconciling', result: { total: 2, done: 1, aborted: false, failures: [{ manifest, reason: 'UpdatePayloadResourceInvalid', message: 'the API server refused it: ConfigMap "broken" is invalid', waiting: false }] } }));
    assert.equal(cond(s, 'Failing').status, 'True');
    assert.match(cond(s, 'Failing').message!, /0000_50_test_01_broken\.yaml/);
    assert.match(cond(s, 'Failing').message!, /ConfigMap "broken" is invalid/);
    assert.equal(cond(s, 'Progressing').status, 'False');
    assert.match(cond(s, 'Progressing').message!, /^Error while reconciling 0\.1\.0: /);
    assert.equal(cond(s, 'Available').status, 'True', 'still available');
  });

  it('overrides make it not upgradeable, with the CVO reason, and the version message names what is unmanaged', () => {
    const s = computeStatus(base({ overridesSet: true, unmanaged: ['Deployment openshift-config-operator/openshift-config-operator'], result: { total: 2, done: 2, failures: [], aborted: false } }));
    assert.equal(cond(s, 'Upgradeable').status, 'False');
    assert.equal(cond(s, 'Upgradeable').reason, 'ClusterVersionOverridesSet');
    assert.equal(cond(s, 'Progressing').message, 'Cluster version is 0.1.0; not managed (overrides): Deployment openshift-config-operator/openshift-config-operator');
  });

  it('an update adds a Partial entry on top and completes it; the transition time of Available stays', () => {
    const installed = computeStatus(base({ result: { total: 2, done: 2, failures: [], aborted: false } }));
    const updating = computeStatus(base({ previous: installed, desired: r2, state: 'Updating', now: '2026-11-25T12:10:00Z', result: { total: 2, done: 1, failures: [], aborted: false } }));
    assert.deepEqual(updating.history!.map((h) => [h.version, h.state]), [['0.1.1', 'Partial'], ['0.1.0', 'Completed']]);
    assert.equal(cond(updating, 'Available').lastTransitionTime, '2026-11-25T12:00:00Z');
    const done = computeStatus(base({ previous: updating, desired: r2, state: 'Updating', now: '2026-11-25T12:11:00Z', result: { total: 2, done: 2, failures: [], aborted: false } }));
    assert.deepEqual(done.history!.map((h) => [h.version, h.state]), [['0.1.1', 'Completed'], ['0.1.0', 'Completed']]);
    assert.equal(done.history![0]!.completionTime, '2026-11-25T12:11:00Z');
  });

  it('a refused release: ReleaseAccepted=False with the precondition that failed; desired stays the current release', () => {
    const s = computeStatus(base({ state: 'Reconciling', refused: { release: { version: '0.2.0', image: 'shipyard.local/release:0.2.0' }, reason: 'ClusterVersionOverridesSet', message: 'Disabling ownership via cluster version overrides prevents upgrades.' } }));
    const c = cond(s, 'ReleaseAccepted');
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'PreconditionChecks');
    assert.match(c.message!, /version="0\.2\.0".*Precondition "ClusterVersionUpgradeable" failed because of "ClusterVersionOverridesSet"/);
    assert.equal(s.desired.version, '0.1.0');
  });
});
