import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slowStartBatch } from './slow-start.ts';

describe('slowStartBatch', () => {
  it('sends 1, 2, 4, … at a time until all are done', async () => {
    const batches: number[] = [];
    let inFlight = 0;
    let started = 0;
    const result = await slowStartBatch(10, 1, async () => {
      if (inFlight === 0) batches.push(0);
      inFlight++;
      started++;
      batches[batches.length - 1]!++;
      await new Promise((r) => setImmediate(r));
      inFlight--;
    });
    assert.deepEqual(batches, [1, 2, 4, 3]);
    assert.deepEqual(result, { succeeded: 10, attempted: 10 });
    assert.equal(started, 10);
  });

  it('stops after the first batch with a failure', async () => {
    const calls: number[] = [];
    const result = await slowStartBatch(10, 1, async (i) => {
      calls.push(i);
      if (i === 2) throw new Error('quota exceeded');
    });
    // Batches [0], [1, 2]: the second fails, so nothing after index 2 is attempted.
    assert.deepEqual(calls, [0, 1, 2]);
    assert.equal(result.succeeded, 2);
    assert.equal(result.attempted, 3);
    assert.equal((result.error as Error).message, 'quota exceeded');
  });
});
