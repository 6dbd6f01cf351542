import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { start } from './component.ts';

const ctx = (args: string[]) => ({ signal: AbortSignal.abort(), args, env: {} });

describe('the machine-api-operator image\'s programs', () => {
  it('refuses a program it does not hold, naming those it does', async () => {
    await assert.rejects(start(ctx(['/machine-controller-manager'])), {
      message: 'machine-api-operator: unknown program "/machine-controller-manager" (this image runs "start", "/machine-api-operator start", "/machineset-controller", "/nodelink-controller", "/machine-healthcheck")',
    });
    await assert.rejects(start(ctx([])), /unknown program ""/);
  });

  it('hands the operator its arguments whether the command names it or not', async () => {
    // Both reach the operator's own flag parsing: the same refusal of an unknown flag, word for word.
    const direct = await start(ctx(['start', '--no-such-flag'])).then(() => '', (err: Error) => err.message);
    const named = await start(ctx(['/machine-api-operator', 'start', '--no-such-flag'])).then(() => '', (err: Error) => err.message);
    assert.match(direct, /^machine-api-operator: Unknown option '--no-such-flag'/);
    assert.equal(named, direct);
  });

  it('hands each controller its flags only, without the program\'s name', async () => {
    const err = await start(ctx(['/machineset-controller', '--no-such-flag'])).then(() => '', (e: Error) => e.message);
    assert.match(err, /^machineset-controller: Unknown option '--no-such-flag'/);
  });
});
