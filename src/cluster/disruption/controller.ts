/**
 * Keeps every PodDisruptionBudget's status current (kube-controller-manager's disruption
 * controller), so that the eviction subresource, and through it `kubectl drain`, knows how
 * many pods may go. Written only when the status changes.
 */
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { NAMESPACE_INDEX } from '../../runtime/cache.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { resources } from '../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../runtime/update-status.ts';
import { compileLabelSelector, type LabelSelector } from '../../api/label-selector.ts';
import { budgetStatus, DISRUPTED_POD_TIMEOUT_MS } from './budget.ts';

export function createDisruptionController(ctx: ControllerContext): Controller {
  const budgets = ctx.informers.informer<V1PodDisruptionBudget>(resources.podDisruptionBudgets);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);

  const controller = new Controller({
    name: 'disruption',
    workers: 2,
    observer: ctx.metrics?.forController('disruption'),
    reconcile: async (key) => {
      const pdb = budgets.store.get(key);
      if (!pdb) return;
      const namespace = pdb.metadata?.namespace ?? '';
      // Wall time: disruptedPods holds timestamps.
      const now = ctx.clock.wallNow();
      const status = budgetStatus(pdb, pods.store.byIndex(NAMESPACE_INDEX, namespace), now);
      const written = await updateStatus(ctx.client, statusTargetOf(resources.podDisruptionBudgets, pdb), () => status);
      if (!written.object) return;
      // Entries in disruptedPods expire: look again when the oldest would.
      const times = Object.values((status.disruptedPods ?? {}) as unknown as Record<string, string>).map((t) => Date.parse(t));
      if (times.length) return { requeueAfterMs: Math.max(1000, Math.min(...times) + DISRUPTED_POD_TIMEOUT_MS - now) };
    },
  });
  controller.watch(budgets);
  controller.watchMapped(pods, (p) =>
    budgets.store
      .byIndex(NAMESPACE_INDEX, p.metadata?.namespace ?? '')
      .filter((b) => compileLabelSelector(b.spec?.selector as LabelSelector | undefined).matches?.(p.metadata?.labels) ?? false)
      .map((b) => `${b.metadata?.namespace}/${b.metadata?.name}`),
  );
  return controller;
}
