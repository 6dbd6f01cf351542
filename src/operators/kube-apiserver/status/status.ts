/**
 * What the kube-apiserver operator reports (issue 17, item 7), as pure functions of its CR:
 * the ClusterOperator `kube-apiserver`'s conditions (library-go's union of the CR's conditions,
 * `runtime/status-union.ts`, with the static-pod operators' Degraded inertia), its versions
 * (`raw-internal` from the start; `operator` and `kube-apiserver` only once every node runs the
 * latest revision, and kept through later rollouts until the next one completes), its
 * relatedObjects, and the diff text of library-go's `OperatorStatusChanged` event.
 */
import type { ClusterOperatorStatus, ClusterOperatorStatusCondition, OperandVersion, RelatedObject } from '../../../api/config/index.ts';
import { group as operatorGroup, kubeAPIServerNamespace, kubeAPIServerOperatorNamespace, type KubeAPIServerStatus } from '../../../api/operator/index.ts';
import type { Clock } from '../../../runtime/clock.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { clusterOperatorConditions, staticPodDegradedInertia, type ClusterOperatorConditionUpdate, type Inertia, type OperatorConditionLike } from '../../../runtime/status-union.ts';

/** The versions' names, as upstream reports them. */
export const versionNames = { rawInternal: 'raw-internal', operator: 'operator', operand: 'kube-apiserver' } as const;

/**
 * upstream's relatedObjects less what Shipyard has not (SCCs, webhook configurations,
 * podnetworkconnectivitychecks, apirequestcounts and their CRDs, nodes.config).
 */
export const relatedObjects: readonly RelatedObject[] = [
  { group: operatorGroup, resource: 'kubeapiservers', name: 'cluster' },
  { group: '', resource: 'namespaces', name: 'openshift-config' },
  { group: '', resource: 'namespaces', name: 'openshift-config-managed' },
  { group: '', resource: 'namespaces', name: kubeAPIServerOperatorNamespace },
  { group: '', resource: 'namespaces', name: kubeAPIServerNamespace },
];

/** True when there are nodes and every one's currentRevision is the latest available one (never at revision 0). */
export function allNodesAtLatest(status: DeepReadonly<Pick<KubeAPIServerStatus, 'latestAvailableRevision' | 'nodeStatuses'>> | undefined): boolean {
  const latest = status?.latestAvailableRevision ?? 0;
  const nodes = status?.nodeStatuses ?? [];
  return latest > 0 && nodes.length > 0 && nodes.every((n) => (n.currentRevision ?? 0) === latest);
}

export interface VersionInputs {
  readonly operatorVersion: string;
  /** The operand's version; the operator's unless given. */
  readonly operandVersion?: string;
  readonly atLatest: boolean;
  /** The ClusterOperator's versions as they are. */
  readonly current: readonly DeepReadonly<OperandVersion>[] | undefined;
}

/** The ClusterOperator's versions: raw-internal always, operator and kube-apiserver once rolled out. */
export function operatorVersions(i: VersionInputs): OperandVersion[] {
  const previous = new Map((i.current ?? []).map((v) => [v.name, v.version]));
  const out: OperandVersion[] = [{ name: versionNames.rawInternal, version: i.operatorVersion }];
  const rolled = (name: string, version: string) => {
    const v = i.atLatest ? version : previous.get(name);
    if (v !== undefined) out.push({ name, version: v });
  };
  rolled(versionNames.operator, i.operatorVersion);
  rolled(versionNames.operand, i.operandVersion ?? i.operatorVersion);
  return out;
}

export interface ReportOptions {
  readonly clock: Clock;
  /** The Degraded inertia; the static-pod operators' (2 min, 10 for node and static-pod conditions) unless given. */
  readonly degradedInertia?: Inertia;
  readonly unmanaged?: boolean;
}

/** The ClusterOperator's conditions from the CR's. */
export function operatorConditions(conditions: readonly OperatorConditionLike[] | undefined, o: ReportOptions): ClusterOperatorConditionUpdate[] {
  return clusterOperatorConditions(conditions ?? [], { clock: o.clock, degradedInertia: o.degradedInertia ?? staticPodDegradedInertia, unmanaged: o.unmanaged });
}

type Status = DeepReadonly<ClusterOperatorStatus> | undefined;

const findCondition = (s: Status, type: string): DeepReadonly<ClusterOperatorStatusCondition> | undefined => s?.conditions?.find((c) => c.type === type);
const quoted = (s: string | undefined): string => JSON.stringify(s ?? '');
const versionsText = (v: Status): string => `[${(v?.versions ?? []).map((x) => `{${quoted(x.name)} ${quoted(x.version)}}`).join(' ')}]`;

/**
 * library-go's GetStatusDiff: what changed between two ClusterOperator statuses, joined by `,`;
 * empty when nothing did. `Degraded changed from False to True ("…")`, `Progressing message
 * changed from "a" to "b"`, `Upgradeable set to True ("…")`, `status.versions changed from
 * [{"raw-internal" "1"}] to […]`.
 */
export function statusDiff(before: Status, after: Status): string {
  const out: string[] = [];
  for (const c of after?.conditions ?? []) {
    const old = findCondition(before, c.type);
    if (!old) out.push(`${c.type} set to ${c.status} (${quoted(c.message)})`);
    else if (old.status !== c.status) out.push(`${c.type} changed from ${old.status} to ${c.status} (${quoted(c.message)})`);
    else if ((old.message ?? '') !== (c.message ?? '')) out.push(`${c.type} message changed from ${quoted(old.message)} to ${quoted(c.message)}`);
  }
  for (const c of before?.conditions ?? []) if (!findCondition(after, c.type)) out.push(`${c.type} was removed`);
  if (JSON.stringify(before?.relatedObjects ?? []) !== JSON.stringify(after?.relatedObjects ?? [])) {
    out.push(`status.relatedObjects changed from ${JSON.stringify(before?.relatedObjects ?? [])} to ${JSON.stringify(after?.relatedObjects ?? [])}`);
  }
  if (versionsText(before) !== versionsText(after)) out.push(`status.versions changed from ${versionsText(before)} to ${versionsText(after)}`);
  return out.join(',');
}

/** The `OperatorVersionChanged` messages, one per version whose value changed. */
export function versionChanges(name: string, before: readonly DeepReadonly<OperandVersion>[] | undefined, after: readonly OperandVersion[]): string[] {
  const old = new Map((before ?? []).map((v) => [v.name, v.version]));
  return after.filter((v) => old.get(v.name) !== v.version).map((v) => `clusteroperator/${name} version ${quoted(v.name)} changed from ${quoted(old.get(v.name))} to ${quoted(v.version)}`);
}
