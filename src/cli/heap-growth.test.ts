import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A child process (V8 flags are the whole process's, and tests share one) that keeps 20,000
 * objects alive while it allocates, yielding between batches as a server does between requests,
 * and prints its young generation's size in MiB (both semi-spaces). With `workerMidway`, a
 * worker thread starts halfway through.
 */
async function youngGenerationAfterChurn(env: Record<string, string>, workerMidway = false): Promise<number> {
  const program = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { Worker } from 'node:worker_threads';
    import { capYoungGeneration } from ${JSON.stringify(new URL('./heap-growth.ts', import.meta.url).href)};
    capYoungGeneration();
    let live = [];
    for (let round = 0; round < 300; round++) {
      if (${workerMidway} && round === 150) await new Promise((r) => new Worker('', { eval: true }).once('exit', r));
      for (let i = 0; i < 10000; i++) {
        live.push({ i, s: 'x' + i });
        if (live.length > 20000) live = [];
      }
      await new Promise((r) => setImmediate(r));
    }
    console.log(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576);
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { env: { ...process.env, ...env } });
  return Number(stdout.trim());
}

describe('capYoungGeneration', () => {
  it('stops the young generation at the cap, where V8 alone lets it grow to 16 MiB per semi-space', async () => {
    const uncapped = await youngGenerationAfterChurn({ SHIPYARD_MAX_SEMI_SPACE_MB: '0' });
    // The workload does make V8 grow it past the cap: otherwise the capped run would prove nothing.
    assert.ok(uncapped > 8, `uncapped young generation ${uncapped} MiB`);
    assert.equal(await youngGenerationAfterChurn({}), 8);
    assert.equal(await youngGenerationAfterChurn({ SHIPYARD_MAX_SEMI_SPACE_MB: '2' }), 4);
  });

  it('holds the cap after a worker thread starts (which resets the growth factor), give or take one doubling', async () => {
    assert.ok((await youngGenerationAfterChurn({}, true)) <= 16);
    assert.equal(await youngGenerationAfterChurn({ SHIPYARD_MAX_SEMI_SPACE_MB: '0' }, true), 32);
  });
});
