import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterOperatorStatus } from '../../../api/config/index.ts';
import { DEGRADED_GRACE_DURING_UPDATE_MS, desiredVersions, NOOP_MESSAGE, operatorStatus, relatedObjects } from './status.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const X = desiredVersions('0.1.1');
const OLD = desiredVersions('0.1.0');

function current(o: { versions?: typeof X; available?: [string, string]; degraded?: [string, string, string]; progressingSince?: string }): ClusterOperatorStatus {
  const conditions: NonNullable<ClusterOperatorStatus['conditions']> = [];
  if (o.available) conditions.push({ type: 'Available', status: o.available[0] as 'True', reason: o.available[1], message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });
  if (o.degraded) conditions.push({ type: 'Degraded', status: o.degraded[0] as 'True', reason: o.degraded[1], message: o.degraded[2], lastTransitionTime: '2026-01-01T00:00:00Z' });
  if (o.progressingSince) conditions.push({ type: 'Progressing', status: 'True', reason: 'SyncingResources', message: '', lastTransitionTime: o.progressingSince });
  return { conditions, versions: o.versions ?? [] };
}

describe('machine-api ClusterOperator status', () => {
  it('available: every condition as OpenShift words it, and only now the versions', () => {
    const r = operatorStatus({ desired: X, current: undefined, outcome: { kind: 'available' }, nowMs: NOW });
    assert.deepEqual(r.available, { status: 'True', reason: 'AsExpected', message: 'Cluster Machine API Operator is available at operator: 0.1.1' });
    assert.deepEqual(r.progressing, { status: 'False', reason: 'AsExpected', message: '' });
    assert.deepEqual(r.degraded, { status: 'False', reason: 'AsExpected', message: '' });
    assert.deepEqual(r.upgradeable, { status: 'True', reason: 'AsExpected', message: '' });
    assert.deepEqual(r.versions, [{ name: 'operator', version: '0.1.1' }]);
    assert.deepEqual(r.relatedObjects, relatedObjects);
  });

  it('NoOp: Available with OpenShift\'s NoOp message, the versions too', () => {
    const r = operatorStatus({ desired: X, current: undefined, outcome: { kind: 'noop' }, nowMs: NOW });
    assert.deepEqual(r.available, { status: 'True', reason: 'AsExpected', message: NOOP_MESSAGE });
    assert.equal(NOOP_MESSAGE, 'Cluster Machine API Operator is in NoOp mode');
    assert.deepEqual(r.versions, X);
  });

  it('coming up: Initializing until the first success, Progressing towards the release', () => {
    const r = operatorStatus({ desired: X, current: undefined, outcome: { kind: 'pending' }, nowMs: NOW });
    assert.deepEqual(r.available, { status: 'False', reason: 'Initializing', message: 'Operator is initializing' });
    assert.deepEqual(r.progressing, { status: 'True', reason: 'SyncingResources', message: 'Progressing towards operator: 0.1.1' });
    assert.deepEqual(r.degraded, { status: 'False', reason: 'AsExpected', message: '' });
    assert.deepEqual(r.versions, []);
  });

  it('a failure on a first install is Degraded at once, SyncingFailed with the cause', () => {
    const r = operatorStatus({ desired: X, current: current({ available: ['False', 'Initializing'], progressingSince: '2026-01-01T00:59:00Z' }), outcome: { kind: 'failed', message: 'deployment machine-api-controllers is being deleted' }, nowMs: NOW });
    assert.deepEqual(r.degraded, { status: 'True', reason: 'SyncingFailed', message: 'Failed when progressing towards operator: 0.1.1 because deployment machine-api-controllers is being deleted' });
    assert.equal(r.available.status, 'False', 'Available is left as it was');
  });

  it('a failure at the release it reports: "Failed to resync", Available kept', () => {
    const r = operatorStatus({ desired: X, current: current({ versions: X, available: ['True', 'AsExpected'] }), outcome: { kind: 'failed', message: 'images.json: not valid JSON' }, nowMs: NOW });
    assert.deepEqual(r.degraded, { status: 'True', reason: 'SyncingFailed', message: 'Failed to resync for operator: 0.1.1 because images.json: not valid JSON' });
    assert.deepEqual(r.progressing, { status: 'False', reason: 'AsExpected', message: '' });
    assert.equal(r.available.status, 'True');
    assert.deepEqual(r.versions, X);
  });

  it('during an update a failure waits 20 minutes of Progressing before it is Degraded', () => {
    const failed = { kind: 'failed', message: 'x' } as const;
    const early = operatorStatus({ desired: X, current: current({ versions: OLD, available: ['True', 'AsExpected'], progressingSince: new Date(NOW - 60_000).toISOString() }), outcome: failed, nowMs: NOW });
    assert.equal(early.degraded.status, 'False');
    assert.deepEqual(early.versions, OLD, 'the old versions stay until the new release is available');
    const late = operatorStatus({ desired: X, current: current({ versions: OLD, available: ['True', 'AsExpected'], progressingSince: new Date(NOW - DEGRADED_GRACE_DURING_UPDATE_MS - 1).toISOString() }), outcome: failed, nowMs: NOW });
    assert.deepEqual(late.degraded, { status: 'True', reason: 'SyncingFailed', message: 'Failed when progressing towards operator: 0.1.1 because x' });
  });

  it('a Degraded operator that converges again stays Degraded until it succeeds', () => {
    const r = operatorStatus({ desired: X, current: current({ versions: X, degraded: ['True', 'SyncingFailed', 'Failed to resync for operator: 0.1.1 because x'] }), outcome: { kind: 'pending' }, nowMs: NOW });
    assert.deepEqual(r.degraded, { status: 'True', reason: 'SyncingFailed', message: 'Failed to resync for operator: 0.1.1 because x' });
  });

  it('without RELEASE_VERSION (run from a host): no versions, as OpenShift\'s', () => {
    const r = operatorStatus({ desired: desiredVersions(undefined), current: undefined, outcome: { kind: 'available' }, nowMs: NOW });
    assert.deepEqual(r.versions, []);
    assert.equal(r.available.message, 'Cluster Machine API Operator is available at ');
    assert.equal(r.progressing.status, 'False');
  });
});
