/**
 * The `machine-config` ClusterOperator's status, as OpenShift's MCO computes it
 * (pkg/operator/status.go), from the outcome of the operator's sync tasks in order
 * (MachineConfigPools, MachineConfigController, MachineConfigServer, MachineConfigDaemon,
 * RequiredPools): each done, still converging, or failed.
 *
 * - The versions (`operator`, `operator-image`) move to this release only when every task is
 *   done: the operands run at it and the `master` pool (required for upgrade) is Updated. The
 *   CVO waits for exactly that before it calls an update complete.
 * - Available: once the operator has deployed a release (`Cluster has deployed [...]`), it stays
 *   True, as OpenShift's does (OCPBUGS-9108: nothing the MCO does is worth a midnight page);
 *   before that, while it brings the cluster up, False. So ClusterVersion is Available only
 *   once the MCO's first sync has completed.
 * - Progressing: True while bringing up (`Cluster is bootstrapping X`) or moving to a new
 *   release (`Working towards X`), False otherwise (`Cluster version is X`).
 * - Degraded: the first failed task, reason `<Task>Failed`: an error, or a rollout, a pool
 *   update or a Degraded pool that has lasted past the task's deadline.
 * - Upgradeable: False while any pool is Degraded (`DegradedPool`).
 */
import type { OperandVersion, RelatedObject } from '../../../api/config/index.ts';
import { machineConfigPoolConditionTypes, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import type { OperatorStatusReport } from '../../../runtime/cluster-operator-status.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { MCO_NAMESPACE } from './names.ts';

export const taskNames = ['MachineConfigPools', 'MachineConfigController', 'MachineConfigServer', 'MachineConfigDaemon', 'RequiredPools'] as const;
export type TaskName = (typeof taskNames)[number];

export type TaskOutcome =
  | { readonly task: TaskName; readonly state: 'done' }
  /** Converging: not a failure (yet). */
  | { readonly task: TaskName; readonly state: 'pending'; readonly message: string }
  | { readonly task: TaskName; readonly state: 'failed'; readonly message: string };

export interface StatusInputs {
  readonly releaseVersion: string;
  readonly operatorImage: string;
  /** What the ClusterOperator reports now. */
  readonly reported: readonly OperandVersion[];
  readonly tasks: readonly TaskOutcome[];
  readonly pools: readonly DeepReadonly<MachineConfigPool>[];
}

export function desiredVersions(releaseVersion: string, operatorImage: string): OperandVersion[] {
  return [
    { name: 'operator', version: releaseVersion },
    { name: 'operator-image', version: operatorImage },
  ];
}

/** Go's `%v` of a []OperandVersion, as the MCO's Available message prints it. */
export function formatVersions(versions: readonly OperandVersion[]): string {
  return `[${versions.map((v) => `{${v.name} ${v.version}}`).join(' ')}]`;
}

const sameVersions = (a: readonly OperandVersion[], b: readonly OperandVersion[]): boolean =>
  a.length === b.length && a.every((v) => b.some((w) => w.name === v.name && w.version === v.version));

const poolDegraded = (p: DeepReadonly<MachineConfigPool>): boolean => (p.status?.conditions ?? []).some((c) => c.type === machineConfigPoolConditionTypes.degraded && c.status === 'True');

export const relatedObjects: readonly RelatedObject[] = [
  { group: '', resource: 'namespaces', name: MCO_NAMESPACE },
  { group: 'machineconfiguration.openshift.io', resource: 'machineconfigpools', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'controllerconfigs', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'kubeletconfigs', name: '' },
  { group: 'machineconfiguration.openshift.io', resource: 'machineconfigs', name: '' },
  { group: '', resource: 'nodes', name: '' },
];

export function operatorStatus(i: StatusInputs): OperatorStatusReport {
  const x = i.releaseVersion;
  const desired = desiredVersions(i.releaseVersion, i.operatorImage);
  const failure = i.tasks.find((t): t is Extract<TaskOutcome, { state: 'failed' }> => t.state === 'failed');
  const allDone = i.tasks.every((t) => t.state === 'done');
  const versions = allDone ? desired : [...i.reported];
  const bootstrapping = !i.reported.some((v) => v.name === 'operator');
  const moving = !sameVersions(i.reported, desired);

  let progressing: OperatorStatusReport['progressing'];
  if (allDone) progressing = { status: 'False', reason: 'AsExpected', message: `Cluster version is ${x}` };
  else if (failure) progressing = moving ? { status: 'True', reason: `${failure.task}Failed`, message: `Unable to apply ${x}` } : { status: 'False', reason: `${failure.task}Failed`, message: `Error while reconciling ${x}` };
  else if (bootstrapping) progressing = { status: 'True', reason: 'Bootstrapping', message: `Cluster is bootstrapping ${x}` };
  else if (moving) progressing = { status: 'True', reason: 'Updating', message: `Working towards ${x}` };
  else progressing = { status: 'False', reason: 'AsExpected', message: `Cluster version is ${x}` };

  const degraded: OperatorStatusReport['degraded'] = failure
    ? { status: 'True', reason: `${failure.task}Failed`, message: moving ? `Unable to apply ${x}: ${failure.message}` : `Failed to resync ${x} because: ${failure.message}` }
    : { status: 'False', reason: 'AsExpected', message: '' };

  const available: OperatorStatusReport['available'] =
    versions.length > 0
      ? { status: 'True', reason: 'AsExpected', message: `Cluster has deployed ${formatVersions(versions)}` }
      : { status: 'False', reason: 'Bootstrapping', message: `Cluster is bootstrapping ${x}: ${describeFirstUnfinished(i.tasks) ?? 'starting'}` };

  const upgradeable: OperatorStatusReport['upgradeable'] = i.pools.some(poolDegraded)
    ? { status: 'False', reason: 'DegradedPool', message: 'One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading' }
    : { status: 'True', reason: 'AsExpected', message: '' };

  return { available, progressing, degraded, upgradeable, versions, relatedObjects };
}

function describeFirstUnfinished(tasks: readonly TaskOutcome[]): string | undefined {
  for (const t of tasks) if (t.state !== 'done') return t.message;
  return undefined;
}

/**
 * The RequiredPools task (OpenShift's syncRequiredMachineConfigPools): a Degraded pool, a
 * required pool missing or not yet Updated at its target keep it pending, with the pool's
 * counts and reason; as OpenShift's, it fails (the ClusterOperator goes Degraded) only once that
 * has lasted past the task's deadline, so a pool degraded for a moment (the old controller
 * refusing the new operator's ControllerConfig during an update) is no alarm. Upgradeable=False
 * says at once that a pool is degraded.
 */
export function requiredPoolsOutcome(pools: readonly DeepReadonly<MachineConfigPool>[], required: readonly string[]): TaskOutcome {
  const counts = (p: DeepReadonly<MachineConfigPool>) => `total: ${p.status?.machineCount ?? 0}, ready ${p.status?.readyMachineCount ?? 0}, updated: ${p.status?.updatedMachineCount ?? 0}, unavailable: ${p.status?.unavailableMachineCount ?? 0}`;
  for (const p of pools) {
    if (!poolDegraded(p)) continue;
    const reason = (p.status?.conditions ?? []).find((c) => c.type === machineConfigPoolConditionTypes.degraded)?.message ?? '';
    return { task: 'RequiredPools', state: 'pending', message: `MachineConfigPool ${p.metadata?.name} is not ready, retrying. Status: (pool degraded: true ${counts(p)}, reason: ${reason})` };
  }
  for (const name of required) {
    const p = pools.find((x) => x.metadata?.name === name);
    if (!p) return { task: 'RequiredPools', state: 'pending', message: `required MachineConfigPool ${name} does not exist yet` };
    const updated = (p.status?.conditions ?? []).some((c) => c.type === machineConfigPoolConditionTypes.updated && c.status === 'True');
    const target = p.spec?.configuration?.name;
    const observed = (p.status?.observedGeneration ?? 0) >= (p.metadata?.generation ?? 0);
    if (updated && observed && target && p.status?.configuration?.name === target) continue;
    return { task: 'RequiredPools', state: 'pending', message: `required MachineConfigPool ${name} is not ready, retrying. Status: (${counts(p)}, degraded: ${p.status?.degradedMachineCount ?? 0})` };
  }
  return { task: 'RequiredPools', state: 'done' };
}
