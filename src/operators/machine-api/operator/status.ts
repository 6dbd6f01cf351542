/**
 * The `machine-api` ClusterOperator's status, as OpenShift's operator writes it
 * (pkg/operator/status.go): each sync first says whether it is moving to new versions, then
 * either reports Available (the controllers rolled out, or NoOp mode), or Degraded with the
 * cause, or, while a rollout converges, leaves Available and Degraded as they were.
 *
 * - Progressing: True `SyncingResources` "Progressing towards operator: X" while the reported
 *   versions differ from this release's, else False `AsExpected`.
 * - Available: True `AsExpected` "Cluster Machine API Operator is available at operator: X"
 *   (or "... is in NoOp mode"); only then do `versions` move to this release, and Progressing
 *   and Degraded go False. Until the first success it is False `Initializing`.
 * - Degraded: True `SyncingFailed`, "Failed when progressing towards operator: X because
 *   <cause>" during an update, "Failed to resync for operator: X because <cause>" otherwise.
 *   During an update a failure is not reported until Progressing has been True for 20 minutes
 *   (an operand restarting mid-update is not an alarm).
 * - Upgradeable: always True.
 *
 * An operator without RELEASE_VERSION (run from a host without it) has no versions to report,
 * as OpenShift's: its messages end after "at ".
 */
import type { ClusterOperatorStatus, OperandVersion, RelatedObject } from '../../../api/config/index.ts';
import type { OperatorStatusReport } from '../../../runtime/cluster-operator-status.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { CONTROLLERS, MAO_NAMESPACE, OPERATOR } from './names.ts';

export const reasons = {
  asExpected: 'AsExpected',
  initializing: 'Initializing',
  syncing: 'SyncingResources',
  syncFailed: 'SyncingFailed',
} as const;

export const NOOP_MESSAGE = 'Cluster Machine API Operator is in NoOp mode';
/** How long an update may be Progressing before a failure during it is reported Degraded. */
export const DEGRADED_GRACE_DURING_UPDATE_MS = 20 * 60_000;

export type SyncOutcome =
  /** Platform without controllers: nothing deployed. */
  | { readonly kind: 'noop' }
  /** Every gate passed. */
  | { readonly kind: 'available' }
  /** Converging: no verdict yet. */
  | { readonly kind: 'pending' }
  | { readonly kind: 'failed'; readonly message: string };

export interface StatusInputs {
  /** This operator's versions: `[{operator: RELEASE_VERSION}]`, or none without one. */
  readonly desired: readonly OperandVersion[];
  /** The ClusterOperator's status as it is now (undefined: not created yet). */
  readonly current: DeepReadonly<ClusterOperatorStatus> | undefined;
  readonly outcome: SyncOutcome;
  readonly nowMs: number;
}

export function desiredVersions(releaseVersion: string | undefined): OperandVersion[] {
  return releaseVersion ? [{ name: 'operator', version: releaseVersion }] : [];
}

/** OpenShift's printOperandVersions: `operator: 0.1.0`. */
export function printVersions(versions: readonly OperandVersion[]): string {
  return versions.map((v) => `${v.name}: ${v.version}`).join(', ');
}

const sameVersions = (a: readonly DeepReadonly<OperandVersion>[], b: readonly OperandVersion[]): boolean =>
  a.length === b.length && a.every((v, i) => v.name === b[i]!.name && v.version === b[i]!.version);

/** OpenShift's list, with the namespace the namespaced ones live in. */
export const relatedObjects: readonly RelatedObject[] = [
  { group: '', resource: 'namespaces', name: MAO_NAMESPACE },
  { group: 'machine.openshift.io', resource: 'machines', name: '', namespace: MAO_NAMESPACE },
  { group: 'machine.openshift.io', resource: 'machinesets', name: '', namespace: MAO_NAMESPACE },
  { group: 'machine.openshift.io', resource: 'machinehealthchecks', name: '', namespace: MAO_NAMESPACE },
  { group: 'rbac.authorization.k8s.io', resource: 'roles', name: '', namespace: MAO_NAMESPACE },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: OPERATOR },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: CONTROLLERS },
];

type Condition = OperatorStatusReport['available'];

function existing(current: StatusInputs['current'], type: string, fallback: Condition): Condition {
  const c = current?.conditions?.find((x) => x.type === type);
  if (!c) return fallback;
  return { status: c.status as Condition['status'], reason: c.reason ?? '', message: c.message ?? '' };
}

/** What the ClusterOperator says before the first sync succeeds (OpenShift's defaultStatusConditions). */
const initial = {
  available: { status: 'False', reason: reasons.initializing, message: 'Operator is initializing' },
  degraded: { status: 'False', reason: reasons.asExpected, message: '' },
} as const satisfies Record<string, Condition>;

export function operatorStatus(i: StatusInputs): OperatorStatusReport {
  const at = printVersions(i.desired);
  const reported = i.current?.versions ?? [];
  const updating = !sameVersions(reported, i.desired);
  const upgradeable: Condition = { status: 'True', reason: reasons.asExpected, message: '' };
  const progressing: Condition = updating
    ? { status: 'True', reason: reasons.syncing, message: `Progressing towards ${at}` }
    : { status: 'False', reason: reasons.asExpected, message: '' };

  if (i.outcome.kind === 'noop' || i.outcome.kind === 'available') {
    const message = i.outcome.kind === 'noop' ? NOOP_MESSAGE : `Cluster Machine API Operator is available at ${at}`;
    return {
      available: { status: 'True', reason: reasons.asExpected, message },
      progressing: { status: 'False', reason: reasons.asExpected, message: '' },
      degraded: { status: 'False', reason: reasons.asExpected, message: '' },
      upgradeable,
      versions: [...i.desired],
      relatedObjects,
    };
  }

  let degraded = existing(i.current, 'Degraded', initial.degraded);
  if (i.outcome.kind === 'failed' && !withinUpdateGrace(i, updating)) {
    degraded = {
      status: 'True',
      reason: reasons.syncFailed,
      message: updating ? `Failed when progressing towards ${at} because ${i.outcome.message}` : `Failed to resync for ${at} because ${i.outcome.message}`,
    };
  }
  return {
    available: existing(i.current, 'Available', initial.available),
    progressing,
    degraded,
    upgradeable,
    versions: reported.map((v) => ({ name: v.name, version: v.version })),
    relatedObjects,
  };
}

/**
 * True while an update (versions already reported, now different) has been Progressing for
 * less than the grace period. A first install is no update: it reports failures at once.
 */
function withinUpdateGrace(i: StatusInputs, updating: boolean): boolean {
  if (!updating || (i.current?.versions ?? []).length === 0) return false;
  const p = i.current?.conditions?.find((c) => c.type === 'Progressing');
  if (p?.status !== 'True') return true;
  const since = Date.parse(p.lastTransitionTime ?? '');
  return Number.isNaN(since) || i.nowMs - since < DEGRADED_GRACE_DURING_UPDATE_MS;
}
