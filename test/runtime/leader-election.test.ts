/**
 * Leader election against the real Shipyard API server: two candidates never lead at once,
 * a killed leader's Lease passes to the other process once it expires, and a leader that stops
 * gracefully hands over at once. Durations are seconds, not OpenShift's minutes.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api, KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { ApiClient } from '../../src/runtime/client.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { runLeaderElection, type LeaderElectionOptions } from '../../src/runtime/leader-election.ts';
import { LeaseClient } from '../../src/runtime/lease-client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/elect.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FAST = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
/** A Lease no test waits out: a candidate that takes it over within a test did so because it was released. */
const NEVER_EXPIRES = { leaseDurationMs: 120_000, renewDeadlineMs: 100_000, retryPeriodMs: 300 };

interface Candidate {
  readonly id: string;
  readonly stop: AbortController;
  readonly done: Promise<void>;
  leading: boolean;
  terms: number;
  stopped: number;
  leaders: string[];
}

/** An in-process candidate whose "controllers" run until `leading` aborts, then take `windDownMs` to stop. */
function candidate(kubeConfig: KubeConfig, id: string, name: string, timings: Partial<LeaderElectionOptions> = FAST, windDownMs = 0): Candidate {
  const stop = new AbortController();
  const c: Candidate = { id, stop, done: Promise.resolve(), leading: false, terms: 0, stopped: 0, leaders: [] };
  (c as { done: Promise<void> }).done = runLeaderElection({
    kubeConfig,
    namespace: 'kube-system',
    name,
    identity: id,
    ...timings,
    signal: stop.signal,
    onStartedLeading: (leading) => {
      c.leading = true;
      c.terms++;
      return new Promise<void>((resolve) =>
        leading.addEventListener('abort', () =>
          setTimeout(() => {
            c.leading = false;
            resolve();
          }, windDownMs),
        ),
      );
    },
    onStoppedLeading: () => c.stopped++,
    onNewLeader: (leader) => c.leaders.push(leader),
  });
  return c;
}

describe('leader election (API server)', () => {
  let ts: TestServer;
  let kc: KubeConfig;
  let leases: CoordinationV1Api;

  before(async () => {
    ts = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    leases = kc.makeApiClient(CoordinationV1Api);
  });
  after(() => ts.stop());

  /** Every holder the Lease `name` has had, in order, as a watch sees its writes (none is missed); stopped with `t`. */
  async function holdersOf(t: { after(fn: () => void): void }, name: string): Promise<string[]> {
    const client = new ApiClient(kc, { userAgent: 'leader-election-test' });
    const stop = new AbortController();
    t.after(() => {
      stop.abort();
      client.close();
    });
    const holders: string[] = [];
    const informer = new InformerFactory({ client, signal: stop.signal }).informer<V1Lease>(resources.leases, { namespace: 'kube-system', fieldSelector: `metadata.name=${name}` });
    const record = (l: { spec?: { holderIdentity?: string } }): void => {
      const holder = l.spec?.holderIdentity ?? '';
      if (holders.at(-1) !== holder) holders.push(holder);
    };
    informer.on('add', record);
    informer.on('update', record);
    await informer.waitForSync();
    return holders;
  }

  /** The Lease as the server stores it, timestamps as sent on the wire. */
  async function rawLease(name: string): Promise<{ spec: Record<string, unknown> }> {
    const res = await ts.request('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`);
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body) as { spec: Record<string, unknown> };
  }

  it('lets only one of two candidates lead, and records it in the Lease', async () => {
    const a = candidate(kc, 'cand-a', 'one-leader');
    const b = candidate(kc, 'cand-b', 'one-leader');
    try {
      await until('a leader', () => a.leading || b.leading);
      const [leader, follower] = a.leading ? [a, b] : [b, a];
      // Several renew periods: the follower keeps trying and must keep failing.
      const watchUntil = Date.now() + 2500;
      while (Date.now() < watchUntil) {
        assert.ok(!(a.leading && b.leading), 'both candidates lead');
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(follower.terms, 0);
      assert.equal(leader.terms, 1);
      assert.deepEqual(follower.leaders, [leader.id]);

      const first = await rawLease('one-leader');
      assert.equal(first.spec.holderIdentity, leader.id);
      assert.equal(first.spec.leaseDurationSeconds, 3);
      assert.equal(first.spec.leaseTransitions, 0);
      // MicroTime goes over the wire with microseconds, and the server keeps it that way.
      assert.match(String(first.spec.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.match(String(first.spec.acquireTime), /\.\d{6}Z$/);
      await until('a renewal', async () => (await rawLease('one-leader')).spec.renewTime !== first.spec.renewTime);
    } finally {
      a.stop.abort();
      b.stop.abort();
      await Promise.all([a.done, b.done]);
    }
    // Graceful stop released it.
    const released = await leases.readNamespacedLease({ namespace: 'kube-system', name: 'one-leader' });
    assert.equal(released.spec?.holderIdentity ?? '', '');
    assert.equal(a.leading || b.leading, false);
    assert.equal(a.stopped + b.stopped, 1);
  });

  it('hands over at once when the leader stops gracefully, well under the lease duration', async (t) => {
    // The Lease would last 2 minutes: b can only lead within the test because a released it.
    const a = candidate(kc, 'grace-a', 'graceful', NEVER_EXPIRES);
    await until('a leads', () => a.leading);
    const b = candidate(kc, 'grace-b', 'graceful', NEVER_EXPIRES);
    try {
      await until('b sees a as leader', () => b.leaders.includes('grace-a'));
      const before = await rawLease('graceful');
      const t0 = Date.now();
      a.stop.abort();
      await a.done;
      assert.equal(a.leading, false, "a's controllers were stopped before it returned");
      assert.equal(a.stopped, 1);
      await until('b leads', () => b.leading, 30_000);
      t.diagnostic(`graceful handover took ${Date.now() - t0} ms`);
      const after = await rawLease('graceful');
      assert.equal(after.spec.holderIdentity, 'grace-b');
      assert.equal(after.spec.leaseTransitions, Number(before.spec.leaseTransitions) + 1);
      assert.notEqual(after.spec.acquireTime, before.spec.acquireTime);
    } finally {
      a.stop.abort();
      b.stop.abort();
      await Promise.all([a.done, b.done]);
    }
  });

  it('a release the API server does not answer at first is tried again, so the successor still need not wait out the lease', async () => {
    // As in an upgrade on one master: the API server restarts just as the old leader stops.
    const real = new LeaseClient(kc);
    let dropped = 0;
    let stopping = false;
    const flaky: LeaderElectionOptions['leases'] = {
      readNamespacedLease: (...args) => real.readNamespacedLease(...args),
      createNamespacedLease: (...args) => real.createNamespacedLease(...args),
      replaceNamespacedLease: async (...args) => {
        if (stopping && dropped < 2) {
          dropped++;
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        }
        return real.replaceNamespacedLease(...args);
      },
    };
    const stop = new AbortController();
    let leading = false;
    const a = runLeaderElection({
      kubeConfig: kc,
      namespace: 'kube-system',
      name: 'flaky-release',
      identity: 'flaky-a',
      ...NEVER_EXPIRES,
      signal: stop.signal,
      leases: flaky,
      onStartedLeading: (l) => {
        leading = true;
        return new Promise<void>((resolve) => l.addEventListener('abort', () => resolve()));
      },
    });
    await until('a leads', () => leading);
    const b = candidate(kc, 'flaky-b', 'flaky-release', NEVER_EXPIRES);
    try {
      await until('b sees a as leader', () => b.leaders.includes('flaky-a'));
      stopping = true;
      stop.abort();
      await a;
      assert.equal(dropped, 2, 'the release failed twice before it went through');
      // The Lease would last 2 minutes: b leads within the test only because a's release got through.
      await until('b leads', () => b.leading, 30_000);
      assert.equal((await rawLease('flaky-release')).spec.holderIdentity, 'flaky-b');
    } finally {
      stop.abort();
      b.stop.abort();
      await Promise.all([a, b.done]);
    }
  });

  it("keeps the Lease while the old leader's controllers wind down, even past the lease duration", async (t) => {
    const windDownMs = FAST.leaseDurationMs + 500;
    const holders = await holdersOf(t, 'wind-down');
    const a = candidate(kc, 'wind-a', 'wind-down', FAST, windDownMs);
    await until('a leads', () => a.leading);
    const b = candidate(kc, 'wind-b', 'wind-down');
    try {
      await until('b sees a as leader', () => b.leaders.includes('wind-a'));
      a.stop.abort();
      let bLedEarly = false;
      while (a.leading) {
        if (b.leading) bLedEarly = true;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(bLedEarly, false, 'b led while a was still stopping');
      await until('b leads', () => b.leading);
      await a.done;
      // a released the Lease once wound down (holder cleared), and b took it from there rather than waiting for it to expire.
      await until('the Lease held by b', () => holders.at(-1) === 'wind-b');
      assert.deepEqual(holders, ['wind-a', '', 'wind-b']);
    } finally {
      a.stop.abort();
      b.stop.abort();
      await Promise.all([a.done, b.done]);
    }
  });

  it('hands over between processes once the lease has lapsed when the leader is killed', async (t) => {
    const children: { id: string; proc: ChildProcess; lines: string[] }[] = [];
    const spawnCandidate = (id: string) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', FIXTURE, ts.server.kubeconfigPath, id, String(FAST.leaseDurationMs), String(FAST.renewDeadlineMs), String(FAST.retryPeriodMs), 'processes'], {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const child = { id, proc, lines: [] as string[] };
      let buf = '';
      proc.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        const parts = buf.split('\n');
        buf = parts.pop()!;
        child.lines.push(...parts);
      });
      let errText = '';
      proc.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
      proc.on('exit', (code, sig) => {
        if (code !== 0 && sig !== 'SIGKILL' && sig !== 'SIGTERM') child.lines.push(`EXIT ${code} ${errText}`);
      });
      children.push(child);
      return child;
    };
    try {
      const p1 = spawnCandidate('proc-1');
      const p2 = spawnCandidate('proc-2');
      await until('one process leads', () => p1.lines.includes('LEADING') || p2.lines.includes('LEADING'), 60_000);
      const [leader, follower] = p1.lines.includes('LEADING') ? [p1, p2] : [p2, p1];
      await until('the follower sees the leader', () => follower.lines.includes(`NEW_LEADER ${leader.id}`), 60_000);
      assert.ok(!follower.lines.includes('LEADING'), follower.lines.join('\n'));

      const t0 = Date.now();
      leader.proc.kill('SIGKILL');
      await until('the follower leads', () => follower.lines.includes('LEADING'), 60_000);
      const took = Date.now() - t0;
      t.diagnostic(`handover after SIGKILL took ${took} ms`);
      // It must wait for the lease to lapse (no release from a killed process). Timers fire late,
      // never early, so a loaded machine can only lengthen this; how much longer is not asserted.
      assert.ok(took >= 1000, `took over after ${took} ms, before the lease could have expired`);
      assert.ok(follower.lines.includes(`NEW_LEADER ${follower.id}`));
      const lease = await rawLease('processes');
      assert.equal(lease.spec.holderIdentity, follower.id);
      assert.equal(lease.spec.leaseTransitions, 1);
    } finally {
      for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    }
  });

  // Scaling an operator down while it waits for its Lease must not wait for the Lease (issue 13:
  // the CVO's pod outlived its grace period). The retry period is longer than the deadline here,
  // so only a candidate that stops on its signal passes.
  it('a candidate waiting for a held Lease stops as soon as it is told to', async () => {
    const long = { leaseDurationMs: 120_000, renewDeadlineMs: 100_000, retryPeriodMs: 60_000 };
    const holder = candidate(kc, 'held-by', 'waiting', long);
    await until('the holder leads', () => holder.leading);
    const waiter = candidate(kc, 'waits', 'waiting', long);
    try {
      await until('the waiter has seen the holder', () => waiter.leaders.includes('held-by'));
      let stopped = false;
      void waiter.done.then(() => (stopped = true));
      waiter.stop.abort();
      await until('the waiter stopped', () => stopped, 10_000);
      assert.equal(waiter.terms, 0);
    } finally {
      holder.stop.abort();
      waiter.stop.abort();
      await Promise.all([holder.done, waiter.done]);
    }
  });

  it('a candidate under the identity of a holder that died takes the Lease back without waiting for it to expire', async () => {
    // A pod started again (a resumed datacenter) campaigns under the same name, its pod's.
    const long = { leaseDurationMs: 120_000, renewDeadlineMs: 100_000, retryPeriodMs: 60_000, releaseOnCancel: false };
    const before = candidate(kc, 'pod-abc', 'restarted', long);
    await until('the first run leads', () => before.leading);
    before.stop.abort();
    await before.done;
    assert.equal((await rawLease('restarted')).spec.holderIdentity, 'pod-abc', 'not released: as if the process had been killed');
    const again = candidate(kc, 'pod-abc', 'restarted', long);
    try {
      await until('the restarted run leads', () => again.leading, 10_000);
      assert.equal((await rawLease('restarted')).spec.leaseTransitions, 0, 'the same holder renewed, no transition');
    } finally {
      again.stop.abort();
      await again.done;
    }
  });
});
