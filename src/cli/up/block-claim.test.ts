import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { addressBlock, BLOCK_COUNT } from './address-block.ts';
import { claimBlock } from './block-claim.ts';

// The last block: clusters booted by other tests take the first free ones.
const block = addressBlock(BLOCK_COUNT - 1);

describe('address block claims', () => {
  it('one holder at a time; released, the block can be claimed again', async () => {
    const first = await claimBlock(block);
    assert.ok(first, 'the block was free');
    try {
      assert.equal(await claimBlock(block), undefined, 'a second claim while the first holds it');
    } finally {
      first.release();
    }
    const again = await claimBlock(block);
    assert.ok(again, 'free once released');
    again.release();
  });

  it('a claim dies with the process that held it, SIGKILL included', async (t) => {
    const code = [
      `import { claimBlock } from ${JSON.stringify(new URL('./block-claim.ts', import.meta.url).href)};`,
      `import { addressBlock } from ${JSON.stringify(new URL('./address-block.ts', import.meta.url).href)};`,
      `const c = await claimBlock(addressBlock(${BLOCK_COUNT - 1}));`,
      `process.send(c ? 'held' : 'taken');`,
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    t.after(() => holder.kill('SIGKILL'));
    const [said] = (await once(holder, 'message')) as [string];
    assert.equal(said, 'held');
    assert.equal(await claimBlock(block), undefined, 'held by the other process');
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const after = await claimBlock(block);
    assert.ok(after, 'free once its holder was killed');
    after.release();
  });
});
