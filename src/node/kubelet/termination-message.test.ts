import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { criLine } from '../logs.ts';
import { withFallbackMessage } from './pod-worker.ts';

describe('withFallbackMessage (terminationMessagePolicy)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'term-msg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'current.log');
  writeFileSync(log, criLine('stderr', 'installer: configmaps "config-3" not found'));
  const failed = { exitCode: 1, reason: 'Error', finishedAt: new Date(0) };
  const policy = { terminationMessagePolicy: 'FallbackToLogsOnError' };

  it('a failed container without a message gets the log tail', () => {
    assert.equal(withFallbackMessage(policy, failed, log).message, 'installer: configmaps "config-3" not found');
  });

  it('not on success, not over a message, not without the policy, not from an empty log', () => {
    assert.equal(withFallbackMessage(policy, { ...failed, exitCode: 0, reason: 'Completed' }, log).message, undefined);
    assert.equal(withFallbackMessage(policy, { ...failed, message: 'own' }, log).message, 'own');
    assert.equal(withFallbackMessage({ terminationMessagePolicy: 'File' }, failed, log).message, undefined);
    assert.equal(withFallbackMessage({}, failed, log).message, undefined);
    assert.equal(withFallbackMessage(policy, failed, join(dir, 'absent.log')).message, undefined);
  });
});
