import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { ApiError } from '../api/status.ts';
import { FakeClock } from './clock.ts';
import { errorBackoff, jittered, LEADER_ELECTION_DEFAULTS, LeaseObservation, leaseDurationSeconds, resolveTimings, runLeaderElection } from './leader-election.ts';

describe('resolveTimings', () => {
  it("defaults to OpenShift's 137 s / 107 s / 26 s", () => {
    assert.deepEqual(resolveTimings({}), { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 });
    assert.deepEqual(resolveTimings({}), { ...LEADER_ELECTION_DEFAULTS });
  });

  it('rejects timings that would let two leaders overlap or lose leadership on one slow retry', () => {
    assert.throws(() => resolveTimings({ leaseDurationMs: 2000, renewDeadlineMs: 2000, retryPeriodMs: 500 }), /leaseDurationMs \(2000\) must be greater than renewDeadlineMs \(2000\)/);
    assert.throws(() => resolveTimings({ leaseDurationMs: 3000, renewDeadlineMs: 1200, retryPeriodMs: 1000 }), /renewDeadlineMs \(1200\) must be greater than 1.2 × retryPeriodMs \(1000\)/);
    assert.throws(() => resolveTimings({ retryPeriodMs: 0 }), /retryPeriodMs must be a positive number/);
    assert.throws(() => resolveTimings({ leaseDurationMs: Number.NaN }), /leaseDurationMs must be a positive number/);
    assert.deepEqual(resolveTimings({ leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 }), { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 });
  });
});

describe('leaseDurationSeconds', () => {
  it('rounds up to whole seconds, so the Lease never promises less than asked', () => {
    assert.equal(leaseDurationSeconds(137_000), 137);
    assert.equal(leaseDurationSeconds(2_500), 3);
    assert.equal(leaseDurationSeconds(1), 1);
  });
});

describe('jittered', () => {
  it('waits the period plus up to 1.2 periods more', () => {
    assert.equal(jittered(1000, () => 0), 1000);
    assert.equal(jittered(1000, () => 0.5), 1600);
    assert.ok(jittered(1000, () => 0.999999) < 2200);
  });
});

describe('errorBackoff', () => {
  it('retries a failed request after 500 ms doubling, never beyond the retry period', () => {
    const none = () => 0;
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => errorBackoff(n, 26_000, none)), [500, 1000, 2000, 4000, 8000, 16_000]);
    assert.equal(errorBackoff(7, 26_000, none), 26_000);
    assert.equal(errorBackoff(30, 26_000, () => 1), 57_200, 'capped: the period with its own jitter');
    assert.equal(errorBackoff(1, 26_000, () => 1), 750, 'jitter adds up to half');
  });
});

describe('LeaseObservation', () => {
  const spec = (holder: string, renewTime: string, extra: object = {}) => ({ holderIdentity: holder, leaseDurationSeconds: 10, renewTime: renewTime as never, leaseTransitions: 0, ...extra });

  it("judges expiry on the observer's clock from when the record last changed, not from renewTime", () => {
    const clock = new FakeClock(50_000);
    const seen = new LeaseObservation();
    // A renewTime from long ago (a holder whose clock is behind) does not make the lease look expired.
    seen.observe(spec('a', '2001-01-01T00:00:00.000000Z'), clock.now());
    assert.equal(seen.heldByOther('b', clock.now(), 99_000), true);
    clock.advance(9_999);
    seen.observe(spec('a', '2001-01-01T00:00:00.000000Z'), clock.now());
    assert.equal(seen.heldByOther('b', clock.now(), 99_000), true, 'an unchanged record does not restart the wait');
    clock.advance(1);
    assert.equal(seen.heldByOther('b', clock.now(), 99_000), false, 'free once leaseDurationSeconds passed without a change');

    // A renewal (any change) restarts the wait.
    seen.observe(spec('a', '2001-01-01T00:00:10.000000Z'), clock.now());
    clock.advance(9_000);
    assert.equal(seen.heldByOther('b', clock.now(), 99_000), true);
  });

  it('treats an empty holder as free and its own holding as not held by another', () => {
    const seen = new LeaseObservation();
    seen.observe(spec('', 'x'), 0);
    assert.equal(seen.heldByOther('b', 0, 10_000), false);
    seen.observe(spec('b', 'y'), 0);
    assert.equal(seen.heldByOther('b', 0, 10_000), false);
    assert.equal(seen.holder(), 'b');
  });

  it("falls back to the candidate's own lease duration when the record has none", () => {
    const seen = new LeaseObservation();
    seen.observe({ holderIdentity: 'a' }, 0);
    assert.equal(seen.heldByOther('b', 2_999, 3_000), true);
    assert.equal(seen.heldByOther('b', 3_000, 3_000), false);
  });
});

describe('runLeaderElection options', () => {
  const base = { kubeConfig: new KubeConfig(), namespace: 'kube-system', name: 'lock', identity: 'me', signal: new AbortController().signal, onStartedLeading: () => {} };

  it('throws at once on invalid options, before touching the API', () => {
    assert.throws(() => runLeaderElection({ ...base, identity: '' }), /identity must be a non-empty string/);
    assert.throws(() => runLeaderElection({ ...base, name: '' }), /name must be a non-empty string/);
    assert.throws(() => runLeaderElection({ ...base, leaseDurationMs: 1000, renewDeadlineMs: 2000 }), /must be greater than renewDeadlineMs/);
  });
});

describe('a stop while the acquiring write is in flight', () => {
  it('waits for the write and hands back a Lease it turns out to have won, so a successor need not wait it out', async () => {
    let stored: V1Lease | undefined;
    let finishCreate: (() => void) | undefined;
    const writes: V1Lease[] = [];
    const leases = {
      async readNamespacedLease(): Promise<V1Lease> {
        if (!stored) throw new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "lock" not found', {});
        return structuredClone(stored);
      },
      // The create reaches the server, which applies it; its answer comes only when the test says.
      createNamespacedLease(p: { body: V1Lease }): Promise<V1Lease> {
        return new Promise((resolve) => {
          finishCreate = () => {
            stored = { ...structuredClone(p.body), metadata: { ...p.body.metadata, resourceVersion: '1' } };
            resolve(structuredClone(stored));
          };
        });
      },
      async replaceNamespacedLease(p: { body: V1Lease }): Promise<V1Lease> {
        writes.push(structuredClone(p.body));
        stored = structuredClone(p.body);
        return structuredClone(stored);
      },
    };
    const stop = new AbortController();
    let led = false;
    const done = runLeaderElection({ kubeConfig: new KubeConfig(), namespace: 'kube-system', name: 'lock', identity: 'me', signal: stop.signal, clock: new FakeClock(1_000_000), leases: leases as never, onStartedLeading: () => void (led = true) });
    while (!finishCreate) await new Promise((r) => setImmediate(r));
    stop.abort();
    finishCreate();
    await done;
    assert.equal(led, false, 'a stopped candidate starts no work');
    assert.equal(writes.length, 1, 'the won Lease is released');
    assert.equal(stored?.spec?.holderIdentity, undefined, 'nobody holds it now');
  });
});
