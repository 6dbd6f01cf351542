/**
 * The node controller: rolls each pool's target (`spec.configuration`, set by the render
 * controller) out to the pool's nodes through their `desiredConfig` annotation, never more than
 * `maxUnavailable` at a time (rollout.ts), and writes the pool's status (pool-status.ts). The
 * daemon on each node does the update and reports through the other annotations; this
 * controller only reads them. Nodes still to update carry `UpdateInProgress:PreferNoSchedule`
 * (written before any node is targeted; the nodes being targeted are not tainted), so the
 * scheduler prefers updated nodes and a pod moved off one node is not placed on the next to be
 * drained. A paused pool is not rolled out (its status still is); a pool being deleted too.
 *
 * Keyed by pool; a node event maps to every pool (there are a handful). The cache can lag this
 * controller's own `desiredConfig` writes, so each write is remembered until the cache shows
 * it: a reconcile in between counts that node as targeted, not as a free slot.
 */
import type { V1Node } from '@kubernetes/client-node';
import { isEmptySelector } from '../../../api/label-selector.ts';
import { nodeAnnotations, type MachineConfigPool, type MachineConfigPoolStatus } from '../../../api/machineconfiguration/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { isConflict, type ApiClient } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { nodesOfPool, primaryPoolForNode } from './node-pools.ts';
import { desiredConfig, updateInProgressTaint, type Node } from './node-state.ts';
import { calculatePoolStatus, poolUpdateLine } from './pool-status.ts';
import { maxUnavailable, planRollout, taintChanges } from './rollout.ts';

const NAME = 'node';

export function createNodeController(ctx: ControllerContext): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const pools = ctx.informers.informer<MachineConfigPool>(resources.machineConfigPools);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  /**
   * Node name → the desiredConfig this controller wrote and the cache has not shown yet, and
   * when. An entry the cache never confirms (someone else wrote the node since, and a relist
   * skipped ours) is dropped after `writtenTtlMs`, so it cannot mask the node forever.
   */
  const written = new Map<string, { config: string; at: number }>();
  const writtenTtlMs = 60_000;
  /** Pool-membership problems already reported, so each is said once, not on every pass. */
  const reported = new Set<string>();

  /** The node as this controller last left it: the cache, or its own write the cache has not caught up with. */
  const view = (node: Node): Node => {
    const name = node.metadata?.name ?? '';
    const wrote = written.get(name);
    if (wrote === undefined) return node;
    if (desiredConfig(node) === wrote.config || ctx.clock.now() - wrote.at > writtenTtlMs) {
      written.delete(name);
      return node;
    }
    return { ...node, metadata: { ...node.metadata, annotations: { ...node.metadata?.annotations, [nodeAnnotations.desiredConfig]: wrote.config } } };
  };

  const reportMembership = (allPools: readonly DeepReadonly<MachineConfigPool>[], allNodes: readonly Node[]) => {
    for (const node of allNodes) {
      const { error, warning } = primaryPoolForNode(node, allPools) as { error?: string; warning?: string };
      const message = error ?? warning;
      if (!message || reported.has(message)) continue;
      reported.add(message);
      logger.warn({ node: node.metadata?.name }, message);
      ctx.recorder.event(node, 'Warning', error ? 'NodeInMultiplePools' : 'NodeInMasterAndCustomPool', message);
    }
  };

  /** Taints the nodes still to update, then points the next ones at the target; returns the nodes it wrote, as written. */
  const rollOut = async (pool: DeepReadonly<MachineConfigPool>, target: string, members: readonly Node[]): Promise<Map<string, Node>> => {
    const key = pool.metadata?.name ?? '';
    const plan = planRollout(target, members, maxUnavailable(pool, members.length));
    // Before any node is targeted, so pods drained off the first ones avoid the rest.
    await inParallel(taintChanges(target, members, plan.targets), TAINT_WRITES, (c) => setUpdateTaint(ctx.client, c.node, c.taint));
    const updated = new Map<string, Node>();
    for (const node of plan.targets) {
      const name = node.metadata?.name ?? '';
      const patched = await ctx.client.patch<V1Node>(resources.nodes, undefined, name, { metadata: { annotations: { [nodeAnnotations.desiredConfig]: target } } });
      written.set(name, { config: target, at: ctx.clock.now() });
      updated.set(name, patched as Node);
      logger.info({ pool: key, node: name, config: target }, 'set desired config');
    }
    if (plan.targets.length === 1) {
      ctx.recorder.event(pool, 'Normal', 'SetDesiredConfig', `Targeted node ${plan.targets[0]!.metadata?.name ?? ''} to MachineConfig: ${target}`);
    } else if (plan.targets.length > 1) {
      ctx.recorder.event(pool, 'Normal', 'SetDesiredConfig', `Set target for ${plan.targets.length} nodes to MachineConfig: ${target}`);
    }
    return updated;
  };

  const reconcile = async (key: string) => {
    const pool = pools.store.get(key);
    if (!pool) return;
    const target = pool.spec?.configuration?.name;
    // The render controller has not given it a target yet; its write brings the pool back here.
    if (!target) return;
    if (pool.spec?.nodeSelector && isEmptySelector(pool.spec.nodeSelector)) {
      ctx.recorder.event(pool, 'Warning', 'SelectingAll', 'This machineconfigpool is selecting all nodes. A non-empty selector is required.');
      return;
    }
    const allPools = pools.store.list();
    const allNodes = nodes.store.list().map(view);
    reportMembership(allPools, allNodes);
    const members = nodesOfPool(pool, allNodes, allPools);

    // A rollout that fails (an invalid maxUnavailable, a write refused) still gets the pool's status written, then is retried.
    let updated = new Map<string, Node>();
    let rolloutError: unknown;
    if (!pool.spec?.paused && !pool.metadata?.deletionTimestamp) {
      try {
        updated = await rollOut(pool, target, members);
      } catch (err) {
        rolloutError = err;
      }
    }

    const current = members.map((n) => updated.get(n.metadata?.name ?? '') ?? n);
    const before = pool.status?.configuration?.name;
    const result = await updateStatus<MachineConfigPoolStatus, MachineConfigPool>(ctx.client, statusTargetOf(resources.machineConfigPools, pool), (_status, object) =>
      calculatePoolStatus(object as DeepReadonly<MachineConfigPool>, current, formatTimestamp(ctx.clock.wallNow())),
    );
    const after = result.object?.status?.configuration?.name;
    if (result.changed && after && after !== before) {
      ctx.recorder.event(pool, 'Normal', 'Completed', `Pool ${key} has completed update to ${poolUpdateLine(result.object as DeepReadonly<MachineConfigPool>)}`);
      logger.info({ pool: key, config: after }, 'pool updated');
    }
    if (rolloutError !== undefined) throw rolloutError;
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'pool sync failed'),
  });
  controller.watch(pools);
  controller.watchMapped(nodes, () => pools.store.keys());
  nodes.on('delete', (n) => written.delete(n.metadata?.name ?? ''));
  return controller;
}

/** Taint writes in flight at once: a new target taints every node of a pool, hundreds in a large one. */
const TAINT_WRITES = 16;

async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Adds or removes the UpdateInProgress taint, keeping every other taint: the write is
 * conditional on the node as last seen (the cache first), and the node is read again after a
 * conflict (the daemon and the node lifecycle controller write the same node).
 */
async function setUpdateTaint(client: ApiClient, cached: Node, want: boolean): Promise<void> {
  let node: DeepReadonly<V1Node> = cached;
  for (let attempt = 1; ; attempt++) {
    const taints = node.spec?.taints ?? [];
    const others = taints.filter((t) => !(t.key === updateInProgressTaint.key && t.effect === updateInProgressTaint.effect));
    if ((others.length !== taints.length) === want) return;
    const next = want ? [...others, updateInProgressTaint] : others;
    try {
      await client.patch(resources.nodes, undefined, node.metadata?.name ?? '', { metadata: { resourceVersion: node.metadata?.resourceVersion }, spec: { taints: next.length > 0 ? next : null } });
      return;
    } catch (err) {
      if (!isConflict(err) || attempt >= 3) throw err;
    }
    node = (await client.get<V1Node>(resources.nodes, undefined, node.metadata?.name ?? '')) as DeepReadonly<V1Node>;
  }
}
