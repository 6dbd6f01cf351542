import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '../../runtime/clock.ts';
import { readRebootRequest, rebootRequestPath, requestNodeReboot } from '../../runtime/node-reboot.ts';
import { Loops } from './loops.ts';
import { RebootWatcher } from './reboot-watcher.ts';

const PERIOD_MS = 1000;
const settle = () => new Promise((r) => setImmediate(r));

/**
 * A watcher looked after by loops on a FakeClock, as the kubelet runs it, with a reboot the
 * test finishes by hand: `boot()` does what the kubelet does when the node comes back.
 */
function setup(t: { after(fn: () => void): void }) {
  const root = mkdtempSync(join(tmpdir(), 'shipyard-reboot-watcher-'));
  const clock = new FakeClock();
  const loops = new Loops(() => {}, clock);
  const reasons: string[] = [];
  const errors: unknown[] = [];
  let finish: ((err?: Error) => void) | undefined;
  const watcher: RebootWatcher = new RebootWatcher({
    nodeRoot: root,
    reboot: (reason) => {
      reasons.push(reason);
      return new Promise<void>((resolve, reject) => {
        finish = (err) => (err ? reject(err) : resolve());
      });
    },
    onError: (err) => errors.push(err),
  });
  loops.every(PERIOD_MS, () => watcher.check(), PERIOD_MS);
  t.after(() => {
    loops.stop();
    rmSync(root, { recursive: true, force: true });
  });
  return {
    root,
    clock,
    reasons,
    errors,
    loops,
    /** The node comes back: the boot clears the request, then the reboot resolves. */
    async boot() {
      watcher.booted();
      finish?.();
      await settle();
    },
    async fail(err: Error) {
      finish?.(err);
      await settle();
    },
    async tick(times = 1) {
      for (let i = 0; i < times; i++) {
        clock.advance(PERIOD_MS);
        await settle();
      }
    },
  };
}

describe('node-local reboot requests (runtime/node-reboot.ts)', () => {
  it('are written atomically with a one-line reason, read back, and a rewrite keeps one file', (t) => {
    const root = mkdtempSync(join(tmpdir(), 'shipyard-reboot-request-'));
    t.after(() => rmSync(root, { recursive: true, force: true }));
    assert.equal(readRebootRequest(root), undefined);
    requestNodeReboot(root, 'update to rendered-worker-7131e04f\nfiles changed');
    assert.equal(readRebootRequest(root)?.reason, 'update to rendered-worker-7131e04f files changed');
    assert.ok(readRebootRequest(root)?.requestedAt instanceof Date);
    requestNodeReboot(root, '   ');
    assert.equal(readRebootRequest(root)?.reason, 'reboot requested', 'an empty reason still asks');
    assert.deepEqual(readdirSync(join(root, 'run', 'shipyard')), ['reboot-requested'], 'no temporary file left behind');
  });
});

describe('RebootWatcher: the kubelet honours a reboot request once', () => {
  it('sees nothing without a request, and a request at the next look', async (t) => {
    const s = setup(t);
    await s.tick(3);
    assert.deepEqual(s.reasons, []);
    requestNodeReboot(s.root, 'Node will reboot into config rendered-worker-1');
    await s.tick();
    assert.deepEqual(s.reasons, ['Node will reboot into config rendered-worker-1']);
  });

  it('a request written while the node reboots is neither doubled nor lost: the boot satisfies it', async (t) => {
    const s = setup(t);
    requestNodeReboot(s.root, 'first');
    await s.tick();
    assert.deepEqual(s.reasons, ['first']);
    // Written again while going down (a daemon retrying before it saw the node go): the reboot under way covers it.
    requestNodeReboot(s.root, 'again');
    await s.tick(5);
    assert.deepEqual(s.reasons, ['first'], 'no second reboot while one is under way');
    await s.boot();
    assert.equal(existsSync(rebootRequestPath(s.root)), false, 'the boot cleared the request');
    await s.tick(5);
    assert.deepEqual(s.reasons, ['first'], 'nothing left to honour after the boot');
    // After the boot, a request is a new one.
    requestNodeReboot(s.root, 'second');
    await s.tick();
    assert.deepEqual(s.reasons, ['first', 'second']);
  });

  it('a reboot that fails leaves the request for the next look', async (t) => {
    const s = setup(t);
    requestNodeReboot(s.root, 'kernel arguments changed');
    await s.tick();
    await s.fail(new Error('node host is stopping'));
    assert.equal(s.errors.length, 1);
    await s.tick();
    assert.deepEqual(s.reasons, ['kernel arguments changed', 'kernel arguments changed'], 'tried again');
  });

  it('no look while the kubelet is stopped; the request is still there when it starts', async (t) => {
    const s = setup(t);
    s.loops.stop();
    requestNodeReboot(s.root, 'while stopped');
    await s.tick(3);
    assert.deepEqual(s.reasons, []);
    assert.equal(readRebootRequest(s.root)?.reason, 'while stopped', 'level-triggered: nothing is consumed by not looking');
  });
});
