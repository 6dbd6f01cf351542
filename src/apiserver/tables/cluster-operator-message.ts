/**
 * The MESSAGE column of `kubectl get clusteroperators`. OpenShift's CRD has no such printer
 * column: its kube-apiserver computes the cell (the most severe abnormal condition's message,
 * nothing for a healthy operator), which a JSONPath cannot express. The same happens here, on
 * top of whatever printer columns the stored CRD declares.
 */
import { clusterOperatorMessage, type ClusterOperatorStatusCondition } from '../../api/config/index.ts';
import { column } from './columns.ts';
import type { ColumnDefinition, TableConvertor } from './types.ts';

const messageColumn: ColumnDefinition = column('Message', 'string', 'A message describing the status of the operator.');

export function withClusterOperatorMessage(base: TableConvertor): TableConvertor {
  const at = base.columns.findIndex((c) => c.name.toLowerCase() === 'message');
  const columns = at >= 0 ? base.columns : [...base.columns, messageColumn];
  return {
    columns,
    cells(obj, now) {
      const cells = [...base.cells(obj, now)];
      const conditions = (obj as { status?: { conditions?: ClusterOperatorStatusCondition[] } }).status?.conditions;
      const message = clusterOperatorMessage(conditions) ?? '';
      if (at >= 0) cells[at] = message;
      else cells.push(message);
      return cells;
    },
  };
}
