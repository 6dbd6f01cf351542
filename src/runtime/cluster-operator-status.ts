/**
 * How an operator reports itself on its ClusterOperator (what library-go's status controller
 * does for OpenShift's operators): the four conditions with transition times that move only
 * when a status flips, the versions it runs, and the objects worth collecting. The object is
 * created when missing (the CVO normally pre-creates it) and written only when something
 * changed, so a healthy operator costs the API nothing.
 */
import type { ClusterOperator, ClusterOperatorStatusCondition, OperandVersion, RelatedObject } from '../api/config/index.ts';
import { setConditions } from '../api/config/conditions.ts';
import { isAlreadyExists, isConflict, isNotFound, type ApiClient } from './client.ts';
import { resources } from './resources.ts';

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
  for (let attempt = 0; attempt < 3; attempt++) {
    let co: ClusterOperator;
    try {
      co = await client.get<ClusterOperator>(resources.clusterOperators, undefined, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        co = await client.create<ClusterOperator>(resources.clusterOperators, { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name }, spec: {} } as ClusterOperator);
      } catch (createErr) {
        if (isAlreadyExists(createErr)) continue;
        throw createErr;
      }
    }
    const updates: Omit<ClusterOperatorStatusCondition, 'lastTransitionTime'>[] = [
      { type: 'Available', ...report.available },
      { type: 'Progressing', ...report.progressing },
      { type: 'Degraded', ...report.degraded },
      { type: 'Upgradeable', ...(report.upgradeable ?? { status: 'True', reason: 'AsExpected' }) },
    ];
    const status = {
      ...(co.status ?? {}),
      conditions: setConditions(co.status?.conditions, updates, now),
      versions: report.versions.map((v) => ({ ...v })),
      relatedObjects: (report.relatedObjects ?? co.status?.relatedObjects ?? []).map((r) => ({ ...r })),
    };
    if (JSON.stringify(status) === JSON.stringify(co.status ?? {})) return false;
    try {
      await client.updateStatus(resources.clusterOperators, { ...co, status } as ClusterOperator);
      return true;
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  throw new Error(`ClusterOperator ${name}: status kept changing underneath; will retry`);
}
