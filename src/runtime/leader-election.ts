/**
 * Lease-based leader election, with the semantics of client-go's tools/leaderelection: several
 * replicas of a component compete for one coordination.k8s.io/v1 Lease, and only the holder
 * runs its controllers.
 *
 * A candidate never trusts the holder's timestamps. It remembers *when it last saw the Lease
 * change* on its own clock, and treats the Lease as free once `leaseDurationSeconds` have passed
 * since then with no change; so clocks that disagree do not matter, only clocks that run at very
 * different rates would. Every write carries the resourceVersion that was read, so when two
 * candidates race for a free Lease the server lets exactly one win (the other gets 409).
 *
 * The leader renews every `retryPeriod`; if it cannot renew within `renewDeadline` of its last
 * successful renewal it stops leading, which is before any candidate can consider the Lease
 * expired (`renewDeadline < leaseDuration`); that margin is the time its controllers have to
 * stop. On a graceful stop, `leading` aborts but renewals go on until `onStartedLeading`'s
 * promise has settled, and only then is the Lease released (holder cleared, so a successor
 * need not wait): a successor never starts while the old leader's controllers still run.
 *
 * Unlike client-go's Run, which returns for good once leadership is lost, a candidate that
 * loses leadership becomes a candidate again until `signal` aborts: components here may run
 * in-process beside others, where exiting is not the way to start over.
 */
import type { V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { hostname } from 'node:os';
import { errorText, statusCodeOf } from '../api/status.ts';
import { realClock, sleep, type Clock } from './clock.ts';
import type { KubeAccess } from './kubeconfig.ts';
import { LeaseClient, MicroTime, type CallOptions } from './lease-client.ts';

export interface LeaderElectionLogger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
}

export interface LeaderElectionOptions {
  kubeConfig: KubeAccess;
  namespace: string;
  name: string;
  /** Unique among the candidates, e.g. `<host>_<uuid>` as client-go users do. */
  identity: string;
  /** How long candidates wait, after last seeing the Lease change, before taking it over. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it gives up leading. */
  renewDeadlineMs?: number;
  /** Between acquire attempts (with jitter) and between renewals. */
  retryPeriodMs?: number;
  signal: AbortSignal;
  /** On abort, the leader clears holderIdentity so a successor need not wait out the lease. */
  releaseOnCancel?: boolean;
  /**
   * `leading` aborts when leadership is lost or `signal` aborts. A returned promise should settle
   * once the work has stopped: on a graceful stop the Lease is kept (renewed) until it does.
   * A rejection gives leadership up.
   */
  onStartedLeading: (leading: AbortSignal) => void | Promise<void>;
  /** Called after each term, once `onStartedLeading` has settled; never if this candidate never led. */
  onStoppedLeading?: () => void;
  /** Each time a different holder is seen, this candidate included. */
  onNewLeader?: (identity: string) => void;
  logger?: LeaderElectionLogger;
  clock?: Clock;
  /** Where the Lease is read and written; a LeaseClient over `kubeConfig` unless a test gives its own. */
  leases?: Pick<LeaseClient, 'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'>;
}

/**
 * The identity a component campaigns under. In a pod it is the pod's name (the container's
 * HOSTNAME, which is what client-go users get from os.Hostname()), so the same pod started
 * again (a container restart, a datacenter resumed after a stop or a crash) is the same
 * candidate and takes its Lease back at once, instead of waiting a whole lease duration for a
 * holder that no longer exists: with OpenShift's 137 s, a resumed cluster's controllers sat
 * idle for over two minutes (issue 13). Two live processes never share a pod's name: a pod
 * runs one process of a container at a time. Outside a pod: host, pid and a random suffix.
 */
export function candidateIdentity(env: Readonly<Record<string, string | undefined>>): string {
  const pod = env.HOSTNAME;
  return pod ? pod : `${hostname()}_${process.pid}_${Math.random().toString(16).slice(2, 8)}`;
}

/** OpenShift's defaults for its control-plane components (tolerates a 60 s API outage). */
export const LEADER_ELECTION_DEFAULTS = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 } as const;

/** Acquire attempts wait retryPeriod plus up to this fraction of it again, so candidates spread out. */
export const JITTER_FACTOR = 1.2;

/**
 * A release at shutdown should not hold the process for a whole renew deadline, but it is
 * tried again within this budget: in an upgrade the API server itself may be restarting at the
 * moment (one master), and a successor then waits out the whole lease (137 s by default).
 */
const RELEASE_TIMEOUT_MS = 10_000;
/** Between tries of a release, doubling up to a second. */
const RELEASE_RETRY_MS = 200;

export interface LeaderElectionTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** Defaults and checks the durations; the relations are what make a takeover safe. */
export function resolveTimings(opts: Partial<LeaderElectionTimings>): LeaderElectionTimings {
  const t = {
    leaseDurationMs: opts.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs,
    renewDeadlineMs: opts.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
    retryPeriodMs: opts.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs,
  };
  for (const [k, v] of Object.entries(t)) {
    if (!Number.isFinite(v) || v <= 0) throw new RangeError(`leader election: ${k} must be a positive number of milliseconds, got ${v}`);
  }
  if (t.leaseDurationMs <= t.renewDeadlineMs) {
    throw new RangeError(`leader election: leaseDurationMs (${t.leaseDurationMs}) must be greater than renewDeadlineMs (${t.renewDeadlineMs}), or a successor could take over while the leader still acts`);
  }
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs) {
    throw new RangeError(`leader election: renewDeadlineMs (${t.renewDeadlineMs}) must be greater than ${JITTER_FACTOR} × retryPeriodMs (${t.retryPeriodMs}), or one slow retry loses leadership`);
  }
  return t;
}

/** The Lease's duration field is whole seconds; rounding down would shorten the promise. */
export function leaseDurationSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

export function jittered(ms: number, random: () => number = Math.random): number {
  return ms + random() * JITTER_FACTOR * ms;
}

/** After the n-th failed request in a row: 500 ms doubling, jittered, never beyond a (jittered) retry period. */
export function errorBackoff(failures: number, retryPeriodMs: number, random: () => number = Math.random): number {
  const base = Math.min(retryPeriodMs, 500 * 2 ** Math.max(0, failures - 1));
  return base === retryPeriodMs ? jittered(retryPeriodMs, random) : base + random() * 0.5 * base;
}

function timeText(t: unknown): string {
  return t instanceof Date ? t.toISOString() : t === undefined || t === null ? '' : String(t);
}

/**
 * What a candidate knows about the Lease: its last record and, on the candidate's own clock,
 * when that record last changed. Expiry is judged from that instant, never from renewTime.
 */
export class LeaseObservation {
  private fingerprint: string | undefined;
  record: V1LeaseSpec | undefined;
  observedAt = 0;

  observe(spec: V1LeaseSpec, now: number): void {
    const fp = JSON.stringify([spec.holderIdentity ?? '', spec.leaseDurationSeconds ?? 0, timeText(spec.acquireTime), timeText(spec.renewTime), spec.leaseTransitions ?? 0]);
    if (fp === this.fingerprint) return;
    this.fingerprint = fp;
    this.record = spec;
    this.observedAt = now;
  }

  holder(): string {
    return this.record?.holderIdentity ?? '';
  }

  /** Someone else holds it and has not let it lapse, as far as this candidate can tell. */
  heldByOther(identity: string, now: number, fallbackDurationMs: number): boolean {
    const holder = this.holder();
    if (holder === '' || holder === identity) return false;
    const secs = this.record?.leaseDurationSeconds;
    const durationMs = secs !== undefined && secs > 0 ? secs * 1000 : fallbackDurationMs;
    return this.observedAt + durationMs > now;
  }
}

type Attempt = 'ok' | 'held' | 'error';

function withSignal(signal: AbortSignal): CallOptions {
  return { signal };
}

const silent: LeaderElectionLogger = { info() {}, warn() {} };

class Elector {
  private readonly api: NonNullable<LeaderElectionOptions['leases']>;
  private readonly clock: Clock;
  private readonly log: LeaderElectionLogger;
  private readonly t: LeaderElectionTimings;
  private readonly seen = new LeaseObservation();
  private reportedLeader = '';

  constructor(private readonly opts: LeaderElectionOptions) {
    for (const k of ['namespace', 'name', 'identity'] as const) {
      if (typeof opts[k] !== 'string' || opts[k] === '') throw new TypeError(`leader election: ${k} must be a non-empty string`);
    }
    this.t = resolveTimings(opts);
    this.api = opts.leases ?? new LeaseClient(opts.kubeConfig);
    this.clock = opts.clock ?? realClock;
    this.log = opts.logger ?? silent;
  }

  private get lockFields(): object {
    return { lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity };
  }

  async run(): Promise<void> {
    const { signal } = this.opts;
    while (!signal.aborted) {
      const acquiredAt = await this.acquire();
      if (acquiredAt === undefined) return;
      if (signal.aborted) {
        // Aborted while the winning write was in flight: nothing to start, only the Lease to hand back.
        if (this.opts.releaseOnCancel !== false) await this.release();
        return;
      }
      const end = await this.lead(acquiredAt);
      // A leader that gave up on its own (its work failed) waits a period, so a failure that
      // repeats at once does not turn into a tight acquire/fail loop.
      if (end === 'stepped-down') await sleep(this.t.retryPeriodMs, signal, this.clock);
    }
  }

  /** Tries until this candidate holds the Lease; returns when the winning attempt started, or undefined if aborted. */
  private async acquire(): Promise<number | undefined> {
    const { signal } = this.opts;
    this.log.info(this.lockFields, 'attempting to acquire leader lease');
    let failures = 0;
    while (!signal.aborted) {
      const started = this.clock.now();
      // A stop while this write is in flight must not leave the outcome unknown: the server may
      // still apply it, and a Lease won that way but never released would keep every successor
      // waiting a whole lease duration. So the attempt is given a moment to finish; if it won,
      // run() releases the Lease.
      const r = await this.attempt(this.t.renewDeadlineMs, signal, RELEASE_TIMEOUT_MS);
      this.reportLeader();
      if (r === 'ok') {
        this.log.info(this.lockFields, 'acquired leader lease');
        return started;
      }
      // A Lease someone holds is worth a period's wait. A failed request says nothing about the
      // Lease: a component started beside its API server (static pods at boot or on a resume)
      // would otherwise sit out up to 2.2 periods (57 s with OpenShift's) after its first try.
      failures = r === 'error' ? failures + 1 : 0;
      await sleep(r === 'error' ? errorBackoff(failures, this.t.retryPeriodMs) : jittered(this.t.retryPeriodMs), signal, this.clock);
    }
    return undefined;
  }

  private async lead(acquiredAt: number): Promise<'lost' | 'released' | 'stepped-down'> {
    const { signal } = this.opts;
    const leading = new AbortController();
    // The term ends when leading has been called off *and* the work has wound down; renewals go
    // on in between, so no successor starts while this leader's controllers are still stopping.
    const finished = new AbortController();
    let settled = false;
    const maybeFinished = () => {
      if (settled && leading.signal.aborted) finished.abort();
    };
    const stop = () => leading.abort();
    signal.addEventListener('abort', stop, { once: true });
    leading.signal.addEventListener('abort', maybeFinished, { once: true });

    let failed = false;
    const work = (async () => this.opts.onStartedLeading(leading.signal))()
      .catch((err: unknown) => {
        failed = true;
        this.log.warn({ ...this.lockFields, err: errorText(err) }, 'leader work failed; giving up leadership');
        leading.abort();
      })
      .finally(() => {
        settled = true;
        maybeFinished();
      });

    let lastRenew = acquiredAt;
    let lost = false;
    while (!finished.signal.aborted) {
      await sleep(this.t.retryPeriodMs, finished.signal, this.clock);
      if (finished.signal.aborted) break;
      const renewedAt = await this.renewBefore(lastRenew + this.t.renewDeadlineMs, finished.signal);
      if (renewedAt !== undefined) {
        lastRenew = renewedAt;
      } else if (!finished.signal.aborted) {
        lost = true;
        this.log.warn(this.lockFields, 'failed to renew leader lease in time; stopping leading');
        leading.abort();
        break;
      }
    }
    signal.removeEventListener('abort', stop);

    await work;
    if (!lost && (failed || this.opts.releaseOnCancel !== false)) await this.release();
    try {
      this.opts.onStoppedLeading?.();
    } catch (err) {
      this.log.warn({ ...this.lockFields, err: errorText(err) }, 'onStoppedLeading threw');
    }
    return lost ? 'lost' : failed ? 'stepped-down' : 'released';
  }

  /**
   * Renewal attempts, `retryPeriod` apart, until one succeeds or `deadline` passes. The deadline
   * counts from the last success, not from this round, so a slow round cannot stretch it.
   */
  private async renewBefore(deadline: number, signal: AbortSignal): Promise<number | undefined> {
    for (;;) {
      const started = this.clock.now();
      if (started >= deadline || signal.aborted) return undefined;
      const r = await this.attempt(deadline - started, signal);
      this.reportLeader();
      if (r === 'ok') return started;
      // Someone else holds it: they judged it expired, so leading any longer is unsafe.
      if (r === 'held') return undefined;
      await sleep(Math.min(this.t.retryPeriodMs, deadline - this.clock.now()), signal, this.clock);
    }
  }

  /** One tryAcquireOrRenew, abandoned after `timeoutMs` or when `parent` aborts. */
  /**
   * One read-and-write of the Lease, given up after `timeoutMs`, or when `parent` aborts — at
   * once, or with `settleOnAbortMs`, that long later so an in-flight write can report its outcome.
   */
  private async attempt(timeoutMs: number, parent: AbortSignal, settleOnAbortMs?: number): Promise<Attempt> {
    const ac = new AbortController();
    const abort = () => ac.abort();
    const cancel = this.clock.setTimeout(abort, timeoutMs);
    let cancelSettle: (() => void) | undefined;
    const onParentAbort = settleOnAbortMs === undefined ? abort : () => (cancelSettle = this.clock.setTimeout(abort, settleOnAbortMs));
    if (parent.aborted) onParentAbort();
    else parent.addEventListener('abort', onParentAbort, { once: true });
    // The race makes the deadline hold even if a request ignores its abort signal.
    const gaveUp = new Promise<Attempt>((resolve) => ac.signal.addEventListener('abort', () => resolve('error'), { once: true }));
    try {
      return await Promise.race([this.tryAcquireOrRenew(ac.signal), gaveUp]);
    } finally {
      cancel();
      cancelSettle?.();
      parent.removeEventListener('abort', onParentAbort);
      ac.abort();
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const { namespace, name, identity } = this.opts;
    const now = this.clock.now();
    const stamp = new MicroTime();
    const duration = leaseDurationSeconds(this.t.leaseDurationMs);

    let current: V1Lease;
    try {
      current = await this.api.readNamespacedLease({ namespace, name }, withSignal(signal));
    } catch (err) {
      if (statusCodeOf(err) !== 404) {
        if (!signal.aborted) this.log.warn({ ...this.lockFields, err: errorText(err) }, 'error reading leader lease');
        return 'error';
      }
      const fresh: V1Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: duration, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 },
      };
      try {
        return this.wrote(await this.api.createNamespacedLease({ namespace, body: fresh }, withSignal(signal)), now);
      } catch (createErr) {
        // 409: another candidate created it first; the next attempt reads theirs.
        if (statusCodeOf(createErr) !== 409 && !signal.aborted) this.log.warn({ ...this.lockFields, err: errorText(createErr) }, 'error creating leader lease');
        return 'error';
      }
    }

    const old = current.spec ?? {};
    this.seen.observe(old, now);
    if (this.seen.heldByOther(identity, now, this.t.leaseDurationMs)) return 'held';

    const renewing = old.holderIdentity === identity;
    const next: V1Lease = {
      ...current,
      spec: {
        ...old,
        holderIdentity: identity,
        leaseDurationSeconds: duration,
        renewTime: stamp,
        acquireTime: renewing ? (old.acquireTime ?? stamp) : stamp,
        leaseTransitions: renewing ? (old.leaseTransitions ?? 0) : (old.leaseTransitions ?? 0) + 1,
      },
    };
    try {
      return this.wrote(await this.api.replaceNamespacedLease({ namespace, name, body: next }, withSignal(signal)), now);
    } catch (err) {
      // 409: the Lease changed since it was read (another candidate won); not worth a warning.
      if (statusCodeOf(err) !== 409 && !signal.aborted) this.log.warn({ ...this.lockFields, err: errorText(err) }, 'error updating leader lease');
      return 'error';
    }
  }

  private wrote(lease: V1Lease, now: number): Attempt {
    this.seen.observe(lease.spec ?? {}, now);
    return 'ok';
  }

  /**
   * Clears the holder so candidates need not wait out the lease (client-go's ReleaseOnCancel).
   * It reads the Lease afresh rather than reusing the last write: a renewal cut off by the
   * abort may still have landed, and its newer resourceVersion would make the release a 409.
   * A failure the server may get over (no answer, a conflict, 429, 5xx) is tried again within
   * the release's budget; a refusal (403, 404) is final.
   */
  private async release(): Promise<void> {
    if (this.seen.holder() !== this.opts.identity) return;
    const { namespace, name, identity } = this.opts;
    const ac = new AbortController();
    const cancel = this.clock.setTimeout(() => ac.abort(), Math.min(this.t.renewDeadlineMs, RELEASE_TIMEOUT_MS));
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const current = await this.api.readNamespacedLease({ namespace, name }, withSignal(ac.signal));
          if (current.spec?.holderIdentity !== identity) return;
          const stamp = new MicroTime();
          const { holderIdentity: _, ...spec } = current.spec;
          const body: V1Lease = { ...current, spec: { ...spec, leaseDurationSeconds: 1, acquireTime: stamp, renewTime: stamp } };
          const released = await this.api.replaceNamespacedLease({ namespace, name, body }, withSignal(ac.signal));
          this.seen.observe(released.spec ?? {}, this.clock.now());
          this.log.info(this.lockFields, 'released leader lease');
          return;
        } catch (err) {
          const code = statusCodeOf(err);
          const final = code !== undefined && code !== 409 && code !== 429 && code < 500;
          if (final || ac.signal.aborted) {
            this.log.warn({ ...this.lockFields, err: errorText(err) }, 'failed to release leader lease; successors will wait for it to expire');
            return;
          }
          this.log.info({ ...this.lockFields, err: errorText(err) }, 'releasing leader lease failed; trying again');
          await sleep(Math.min(RELEASE_RETRY_MS * 2 ** attempt, 1000), ac.signal, this.clock);
        }
      }
    } finally {
      cancel();
    }
  }

  private reportLeader(): void {
    const holder = this.seen.holder();
    if (holder === '' || holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    try {
      this.opts.onNewLeader?.(holder);
    } catch (err) {
      this.log.warn({ ...this.lockFields, err: errorText(err) }, 'onNewLeader threw');
    }
  }
}

/**
 * Campaigns for the Lease until `signal` aborts, running `onStartedLeading` for each term won.
 * Throws at once on invalid options; resolves once aborted and any held Lease released.
 */
export function runLeaderElection(opts: LeaderElectionOptions): Promise<void> {
  return new Elector(opts).run();
}
