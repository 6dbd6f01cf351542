import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ContainerSpec } from '../container-runtime.ts';
import { openImageStore } from '../images.ts';
import { createInlineRuntime, type InlineComponent } from './inline.ts';
import { createProcessRuntime } from './process.ts';
import { createSimulatedRuntime } from './simulated.ts';

const dir = mkdtempSync(join(tmpdir(), 'runtimes-'));

/** Polls `probe` until it returns something, up to a deadline only a broken runtime reaches. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const spec = (over: Partial<ContainerSpec>): ContainerSpec => ({
  podUid: 'u', namespace: 'd', podName: 'p', nodeName: 'n', containerName: 'c', image: 'x', command: [], args: [], env: {}, mounts: [],
  rootfs: join(dir, 'rootfs'), podIP: '127.128.9.7', hostNetwork: false, logPath: join(dir, 'logs', `${Math.random()}.log`), restartCount: 0, ...over,
});

describe('container runtimes', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('process: runs the image entrypoint with args and env, serving on its pod IP, logging in CRI format', async (t) => {
    const program = join(dir, 'server.mjs');
    writeFileSync(program, `import {createServer} from 'node:http';
const s = createServer((q, r) => r.end(process.env.GREETING + ' ' + process.argv.slice(2).join(',')));
s.listen(18080, process.env.POD_IP, () => console.log('listening'));
process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });`);
    const images = openImageStore(join(dir, 'images'));
    images.import('example.test/server:1', { entrypoint: program });
    const registered: number[] = [];
    const rt = createProcessRuntime({ images, pidRegistry: { add: (g) => registered.push(g), remove: (g) => registered.splice(registered.indexOf(g), 1) } });
    assert.ok(rt.handles('example.test/server:1'));
    assert.ok(!rt.handles('example.test/other:1'));
    const s = spec({ image: 'example.test/server:1', args: ['a', 'b'], env: { GREETING: 'hello', POD_IP: '127.128.9.7' } });
    const c = await rt.start(s);
    // Stopped however the test ends: left running, it would hold its pod IP's port.
    t.after(() => c.stop(0));
    assert.deepEqual(registered, [c.pid]);
    const body = await eventually('an answer on the pod IP', () =>
      new Promise<string | undefined>((resolve) => get({ host: '127.128.9.7', port: 18080, agent: false }, (r) => { let t = ''; r.on('data', (d) => (t += d)); r.on('end', () => resolve(t || undefined)); }).on('error', () => resolve(undefined))),
    );
    assert.equal(body, 'hello a,b');
    // A grace period it never needs: it exits on SIGTERM, however slowly a busy machine runs it.
    const exit = await c.stop(30_000);
    assert.equal(exit.exitCode, 0);
    assert.deepEqual(registered, []);
    // Its last line reaches the log file after it exits.
    const log = await eventually('the last line in the log', () => {
      const text = readFileSync(s.logPath, 'utf8');
      return text.includes(' stdout F bye\n') ? text : undefined;
    });
    assert.match(log, /^\S+Z stdout F listening\n\S+Z stdout F bye\n$/);
  });

  it('process: a failing program exits with its code and reason Error; a missing program cannot start', async () => {
    const program = join(dir, 'fail.sh');
    writeFileSync(program, '#!/bin/sh\necho oops >&2\nexit 3\n');
    chmodSync(program, 0o755);
    const images = openImageStore(join(dir, 'images'));
    images.import('example.test/fail:1', { entrypoint: program });
    const rt = createProcessRuntime({ images });
    const exit = await (await rt.start(spec({ image: 'example.test/fail:1' }))).exited;
    assert.equal(exit.exitCode, 3);
    assert.equal(exit.reason, 'Error');
    await assert.rejects(rt.start(spec({ image: 'example.test/none:1' })), /not in the local image store/);
  });

  it('process: node runs a JavaScript entrypoint with the image\'s node flags', async () => {
    const program = join(dir, 'flags.mjs');
    writeFileSync(program, 'console.log(JSON.stringify({ execArgv: process.execArgv, wasm: typeof WebAssembly }));\n');
    const images = openImageStore(join(dir, 'images'));
    images.import('example.test/flags:1', { entrypoint: program, nodeArgs: ['--jitless'] });
    const s = spec({ image: 'example.test/flags:1' });
    const exit = await (await createProcessRuntime({ images }).start(s)).exited;
    assert.equal(exit.exitCode, 0);
    const line = await eventually('the program\'s line in the log', () => /stdout F (\{.*\})\n/.exec(readFileSync(s.logPath, 'utf8'))?.[1]);
    // V8 took the flag: jitless has no WebAssembly.
    assert.deepEqual(JSON.parse(line), { execArgv: ['--jitless'], wasm: 'undefined' });
  });

  it('inline: runs a component in-process until stopped; a throw is exit 1', async () => {
    const seen: string[] = [];
    const rt = createInlineRuntime({
      components: new Map<string, InlineComponent>([
        ['shipyard.local/c:v1', async (ctx) => { seen.push(ctx.args.join(' ')); await new Promise((r) => ctx.signal.addEventListener('abort', r)); }],
        ['shipyard.local/bad:v1', async () => { throw new Error('bad flag --x'); }],
      ]),
    });
    const c = await rt.start(spec({ image: 'shipyard.local/c:v1', args: ['--kubeconfig=k'] }));
    assert.deepEqual(seen, ['--kubeconfig=k']);
    assert.equal((await c.stop(1000)).exitCode, 0);
    const bad = await (await rt.start(spec({ image: 'shipyard.local/bad:v1' }))).exited;
    assert.equal(bad.exitCode, 1);
    assert.equal(bad.message, 'bad flag --x');
  });

  it('simulated: any image runs until stopped, with no process', async () => {
    const rt = createSimulatedRuntime({ startDelayMs: 0 });
    const c = await rt.start(spec({ image: 'registry.k8s.io/pause:3.10' }));
    assert.equal(c.pid, undefined);
    assert.equal((await c.stop(0)).reason, 'Completed');
  });
});
