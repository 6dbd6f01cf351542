/**
 * The clusterrole-aggregation controller of kube-controller-manager: every ClusterRole with an
 * `aggregationRule` holds the union of the rules of the ClusterRoles its selectors match
 * (`aggregate.ts`). This is how `admin`, `edit` and `view` get their rules, and how a CRD's
 * author extends them by labelling a ClusterRole `rbac.authorization.k8s.io/aggregate-to-view`.
 * Keys are aggregated roles' names. A change to any ClusterRole enqueues the aggregated roles
 * selecting it (before or after the change), so a chain (view → edit → admin) settles one link
 * per write, each write being the change the next link sees.
 *
 * Kube writes with a server-side apply of `rules`; this writes with an update carrying the
 * cached resourceVersion instead, so a role deleted after the cache read is not created again
 * as a plain role by the apply, and a stale cache is a 409 that the next watch event corrects.
 * Writing rules the controller-manager does not hold needs `escalate` on clusterroles, which
 * its bootstrap role grants.
 */
import type { V1ClusterRole } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { terminal } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { aggregatorsAffectedBy, InvalidAggregationRule, rulesToWrite } from './aggregate.ts';

const NAME = 'clusterrole-aggregation';
/** The field manager kube's controller writes `rules` as. */
export const FIELD_MANAGER = 'clusterrole-aggregation-controller';

export interface ClusterRoleAggregationOptions {
  /** Concurrent reconciles; default 5, as kube-controller-manager runs it. */
  workers?: number;
}

export function createClusterRoleAggregationController(ctx: ControllerContext, options: ClusterRoleAggregationOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const clusterRoles = ctx.informers.informer<V1ClusterRole>(resources.clusterRoles);

  const reconcile = async (name: string): Promise<void> => {
    const role = clusterRoles.store.get(name);
    if (!role) return;
    let rules;
    try {
      rules = rulesToWrite(role, clusterRoles.store.list());
    } catch (err) {
      // A selector that does not compile stays wrong until someone edits the role, which enqueues it again.
      if (err instanceof InvalidAggregationRule) throw terminal(err);
      throw err;
    }
    if (!rules) return;
    const updated = structuredClone(role) as V1ClusterRole;
    updated.rules = rules;
    try {
      await ctx.client.update(resources.clusterRoles, updated, { fieldManager: FIELD_MANAGER });
      logger.debug({ key: name, rules: rules.length }, 'aggregated rules written');
    } catch (err) {
      // Gone, or the cache was behind: the watch event on its way brings this key back with the truth.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    workers: options.workers ?? 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ key: r.key, err: String(r.error) }, 'aggregation failed'),
  });
  controller.watchMapped(clusterRoles, (role) => aggregatorsAffectedBy(role, clusterRoles.store.list()));
  return controller;
}
