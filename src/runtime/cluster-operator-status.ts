/**
 * How an operator reports itself on its ClusterOperator (what library-go's status controller
 * does for OpenShift's operators): the four conditions with transition times that move only
 * when a status flips, the versions it runs, and the objects worth collecting. The object is
 * created when missing (the CVO normally pre-creates it) and written only when something
 * changed, so a healthy operator costs the API nothing.
 */
import type { ClusterOperator, ClusterOperatorStatus, ClusterOperatorStatusCondition, OperandVersion, RelatedObject } from '../api/config/index.ts';
import { setConditions } from '../api/config/conditions.ts';
import { isAlreadyExists, type ApiClient } from './client.ts';
import { resources } from './resources.ts';
import { updateStatus } from './update-status.ts';

type ConditionReport = { status: 'True' | 'False' | 'Unknown'; reason: string; message?: string };

export interface OperatorStatusReport {
  readonly available: ConditionReport;
  readonly progressing: ConditionReport;
  readonly degraded: ConditionReport;
  /** Omitted: the operator has nothing against an upgrade (reported True, AsExpected). */
  readonly upgradeable?: ConditionReport;
  readonly versions: readonly OperandVersion[];
  readonly relatedObjects?: readonly RelatedObject[];
}

/** Writes the report; returns true when something was written. */
export async function reportClusterOperatorStatus(client: ApiClient, name: string, report: OperatorStatusReport, now: Date | number = new Date()): Promise<boolean> {
  const target = { resource: resources.clusterOperators, name };
  const apply = (current: ClusterOperatorStatus): ClusterOperatorStatus => {
    const updates: Omit<ClusterOperatorStatusCondition, 'lastTransitionTime'>[] = [
      { type: 'Available', ...report.available },
      { type: 'Progressing', ...report.progressing },
      { type: 'Degraded', ...report.degraded },
      { type: 'Upgradeable', ...(report.upgradeable ?? { status: 'True', reason: 'AsExpected' }) },
    ];
    return {
      ...current,
      conditions: setConditions(current.conditions, updates, now),
      versions: report.versions.map((v) => ({ ...v })),
      relatedObjects: (report.relatedObjects ?? current.relatedObjects ?? []).map((r) => ({ ...r })),
    };
  };
  const written = await updateStatus(client, target, apply);
  if (written.object) return written.changed;
  try {
    await client.create<ClusterOperator>(resources.clusterOperators, { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name }, spec: {} } as ClusterOperator);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return (await updateStatus(client, target, apply)).changed;
}
