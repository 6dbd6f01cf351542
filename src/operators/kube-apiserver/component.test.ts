import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { start } from './component.ts';

/** Runs the image with these arguments; every program here fails at its flags, which says which one ran. */
const run = (args: string[]) => start({ signal: AbortSignal.abort(), args, env: {} });

describe('cluster-kube-apiserver-operator image', () => {
  it('runs the operator by default, with or without the binary\'s name first', async () => {
    await assert.rejects(run([]), /kube-apiserver-operator: --operand-image \(or env IMAGE\) is required/);
    await assert.rejects(run(['cluster-kube-apiserver-operator', 'operator']), /--operand-image \(or env IMAGE\) is required/);
    await assert.rejects(run(['--operand-image=x']), /--operator-image \(or env OPERATOR_IMAGE\) is required/);
  });

  it('runs the installer and the pruner an installer or pruner pod names', async () => {
    await assert.rejects(run(['cluster-kube-apiserver-operator', 'installer', '--no-such-flag']), (err: Error) => /no-such-flag/.test(err.message) && !/operand-image/.test(err.message));
    await assert.rejects(run(['cluster-kube-apiserver-operator', 'prune', '--no-such-flag']), (err: Error) => /no-such-flag/.test(err.message) && !/operand-image/.test(err.message));
  });

  it('names the programs it has when asked for another', async () => {
    await assert.rejects(run(['render']), /cluster-kube-apiserver-operator: unknown program "render" \(this image runs "operator", "installer", "prune"\)/);
  });
});
