import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeAnnotations } from '../../../api/machineconfiguration/index.ts';
import { nextStep, type Observed } from './plan.ts';

const A = 'rendered-worker-a9681850fe39078ea0f42bd017922eb7';
const B = 'rendered-worker-7131e04f110c489a0ad171e719cedc24';
const C = 'rendered-worker-00000000000000000000000000000000';

function observed(o: Partial<Observed> & { current?: string; desired?: string; state?: string } = {}): Observed {
  const { current, desired, state, ...rest } = o;
  const annotations: Record<string, string> = {};
  if (current) annotations[nodeAnnotations.currentConfig] = current;
  if (desired) annotations[nodeAnnotations.desiredConfig] = desired;
  if (state) annotations[nodeAnnotations.state] = state;
  return { annotations, bootID: 'boot-1', rebootRequested: false, force: false, initialAnnotations: false, ...rest };
}

describe('the daemon decides its next step from what it observes', () => {
  const cases: Array<[string, Observed, ReturnType<typeof nextStep>]> = [
    ['steady: current = desired, Done', observed({ current: A, desired: A, state: 'Done' }), { kind: 'finish', config: A }],
    ['a new desired config', observed({ current: A, desired: B, state: 'Done' }), { kind: 'update', from: A, to: B, force: false }],
    ['no desired annotation: stay on the current config', observed({ current: A }), { kind: 'finish', config: A }],
    ['the force file re-applies the current config', observed({ current: A, desired: A, force: true }), { kind: 'update', from: A, to: A, force: true }],
    ['a config on disk wins over the annotation (written before the crash, not yet annotated)', observed({ current: A, desired: B, diskConfig: B }), { kind: 'finish', config: B }],
    ['on disk A, annotation says B was reached: disk wins, B is desired again', observed({ current: B, desired: B, diskConfig: A }), { kind: 'update', from: A, to: B, force: false }],
    ['a reboot request on disk: wait for it', observed({ current: A, desired: B, rebootRequested: true, journal: { phase: 'rebooting', from: A, to: B, bootID: 'boot-1' } }), { kind: 'await-reboot' }],
    ['files written in this boot and no request: the reboot was never seen', observed({ current: A, desired: B, diskConfig: B, journal: { phase: 'rebooting', from: A, to: B, bootID: 'boot-1' } }), { kind: 'reboot-not-seen', config: B }],
    ['files written in an earlier boot: rebooted, finish', observed({ current: A, desired: B, diskConfig: B, bootID: 'boot-2', journal: { phase: 'rebooting', from: A, to: B, bootID: 'boot-1' } }), { kind: 'finish', config: B }],
    ['rebooted into B while the node was retargeted to C: update on from B', observed({ current: A, desired: C, diskConfig: B, bootID: 'boot-2', journal: { phase: 'rebooting', from: A, to: B, bootID: 'boot-1' } }), { kind: 'update', from: B, to: C, force: false }],
    ['killed while writing files: finish that write first', observed({ current: A, desired: B, diskConfig: A, journal: { phase: 'applying', from: A, to: B } }), { kind: 'resume-apply', from: A, to: B }],
    ['killed while writing files, and retargeted since: still finish that write', observed({ current: A, desired: C, journal: { phase: 'applying', from: A, to: B } }), { kind: 'resume-apply', from: A, to: B }],
    ['killed while draining: drain again', observed({ current: A, desired: B, state: 'Working', diskConfig: A, journal: { phase: 'draining', from: A, to: B } }), { kind: 'update', from: A, to: B, force: false }],
    ['killed while draining, then reverted: finish the old config (and uncordon)', observed({ current: A, desired: A, state: 'Degraded', diskConfig: A, journal: { phase: 'draining', from: A, to: B } }), { kind: 'finish', config: A }],
    ['first start: the config server’s annotations', observed({ initialAnnotations: true }), { kind: 'adopt-initial-annotations' }],
    ['first start, already targeted, annotations on disk', observed({ desired: B, initialAnnotations: true }), { kind: 'adopt-initial-annotations' }],
    ['nothing says what the node runs', observed({ desired: B }), { kind: 'unknown-current', desired: B }],
    ['nothing at all', observed(), { kind: 'unknown-current', desired: undefined }],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => assert.deepEqual(nextStep(input), want));
  }

  it('is the same step however often it is asked: a restarted daemon resumes where the last one stopped', () => {
    for (const [, input] of cases) assert.deepEqual(nextStep(structuredClone(input)), nextStep(input));
  });
});
