/**
 * The operator's own Prometheus series beside the reconcile metrics every controller has
 * (`<component>_reconcile_*`, `_workqueue_*`): where the rollout stands, read from the
 * KubeAPIServer `cluster` in the informer cache at scrape time, so a dashboard or an alert sees
 * a node stuck behind the latest revision or a failing one without reading the CR.
 *
 *   <p>_latest_available_revision                      status.latestAvailableRevision
 *   <p>_node_current_revision{node}                     nodeStatuses[].currentRevision
 *   <p>_node_target_revision{node}                      nodeStatuses[].targetRevision (0: idle)
 *   <p>_node_last_failed_revision{node}                 nodeStatuses[].lastFailedRevision
 *   <p>_node_failed_installs{node}                      nodeStatuses[].lastFailedCount
 *   <p>_operator_condition{type,status}                 1 for each condition of the CR as it is
 *
 * Before the cache exists (not leading yet) the series are absent rather than zero.
 */
import { Gauge, type Registry } from '../../../api/prometheus.ts';
import type { KubeAPIServer, NodeStatus } from '../../../api/operator/index.ts';
import { sanitizeComponent } from '../../../runtime/metrics.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

/** The CR as the cache holds it now; undefined when there is no cache or no CR. */
export type CurrentOperator = () => DeepReadonly<KubeAPIServer> | undefined;

export function registerRevisionMetrics(registry: Registry, component: string, current: CurrentOperator): void {
  const p = sanitizeComponent(component);
  const registers = [registry];
  const perNode = (name: string, help: string, pick: (n: DeepReadonly<NodeStatus>) => number | undefined) =>
    new Gauge({
      name: `${p}_${name}`,
      help,
      labelNames: ['node'],
      registers,
      collect() {
        this.reset();
        for (const n of current()?.status?.nodeStatuses ?? []) this.set({ node: n.nodeName }, pick(n) ?? 0);
      },
    });
  new Gauge({
    name: `${p}_latest_available_revision`,
    help: 'The newest revision of the kube-apiserver ready to install (status.latestAvailableRevision).',
    registers,
    collect() {
      this.reset();
      const cr = current();
      if (cr) this.set(cr.status?.latestAvailableRevision ?? 0);
    },
  });
  perNode('node_current_revision', 'The revision each master runs (nodeStatuses[].currentRevision).', (n) => n.currentRevision);
  perNode('node_target_revision', 'The revision being installed on each master; 0 when none (nodeStatuses[].targetRevision).', (n) => n.targetRevision);
  perNode('node_last_failed_revision', 'The last revision that failed on each master (nodeStatuses[].lastFailedRevision).', (n) => n.lastFailedRevision);
  perNode('node_failed_installs', 'Failed attempts at the last failed revision on each master (nodeStatuses[].lastFailedCount).', (n) => n.lastFailedCount);
  new Gauge({
    name: `${p}_operator_condition`,
    help: 'The conditions of the KubeAPIServer operator resource: 1 for each type at its status.',
    labelNames: ['type', 'status'],
    registers,
    collect() {
      this.reset();
      for (const c of current()?.status?.conditions ?? []) this.set({ type: c.type, status: c.status }, 1);
    },
  });
}
