import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { componentNodeArgs } from './compiler-policy.ts';
import { builtinImageOptions } from './components.ts';

const run = promisify(execFile);

/**
 * Whether a function V8 is told to optimize gets optimized, in a child process (V8 flags are the
 * whole process's) that applies the policy first: V8's own test hooks (--allow-natives-syntax)
 * optimize it on the next call, synchronously, so the answer does not depend on the machine's speed.
 */
async function optimizesAfter(optimize: boolean, env: Record<string, string> = {}): Promise<boolean> {
  const program = `
    import { applyCompilerPolicy } from ${JSON.stringify(new URL('./compiler-policy.ts', import.meta.url).href)};
    applyCompilerPolicy(${optimize});
    function f(x) { return x * 2 + 1; }
    const status = new Function('f', '%PrepareFunctionForOptimization(f); f(1); f(2); %OptimizeFunctionOnNextCall(f); f(3); return %GetOptimizationStatus(f);');
    // Bit 4 of V8's optimization status: optimized code is installed.
    console.log((status(f) & 16) !== 0);
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', '--input-type=module', '-e', program], { env: { ...process.env, SHIPYARD_V8_OPTIMIZE: '', ...env } });
  return stdout.trim() === 'true';
}

describe('the optimizing compiler policy', () => {
  it('a controller runs without the optimizing compiler; the API server with it', async () => {
    assert.equal(await optimizesAfter(false), false);
    assert.equal(await optimizesAfter(true), true);
  });

  it('SHIPYARD_V8_OPTIMIZE=all or none overrides the component\'s own', async () => {
    assert.equal(await optimizesAfter(false, { SHIPYARD_V8_OPTIMIZE: 'all' }), true);
    assert.equal(await optimizesAfter(true, { SHIPYARD_V8_OPTIMIZE: 'none' }), false);
  });

  it('a controller\'s built-in image runs it jitless; the API server\'s with both compilers', () => {
    assert.deepEqual(componentNodeArgs(false, {}), ['--jitless']);
    assert.deepEqual(componentNodeArgs(true, {}), []);
    assert.deepEqual(componentNodeArgs(false, { SHIPYARD_V8_OPTIMIZE: 'all' }), []);
    assert.deepEqual(componentNodeArgs(true, { SHIPYARD_V8_OPTIMIZE: 'none' }), ['--jitless']);
    const saved = process.env.SHIPYARD_V8_OPTIMIZE;
    delete process.env.SHIPYARD_V8_OPTIMIZE;
    try {
      assert.deepEqual(builtinImageOptions('machine-config-daemon').nodeArgs, ['--jitless']);
      assert.deepEqual(builtinImageOptions('kube-apiserver').nodeArgs, []);
    } finally {
      if (saved !== undefined) process.env.SHIPYARD_V8_OPTIMIZE = saved;
    }
  });
});
