import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { FakeClock } from './clock.ts';
import { createEventRecorder, EventCorrelator, eventName, SpamFilter } from './events.ts';

describe('SpamFilter', () => {
  it('allows a burst per key, then one per refill period', () => {
    const clock = new FakeClock();
    const f = new SpamFilter({ burst: 3, refillMs: 1000, clock });
    assert.deepEqual([f.allow('a'), f.allow('a'), f.allow('a'), f.allow('a')], [true, true, true, false]);
    assert.equal(f.allow('b'), true, 'buckets are per key');
    clock.advance(999);
    assert.equal(f.allow('a'), false);
    clock.advance(1);
    assert.equal(f.allow('a'), true);
    assert.equal(f.allow('a'), false);
    clock.advance(60_000);
    assert.deepEqual([f.allow('a'), f.allow('a'), f.allow('a'), f.allow('a')], [true, true, true, false], 'refills up to the burst, no further');
  });

  it('forgets the least recently used keys beyond its size', () => {
    const clock = new FakeClock();
    const f = new SpamFilter({ burst: 1, refillMs: 1000, clock, maxKeys: 2 });
    assert.equal(f.allow('a'), true);
    assert.equal(f.allow('b'), true);
    assert.equal(f.allow('c'), true);
    assert.equal(f.allow('a'), true, "a was forgotten, so it starts with a full bucket");
  });
});

describe('EventCorrelator', () => {
  it('counts repeats within the window on the first Event and starts over after it', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock, windowMs: 600_000 });
    let n = 0;
    const name = () => `obj.${++n}`;
    assert.deepEqual(c.record('k', 't0', name), { name: 'obj.1', count: 1, firstTimestamp: 't0' });
    clock.advance(599_000);
    assert.deepEqual(c.record('k', 't1', name), { name: 'obj.1', count: 2, firstTimestamp: 't0' });
    assert.deepEqual(c.record('other', 't1', name), { name: 'obj.2', count: 1, firstTimestamp: 't1' });
    clock.advance(600_001);
    assert.deepEqual(c.record('k', 't2', name), { name: 'obj.3', count: 1, firstTimestamp: 't2' });
  });
});

describe('eventName', () => {
  it('is <object>.<unix nanoseconds in hex>, unique within a millisecond', () => {
    const ms = Date.UTC(2025, 0, 1);
    const a = eventName('web-1', ms);
    const b = eventName('web-1', ms);
    assert.notEqual(a, b);
    const [obj, hex] = a.split('.');
    assert.equal(obj, 'web-1');
    assert.equal(BigInt(`0x${hex}`) / 1_000_000n, BigInt(ms));
  });
});

async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function unreachableKubeConfig(): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'gone', server: `https://127.0.0.1:${await closedPort()}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'unused' }],
    contexts: [{ name: 'gone', cluster: 'gone', user: 'u' }],
    currentContext: 'gone',
  });
  return kc;
}

function recordingLogger() {
  const lines: { level: string; o: Record<string, unknown>; msg?: string }[] = [];
  return {
    lines,
    info: (o: object, msg?: string) => lines.push({ level: 'info', o: o as Record<string, unknown>, msg }),
    warn: (o: object, msg?: string) => lines.push({ level: 'warn', o: o as Record<string, unknown>, msg }),
  };
}

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}` } });

describe('createEventRecorder with the server unreachable', () => {
  it('never blocks the caller, retries after a delay, then drops with one log line', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    const rec = createEventRecorder({ kubeConfig: await unreachableKubeConfig(), component: 'test', clock, logger, retryDelayMs: 10_000, maxAttempts: 3 });
    rec.event(pod('a'), 'Normal', 'Created', 'created a');
    rec.event(pod('b'), 'Warning', 'Failed', 'failed b');
    let flushed = false;
    const flush = rec.flush().then(() => (flushed = true));

    // Each failed attempt leaves the writer sleeping on the clock; time only moves when told.
    for (let sleeps = 0; sleeps < 4; sleeps++) {
      const deadline = Date.now() + 10_000;
      while (clock.pending() === 0) {
        assert.ok(Date.now() < deadline, 'writer never retried');
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(flushed, false, 'flush resolved while an event was still being retried');
      clock.advance(10_000);
    }
    await flush;
    const warns = logger.lines.filter((l) => l.level === 'warn');
    assert.equal(warns.length, 1, JSON.stringify(logger.lines));
    assert.equal(warns[0].o.object, 'Pod/default/a');
  });

  it('bounds the queue, and aborting drops what is left and releases flush()', async () => {
    const logger = recordingLogger();
    const stop = new AbortController();
    const rec = createEventRecorder({ kubeConfig: await unreachableKubeConfig(), component: 'test', logger, signal: stop.signal, maxQueued: 1, retryDelayMs: 60_000 });
    rec.event(pod('a'), 'Normal', 'A', 'in flight');
    rec.event(pod('b'), 'Normal', 'B', 'queued');
    rec.event(pod('c'), 'Normal', 'C', 'no room');
    assert.match(String(logger.lines[0]?.o.why), /queue full/);
    const flush = rec.flush();
    stop.abort();
    await flush;
    assert.ok(logger.lines.some((l) => l.msg?.includes('stopped with events unwritten') && l.o.dropped === 1), JSON.stringify(logger.lines));
    rec.event(pod('d'), 'Normal', 'D', 'after stop');
    await rec.flush();
  });

  it('ignores objects without a name instead of throwing', async () => {
    const logger = recordingLogger();
    const rec = createEventRecorder({ kubeConfig: await unreachableKubeConfig(), component: 'test', logger });
    rec.event({ kind: 'Pod', metadata: {} }, 'Normal', 'X', 'y');
    await rec.flush();
    assert.match(logger.lines[0]?.msg ?? '', /without a name/);
  });
});
