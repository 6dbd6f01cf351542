/**
 * Records core/v1 Events about the objects a controller acts on, as client-go's
 * record.EventRecorder does, so `kubectl describe` and `kubectl get events` tell the story.
 *
 * Events are best effort and must never slow a controller down or make it fail: `event()` only
 * puts the Event on a bounded in-memory queue, and one writer sends them in order, retrying a
 * server that is briefly away and dropping (with a log line) what it cannot deliver. Two
 * filters run first, as client-go's correlator does:
 * - a spam filter, one token bucket per object and source (25 at once, then one per 5 minutes),
 *   so a controller stuck in a fast failure loop cannot flood the store;
 * - repeats of the same (object, type, reason, message) within 10 minutes of the last one
 *   update `count` and `lastTimestamp` of the Event already written instead of adding another.
 */
import type { CoreV1Event, V1ObjectReference } from '@kubernetes/client-node';
import { errorText, statusCodeOf } from '../api/status.ts';
import { formatTimestamp } from '../api/time.ts';
import { ApiClient } from './client.ts';
import { realClock, sleep, type Clock } from './clock.ts';
import type { KubeAccess } from './kubeconfig.ts';

/** Any object an Event can be about; cache entries (read-only) included. */
export interface ObjectRefLike {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly uid?: string; readonly resourceVersion?: string };
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Never blocks and never throws. `reason` is UpperCamelCase, for machines; `message` is for people. */
  event(obj: ObjectRefLike, type: EventType, reason: string, message: string): void;
}

export interface EventLogger {
  info(o: object, msg?: string): void;
  warn(o: object, msg?: string): void;
}

export interface EventRecorderOptions {
  kubeConfig: KubeAccess;
  /** `source.component` and `reportingComponent`, e.g. `replicaset-controller`. */
  component: string;
  /** `source.host` and `reportingInstance`: the node or instance that saw it. */
  host?: string;
  /** Stops the writer; Events still queued are dropped. Call `flush()` first to deliver them. */
  signal?: AbortSignal;
  clock?: Clock;
  logger?: EventLogger;
  /** Events waiting to be written before new ones are dropped. */
  maxQueued?: number;
  /** Between attempts to write one Event while the server is unreachable or failing. */
  retryDelayMs?: number;
  /** Attempts per Event before it is dropped (client-go: 12, 10 s apart). */
  maxAttempts?: number;
  /** Spam filter: Events allowed at once per object and source, and the time to earn one more. */
  spamBurst?: number;
  spamRefillMs?: number;
}

export const EVENT_DEFAULTS = {
  maxQueued: 1000,
  retryDelayMs: 10_000,
  maxAttempts: 12,
  spamBurst: 25,
  spamRefillMs: 300_000,
  /** Repeats this close to the last one are counted on the same Event. */
  correlationWindowMs: 600_000,
  /** Objects remembered by the spam filter and the correlator (least recently seen forgotten). */
  cacheSize: 4096,
} as const;

/** A bounded map that forgets the least recently used key. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}

/** One token bucket per key: `burst` tokens to start, one more every `refillMs`. */
export class SpamFilter {
  private readonly buckets: Lru<{ tokens: number; at: number }>;
  constructor(private readonly opts: { burst: number; refillMs: number; clock: Clock; maxKeys?: number }) {
    this.buckets = new Lru(opts.maxKeys ?? EVENT_DEFAULTS.cacheSize);
  }

  allow(key: string): boolean {
    const now = this.opts.clock.now();
    const b = this.buckets.get(key) ?? { tokens: this.opts.burst, at: now };
    b.tokens = Math.min(this.opts.burst, b.tokens + (now - b.at) / this.opts.refillMs);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}

export interface Correlation {
  /** The Event to write: a new name, or the one a repeat updates. */
  name: string;
  count: number;
  firstTimestamp: string;
}

/** Remembers recent Events by identity, so a repeat becomes a higher count on the same Event. */
export class EventCorrelator {
  private readonly seen: Lru<{ name: string; count: number; firstTimestamp: string; at: number }>;
  constructor(private readonly opts: { clock: Clock; windowMs?: number; maxKeys?: number }) {
    this.seen = new Lru(opts.maxKeys ?? EVENT_DEFAULTS.cacheSize);
  }

  record(key: string, timestamp: string, newName: () => string): Correlation {
    const now = this.opts.clock.now();
    const last = this.seen.get(key);
    const windowMs = this.opts.windowMs ?? EVENT_DEFAULTS.correlationWindowMs;
    const next = last && now - last.at <= windowMs ? { ...last, count: last.count + 1, at: now } : { name: newName(), count: 1, firstTimestamp: timestamp, at: now };
    this.seen.set(key, next);
    return { name: next.name, count: next.count, firstTimestamp: next.firstTimestamp };
  }
}

let nameSeq = 0;

/**
 * `<object>.<hex>` as Kubernetes names Events: the hex is the time in Unix nanoseconds. A
 * per-process sequence fills the sub-millisecond digits, so two Events in one millisecond
 * still get different names.
 */
export function eventName(objectName: string, wallMs: number = Date.now()): string {
  const nanos = BigInt(Math.floor(wallMs)) * 1_000_000n + BigInt(nameSeq++ % 1_000_000);
  return `${objectName}.${nanos.toString(16)}`;
}

/** metav1.Time is whole seconds on the wire (RFC 3339, `Z`); client-node would send milliseconds. */
class SecondsTime extends Date {
  override toISOString(): string {
    return formatTimestamp(this);
  }
}

function involvedObject(obj: ObjectRefLike): V1ObjectReference {
  const m = obj.metadata ?? {};
  const ref: V1ObjectReference = { apiVersion: obj.apiVersion, kind: obj.kind, name: m.name };
  if (m.namespace) ref.namespace = m.namespace;
  if (m.uid) ref.uid = m.uid;
  if (m.resourceVersion) ref.resourceVersion = m.resourceVersion;
  return ref;
}

/** Worth another try later: the server was unreachable, overloaded or failing. */
function retryable(err: unknown): boolean {
  const code = statusCodeOf(err);
  return code === undefined || code === 429 || code >= 500;
}

interface Queued {
  event: CoreV1Event;
  /** A repeat updates the Event of this name; a first occurrence creates it. */
  repeat: boolean;
}

/** Writes queued Events one at a time, in order. */
class EventWriter {
  private readonly queue: Queued[] = [];
  /** Queued, not yet taken by the writer, by Event name: a later repeat folds into it. */
  private readonly waiting = new Map<string, Queued>();
  private running = false;
  private flushes: Array<() => void> = [];
  private dropped = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly o: Required<Pick<EventRecorderOptions, 'maxQueued' | 'retryDelayMs' | 'maxAttempts'>> & { clock: Clock; log: EventLogger; signal: AbortSignal },
  ) {
    o.signal.addEventListener('abort', () => this.abandon(), { once: true });
  }

  enqueue(q: Queued): void {
    if (this.o.signal.aborted) return;
    const name = q.event.metadata.name!;
    const pending = this.waiting.get(name);
    if (pending) {
      // Not written yet: the write that is queued will carry the newer count.
      pending.event.count = q.event.count;
      pending.event.lastTimestamp = q.event.lastTimestamp;
      return;
    }
    if (this.queue.length >= this.o.maxQueued) {
      this.drop(q, `queue full (${this.o.maxQueued})`);
      return;
    }
    this.queue.push(q);
    this.waiting.set(name, q);
    void this.pump();
  }

  flush(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushes.push(resolve));
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let q = this.queue.shift(); q && !this.o.signal.aborted; q = this.queue.shift()) {
        this.waiting.delete(q.event.metadata.name!);
        await this.deliver(q);
      }
    } finally {
      this.running = false;
      const f = this.flushes;
      this.flushes = [];
      for (const resolve of f) resolve();
    }
  }

  private async deliver(q: Queued): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(q);
        if (this.dropped > 0) {
          this.o.log.info({ dropped: this.dropped }, 'writing events again after dropping some');
          this.dropped = 0;
        }
        return;
      } catch (err) {
        if (this.o.signal.aborted) return;
        if (!retryable(err) || attempt >= this.o.maxAttempts) {
          this.drop(q, errorText(err));
          return;
        }
        await sleep(this.o.retryDelayMs, this.o.signal, this.o.clock);
        if (this.o.signal.aborted) return;
      }
    }
  }

  private async write(q: Queued): Promise<void> {
    const { namespace, name } = q.event.metadata as { namespace: string; name: string };
    const signal = this.o.signal;
    const events = `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;
    if (q.repeat) {
      const patch = { count: q.event.count, lastTimestamp: (q.event.lastTimestamp as Date).toISOString() };
      try {
        await this.api.request('PATCH', `${events}/${encodeURIComponent(name)}`, { body: patch, contentType: 'application/merge-patch+json', signal });
        return;
      } catch (err) {
        // Deleted (by TTL, or its first write was dropped): write it whole, count and all.
        if (statusCodeOf(err) !== 404) throw err;
      }
    }
    await this.api.request('POST', events, { body: q.event, signal });
  }

  private drop(q: Queued, why: string): void {
    // One line per outage, not one per Event: a flood of drop lines would be its own problem.
    if (this.dropped++ === 0) {
      const io = q.event.involvedObject;
      this.o.log.warn({ reason: q.event.reason, object: `${io.kind}/${io.namespace ? `${io.namespace}/` : ''}${io.name}`, why }, 'dropping event; further drops are counted until writes succeed');
    }
  }

  private abandon(): void {
    const left = this.queue.length;
    this.queue.length = 0;
    this.waiting.clear();
    if (left > 0) this.o.log.warn({ dropped: left }, 'event recorder stopped with events unwritten');
    if (!this.running) {
      const f = this.flushes;
      this.flushes = [];
      for (const resolve of f) resolve();
    }
  }
}

const silent: EventLogger = { info() {}, warn() {} };

export function createEventRecorder(opts: EventRecorderOptions): EventRecorder & { flush(): Promise<void> } {
  if (!opts.component) throw new TypeError('event recorder: component must be a non-empty string');
  const clock = opts.clock ?? realClock;
  const log = opts.logger ?? silent;
  const signal = opts.signal ?? new AbortController().signal;
  const d = EVENT_DEFAULTS;
  const writer = new EventWriter(new ApiClient(opts.kubeConfig, { userAgent: opts.component }), {
    maxQueued: opts.maxQueued ?? d.maxQueued,
    retryDelayMs: opts.retryDelayMs ?? d.retryDelayMs,
    maxAttempts: opts.maxAttempts ?? d.maxAttempts,
    clock,
    log,
    signal,
  });
  const spam = new SpamFilter({ burst: opts.spamBurst ?? d.spamBurst, refillMs: opts.spamRefillMs ?? d.spamRefillMs, clock });
  const correlator = new EventCorrelator({ clock });
  const source = opts.host ? { component: opts.component, host: opts.host } : { component: opts.component };

  return {
    event(obj, type, reason, message) {
      try {
        if (signal.aborted) return;
        const objName = obj.metadata?.name;
        if (!objName) {
          log.warn({ kind: obj.kind, reason }, 'event about an object without a name dropped');
          return;
        }
        const ref = involvedObject(obj);
        const namespace = ref.namespace ?? 'default';
        const objectKey = [source.component, opts.host ?? '', ref.apiVersion, ref.kind, namespace, objName, ref.uid ?? ''].join('\u0000');
        if (!spam.allow(objectKey)) return;
        const wallMs = clock.wallNow();
        const now = formatTimestamp(wallMs);
        const c = correlator.record([objectKey, type, reason, message].join('\u0000'), now, () => eventName(objName, wallMs));
        const event: CoreV1Event = {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: c.name, namespace },
          involvedObject: ref,
          type,
          reason,
          message,
          source,
          firstTimestamp: new SecondsTime(c.firstTimestamp),
          lastTimestamp: new SecondsTime(now),
          count: c.count,
          reportingComponent: opts.component,
          ...(opts.host ? { reportingInstance: opts.host } : {}),
        };
        writer.enqueue({ event, repeat: c.count > 1 });
      } catch (err) {
        // Recording is best effort; a bug here must not reach the controller.
        log.warn({ err: errorText(err), reason }, 'failed to record event');
      }
    },
    flush: () => writer.flush(),
  };
}
