/**
 * What to do about one unhealthy Machine, once maxUnhealthy allows remediation: delete it, so
 * that its MachineSet replaces it, or leave it and say why in an event. Pure; the controller
 * carries the decision out. In order:
 *
 * 1. Being deleted already: nothing more to do.
 * 2. Annotated `machine.openshift.io/skip-remediation` (any value; Cluster API's per-Machine
 *    opt-out): left alone, event `RemediationSkipped`. It still counts as unhealthy.
 * 3. No controller, or a controller that is not a MachineSet: nothing would replace it, so it
 *    is left alone (event `SkippedNoController`), as OpenShift does for a Machine without a
 *    controller owner.
 * 4. Failed with `InvalidConfiguration`, and its MachineSet's template carries the same
 *    providerSpec: its replacement would fail the same way, and the health check would delete
 *    that one too, for ever (reference pain point C3, machine-api-operator#736). Left alone with
 *    a Warning `RemediationSkipped` that says so; once the template is fixed (or the MachineSet
 *    is gone) the Machine is deleted and replaced from the fixed template.
 * 5. Otherwise it is deleted (events `MachineDeleted`, or `MachineDeletionFailed`).
 */
import { formatDuration } from '../../../api/duration.ts';
import { machineAnnotations, type MachineSet } from '../../../api/machine/index.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import { controllerOf } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { Target } from './health.ts';

export const eventReasons = {
  detectedUnhealthy: 'DetectedUnhealthy',
  machineDeleted: 'MachineDeleted',
  machineDeletionFailed: 'MachineDeletionFailed',
  skippedNoController: 'SkippedNoController',
  remediationSkipped: 'RemediationSkipped',
  remediationRestricted: 'RemediationRestricted',
} as const;

export const invalidConfigurationReason = 'InvalidConfiguration';

export interface RemediationEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export type RemediationDecision = { readonly action: 'delete' } | { readonly action: 'none' } | { readonly action: 'skip'; readonly event: RemediationEvent };

/** `<mhc namespace>/<mhc name>/<machine>/<node>`: how OpenShift's events name a target. */
export function targetName(mhc: { readonly metadata?: { readonly namespace?: string; readonly name?: string } }, t: Pick<Target, 'machine'>): string {
  return `${mhc.metadata?.namespace ?? ''}/${mhc.metadata?.name ?? ''}/${t.machine.metadata?.name ?? ''}/${t.machine.status?.nodeRef?.name ?? ''}`;
}

/** `machineSetOf(namespace, name)`: the MachineSet as the cache holds it. */
export function remediationFor(
  target: Target,
  name: string,
  machineSetOf: (namespace: string, name: string) => DeepReadonly<MachineSet> | undefined,
): RemediationDecision {
  const { machine, health } = target;
  if (health.kind !== 'unhealthy' || machine.metadata?.deletionTimestamp) return { action: 'none' };
  const why = health.message;
  if (machine.metadata?.annotations?.[machineAnnotations.skipRemediation] !== undefined) {
    return {
      action: 'skip',
      event: { type: 'Normal', reason: eventReasons.remediationSkipped, message: `Machine ${name} is unhealthy (${why}) but has annotation ${machineAnnotations.skipRemediation}, skipping remediation` },
    };
  }
  const owner = controllerOf(machine);
  if (!owner) {
    return { action: 'skip', event: { type: 'Normal', reason: eventReasons.skippedNoController, message: `Machine ${name} has no controller owner, skipping remediation` } };
  }
  if (owner.kind !== 'MachineSet' || !owner.apiVersion.startsWith('machine.openshift.io/')) {
    return {
      action: 'skip',
      event: { type: 'Normal', reason: eventReasons.skippedNoController, message: `Machine ${name} is controlled by ${owner.kind} ${owner.name}, not a MachineSet, skipping remediation` },
    };
  }
  if (health.reason === 'MachineFailed' && machine.status?.errorReason === invalidConfigurationReason) {
    const set = machineSetOf(machine.metadata?.namespace ?? '', owner.name);
    const sameSet = set && set.metadata?.uid === owner.uid && !set.metadata?.deletionTimestamp;
    if (sameSet && canonicalJson(set.spec?.template?.spec?.providerSpec) === canonicalJson(machine.spec?.providerSpec)) {
      return {
        action: 'skip',
        event: {
          type: 'Warning',
          reason: eventReasons.remediationSkipped,
          message:
            `Machine ${name} failed with ${invalidConfigurationReason}${machine.status?.errorMessage ? ` (${machine.status.errorMessage})` : ''} and MachineSet ${owner.name} ` +
            'would replace it from the same providerSpec, so its replacement would fail the same way: not deleting it. ' +
            `Fix spec.template.spec.providerSpec of MachineSet ${owner.name} (the Machine is then replaced), or delete the Machine`,
        },
      };
    }
  }
  return { action: 'delete' };
}

export const machineDeletedMessage = (name: string): string => `Machine ${name} has been remediated by requesting to delete Machine object`;
export const machineDeletionFailedMessage = (name: string, err: string): string => `Machine ${name} remediation failed: unable to delete Machine object: ${err}`;
export const detectedUnhealthyMessage = (name: string, t: Target): string =>
  t.health.kind === 'pending'
    ? // Nothing in it changes from one look to the next, so repeats add to one Event's count.
      `Machine ${name} has unhealthy node ${t.machine.status?.nodeRef?.name ?? ''}: ${t.health.rule.type}=${t.health.rule.status}, remediated once it has been so for ${formatDuration(t.health.rule.timeoutMs)}`
    : `Machine ${name} has unhealthy node ${t.machine.status?.nodeRef?.name ?? ''}`;
