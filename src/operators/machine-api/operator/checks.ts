/**
 * The two gates between "applied" and "Available", as OpenShift's operator judges them
 * (checkDeploymentRolloutStatus and checkMinimumWorkerMachines in pkg/operator/sync.go): the
 * controllers' Deployment has rolled out and has been Available for a while; and, on a cluster
 * still coming up, its worker MachineSets have their Machines and at least two of them Running.
 * Pure functions of what the caller read: a gate not passed yet is `pending` (wait, not a
 * failure), one that cannot pass as things are is `failed` (the ClusterOperator says why).
 */
import type { V1Deployment } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelSelector } from '../../../api/label-selector.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export type GateResult =
  | { readonly state: 'passed' }
  /** Not yet; `requeueAfterMs` when only time will pass it (no event will come). */
  | { readonly state: 'pending'; readonly message: string; readonly requeueAfterMs?: number }
  | { readonly state: 'failed'; readonly message: string };

const PASSED: GateResult = { state: 'passed' };

/**
 * Whether the Deployment has rolled out: its generation observed, every replica updated, none
 * unavailable, and `Available=True` for at least `minimumAvailableMs` (OpenShift waits three
 * minutes, so a controller that crashes soon after starting is caught before the operator says
 * Available).
 */
export function deploymentRollout(d: DeepReadonly<V1Deployment> | undefined, name: string, nowMs: number, minimumAvailableMs: number): GateResult {
  if (!d) return { state: 'failed', message: `deployment ${name} is not found` };
  if (d.metadata?.deletionTimestamp) return { state: 'failed', message: `deployment ${name} is being deleted` };
  const s = d.status ?? {};
  if ((d.metadata?.generation ?? 0) > (s.observedGeneration ?? 0) || (s.updatedReplicas ?? 0) !== (s.replicas ?? 0) || (s.unavailableReplicas ?? 0) > 0) {
    return { state: 'pending', message: `deployment ${name} is not ready. status: (replicas: ${s.replicas ?? 0}, updated: ${s.updatedReplicas ?? 0}, ready: ${s.readyReplicas ?? 0}, unavailable: ${s.unavailableReplicas ?? 0})` };
  }
  const available = s.conditions?.find((c) => c.type === 'Available');
  if (!available) return { state: 'pending', message: `deployment ${name} is not reporting available yet` };
  if (available.status === 'False') return { state: 'pending', message: `deployment ${name} is reporting available=false` };
  const since = Date.parse(String(available.lastTransitionTime ?? ''));
  const until = (Number.isNaN(since) ? nowMs : since) + minimumAvailableMs;
  if (until > nowMs) return { state: 'pending', message: `deployment ${name} has been available for less than ${Math.round(minimumAvailableMs / 1000)}s`, requeueAfterMs: until - nowMs };
  return PASSED;
}

/** What the worker gate reads of a MachineSet and of a Machine. */
export interface MachineSetLike {
  readonly metadata?: { readonly name?: string };
  readonly spec?: { readonly replicas?: number; readonly selector?: DeepReadonly<LabelSelector> };
}
export interface MachineLike {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
  readonly status?: { readonly phase?: string };
}

/** OpenShift's minimum: a cluster of more than one worker is not up until two of them run. */
export const MINIMUM_WORKER_REPLICAS = 2;

/**
 * While the cluster comes up (the ClusterOperator has never been Available): every MachineSet
 * has as many Machines as it wants, and when more than one worker is wanted, at least two are
 * Running. A single-worker cluster passes with none running, as OpenShift's masters are
 * schedulable there.
 */
export function minimumWorkerMachines(machineSets: readonly MachineSetLike[], machines: readonly MachineLike[]): GateResult {
  let expected = 0;
  const notRunning: string[] = [];
  for (const ms of machineSets) {
    const name = ms.metadata?.name ?? '';
    const selector = compileLabelSelector(ms.spec?.selector as LabelSelector | undefined);
    if (selector.error !== undefined) return { state: 'failed', message: `could not determine running Machines in MachineSet "${name}": could not convert MachineSet label selector to selector: ${selector.error}` };
    const replicas = ms.spec?.replicas ?? 0;
    const owned = machines.filter((m) => selector.matches(m.metadata?.labels ?? {}));
    if (owned.length !== replicas) {
      return { state: 'failed', message: `could not determine running Machines in MachineSet "${name}": replicas not satisfied for MachineSet: expected ${replicas} replicas, got ${owned.length} current replicas` };
    }
    expected += replicas;
    notRunning.push(...owned.filter((m) => m.status?.phase !== 'Running').map((m) => m.metadata?.name ?? ''));
  }
  const running = expected - notRunning.length;
  if (expected > 1 && running < MINIMUM_WORKER_REPLICAS) {
    return { state: 'failed', message: `minimum worker replica count (${MINIMUM_WORKER_REPLICAS}) not yet met: current running replicas ${running}, waiting for [${notRunning.join(' ')}]` };
  }
  return PASSED;
}
