/**
 * Whether an applied manifest's object is healthy enough for the CVO to move on, with the
 * reasons and messages the CVO reports (lib/resourcebuilder, pkg/cvo/internal/operatorstatus.go),
 * so `oc get clusterversion` reads the same here as on OpenShift.
 *
 * `retryable` separates convergence from refusal: true means "not yet" (a rollout in
 * progress, an operator still updating), worth waiting for; false is a failure the CVO
 * reports at once (a Deployment past its progress deadline, an operator not available).
 * At install the CVO waits on nothing but ClusterOperators, so install mode only reports
 * what is already failing.
 *
 * The decision is the pure `evaluateHealth`; `checkHealth` reads the object fresh and asks it.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound, type ApiClient } from '../client.ts';
import type { ResourceRef } from '../resources.ts';
import { asObj, objList, type Obj } from './json.ts';
import { groupOf } from './merge.ts';

export type HealthMode = 'install' | 'update' | 'reconcile';

export type HealthResult = { ok: true } | { ok: false; reason: string; message: string; retryable: boolean };

export interface HealthOptions {
  readonly mode: HealthMode;
}

const OK: HealthResult = { ok: true };
const fail = (reason: string, message: string): HealthResult => ({ ok: false, reason, message, retryable: false });
const wait = (reason: string, message: string): HealthResult => ({ ok: false, reason, message, retryable: true });

type Check = (live: Obj, required: Obj, mode: HealthMode) => HealthResult;

const checks: Record<string, Check> = {
  'apps/Deployment': deploymentHealth,
  'apps/DaemonSet': daemonSetHealth,
  'batch/Job': jobHealth,
  'apiextensions.k8s.io/CustomResourceDefinition': crdHealth,
  'config.openshift.io/ClusterOperator': clusterOperatorHealth,
};

function checkFor(required: Obj): Check | undefined {
  return checks[`${groupOf(required.apiVersion)}/${String(required.kind)}`];
}

/**
 * Reads the object named by `required` (the manifest that was applied) and judges it. A
 * ClusterOperator's manifest is also the source of the versions to wait for.
 */
export async function checkHealth(client: ApiClient, ref: ResourceRef, required: KubernetesObject, opts: HealthOptions): Promise<HealthResult> {
  const want = required as Obj;
  const check = checkFor(want);
  if (!check) return OK;
  // Judged before the read, as the CVO does: a manifest without versions can never be waited on.
  const noVersions = clusterOperatorWithoutVersions(want);
  if (noVersions) return noVersions;
  const name = required.metadata?.name ?? '';
  const namespace = ref.namespaced ? required.metadata?.namespace : undefined;
  let live: Obj;
  try {
    live = (await client.get<KubernetesObject>(ref, namespace, name)) as Obj;
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return wait('UpdatePayloadResourceNotFound', `${String(required.kind)} ${identity(want)} not found: resource may have been deleted`);
  }
  return check(live, want, opts.mode);
}

/** The health of `live` (the object as the server has it) against the manifest `required`. */
export function evaluateHealth(live: KubernetesObject, required: KubernetesObject, opts: HealthOptions): HealthResult {
  const check = checkFor(required as Obj);
  return check ? check(live as Obj, required as Obj, opts.mode) : OK;
}

function identity(o: Obj): string {
  const meta = asObj(o.metadata) ?? {};
  return meta.namespace ? `${String(meta.namespace)}/${String(meta.name)}` : String(meta.name);
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionOf(o: Obj, type: string): Condition | undefined {
  return objList(asObj(o.status)?.conditions).find((c) => c.type === type) as Condition | undefined;
}

function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' ? v : fallback;
}

const isDeleting = (o: Obj): boolean => !!asObj(o.metadata)?.deletionTimestamp;

/** The controller has not yet acted on the latest spec. */
function generationPending(o: Obj): { generation: number; observed: number } | undefined {
  const generation = num(asObj(o.metadata)?.generation);
  const observed = num(asObj(o.status)?.observedGeneration);
  return observed < generation ? { generation, observed } : undefined;
}

function deploymentHealth(live: Obj, _required: Obj, mode: HealthMode): HealthResult {
  const iden = identity(live);
  if (isDeleting(live)) return fail('UpdatePayloadFailed', `deployment ${iden} is being deleted`);
  const available = conditionOf(live, 'Available');
  const progressing = conditionOf(live, 'Progressing');
  const replicaFailure = conditionOf(live, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    return fail('WorkloadNotProgressing', `deployment ${iden} has a replica failure ${replicaFailure.reason ?? ''}: ${replicaFailure.message ?? ''}`);
  }
  if (available?.status === 'False' && progressing?.status === 'False') {
    return fail('WorkloadNotAvailable', `deployment ${iden} is not available ${available.reason ?? ''} (${available.message ?? ''}) or progressing ${progressing.reason ?? ''} (${progressing.message ?? ''})`);
  }
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return fail('WorkloadNotProgressing', `deployment ${iden} is Progressing=False: ProgressDeadlineExceeded: ${progressing.message ?? ''}`);
  }
  if (mode === 'install') return OK;

  const pending = generationPending(live);
  if (pending) return wait('WorkloadNotAvailable', `deployment ${iden} has not yet successfully rolled out: observed generation ${pending.observed} of ${pending.generation}`);
  const spec = asObj(live.spec) ?? {};
  const status = asObj(live.status) ?? {};
  const replicas = num(spec.replicas, 1);
  const updated = num(status.updatedReplicas);
  const ready = num(status.availableReplicas);
  const total = num(status.replicas);
  if (updated < replicas || ready < replicas || total > updated) {
    return wait('WorkloadNotAvailable', `deployment ${iden} has not yet successfully rolled out: updated replicas=${updated} of ${replicas}, available replicas=${ready} of ${replicas}`);
  }
  return OK;
}

function daemonSetHealth(live: Obj, _required: Obj, mode: HealthMode): HealthResult {
  const iden = identity(live);
  if (isDeleting(live)) return fail('UpdatePayloadFailed', `daemonset ${iden} is being deleted`);
  if (mode === 'install') return OK;
  const pending = generationPending(live);
  if (pending) return wait('WorkloadNotAvailable', `daemonset ${iden} has not yet successfully rolled out: observed generation ${pending.observed} of ${pending.generation}`);
  const status = asObj(live.status) ?? {};
  const desired = num(status.desiredNumberScheduled);
  const updated = num(status.updatedNumberScheduled);
  const unavailable = num(status.numberUnavailable);
  if (updated < desired || unavailable > 0) {
    return wait('WorkloadNotAvailable', `daemonset ${iden} has not yet successfully rolled out: updated=${updated} of ${desired}, unavailable=${unavailable}`);
  }
  return OK;
}

function jobHealth(live: Obj, _required: Obj, mode: HealthMode): HealthResult {
  const iden = identity(live);
  const status = asObj(live.status) ?? {};
  if (num(status.succeeded) > 0) return OK;
  const failed = conditionOf(live, 'Failed');
  if (failed?.status === 'True' || (num(status.active) === 0 && num(status.failed) > 0)) {
    const reason = failed?.status === 'True' ? (failed.reason ?? '') : 'DeadlineExceeded';
    const message = failed?.status === 'True' ? (failed.message ?? '') : 'Job was active longer than specified deadline';
    return fail('UpdatePayloadFailed', `job ${iden}: deadline exceeded, reason: ${JSON.stringify(reason)}, message: ${JSON.stringify(message)}`);
  }
  if (mode === 'install') return OK;
  return wait('JobNotComplete', `job ${iden} has not completed: active=${num(status.active)}, succeeded=${num(status.succeeded)}, failed=${num(status.failed)}`);
}

function crdHealth(live: Obj, _required: Obj, mode: HealthMode): HealthResult {
  const name = identity(live);
  const established = conditionOf(live, 'Established');
  if (established?.status === 'True' || mode === 'install') return OK;
  if (established) {
    return wait('UpdatePayloadFailed', `CustomResourceDefinition ${name} Established=${established.status ?? ''}, ${established.reason ?? ''}: ${established.message ?? ''}`);
  }
  return wait('UpdatePayloadFailed', `CustomResourceDefinition ${name} does not declare an Established status condition: ${JSON.stringify(objList(asObj(live.status)?.conditions))}`);
}

function expectedVersions(required: Obj): Obj[] {
  return objList(asObj(required.status)?.versions);
}

function clusterOperatorWithoutVersions(required: Obj): HealthResult | undefined {
  if (checkFor(required) !== clusterOperatorHealth || expectedVersions(required).length > 0) return undefined;
  return fail('ClusterOperatorNoVersions', `Cluster operator ${identity(required)} does not declare expected versions`);
}

/**
 * An operator is done when it is Available, not Degraded (an operator that does not say is
 * taken to be degraded) and reports every version the manifest names. Degraded only reports
 * at install; an unfinished version update is never a failure, only a wait.
 */
function clusterOperatorHealth(live: Obj, required: Obj, mode: HealthMode): HealthResult {
  const noVersions = clusterOperatorWithoutVersions(required);
  if (noVersions) return noVersions;
  const name = identity(required);
  const reported = objList(asObj(live.status)?.versions);
  const undone = expectedVersions(required).filter((v) => reported.find((r) => r.name === v.name)?.version !== v.version);

  if (conditionOf(live, 'Available')?.status !== 'True') return fail('ClusterOperatorNotAvailable', `Cluster operator ${name} is not available`);
  if (conditionOf(live, 'Degraded')?.status !== 'False') {
    return { ok: false, reason: 'ClusterOperatorDegraded', message: `Cluster operator ${name} is degraded`, retryable: mode === 'install' };
  }
  // During installation operators may still be reaching their first version.
  if (undone.length > 0 && mode !== 'install') return wait('ClusterOperatorUpdating', `Cluster operator ${name} is updating versions`);
  return OK;
}
