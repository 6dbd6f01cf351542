import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedSchedulingMessage, fitErrorMessage, truncateEventMessage } from './fit-error.ts';
import type { FilterFailure } from './types.ts';

const unresolvable = (...reasons: string[]): FilterFailure => ({ code: 'UnschedulableAndUnresolvable', reasons });
const resolvable = (...reasons: string[]): FilterFailure => ({ code: 'Unschedulable', reasons });
const pod = { metadata: { name: 'p' }, spec: { containers: [] } };

const CORDONED = 'node(s) were unschedulable';
const SELECTOR = "node(s) didn't match Pod's node affinity/selector";

describe('FailedScheduling message', () => {
  it('words the acceptance case exactly as kube-scheduler 1.32 does', () => {
    const failures = [unresolvable(SELECTOR), unresolvable(CORDONED), unresolvable(SELECTOR), unresolvable(SELECTOR)];
    assert.equal(
      failedSchedulingMessage(pod, 4, failures),
      "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
  });

  it('sorts "<count> <reason>" as plain strings, count included', () => {
    const failures = [...Array(10).fill(unresolvable(SELECTOR)), resolvable('Insufficient cpu'), resolvable('Insufficient cpu')];
    // "10 …" sorts before "2 …": Go's sort.Strings, byte by byte.
    assert.equal(fitErrorMessage(12, failures), "0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu.");
  });

  it('counts every reason of a node that failed for several', () => {
    assert.equal(fitErrorMessage(2, [resolvable('Insufficient cpu', 'Insufficient memory'), resolvable('Insufficient memory')]), '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.');
  });

  it('says preemption finds no victims on nodes where eviction could have made room', () => {
    const failures = [resolvable('Insufficient cpu'), resolvable('Insufficient cpu'), unresolvable('node(s) had untolerated taint {dedicated: gpu}')];
    assert.equal(
      failedSchedulingMessage(pod, 3, failures),
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  it('says a pod that may not preempt is not eligible', () => {
    const never = { spec: { containers: [], preemptionPolicy: 'Never' } };
    assert.equal(failedSchedulingMessage(never, 1, [resolvable('Insufficient cpu')]), '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
  });

  it('has kube\'s own message for a cluster with no nodes', () => {
    assert.equal(failedSchedulingMessage(pod, 0, []), 'no nodes available to schedule pods');
  });

  it('caps an event note at 1024 characters, marking the cut', () => {
    const taints = Array.from({ length: 60 }, (_, i) => unresolvable(`node(s) had untolerated taint {key-${i}: value-${i}}`));
    const message = failedSchedulingMessage(pod, 60, taints);
    assert.ok(message.length > 1024);
    const note = truncateEventMessage(message);
    assert.equal(note.length, 1024);
    assert.ok(note.endsWith(' ...'));
    assert.ok(message.startsWith(note.slice(0, -4)));
    assert.equal(truncateEventMessage('short'), 'short');
  });
});
