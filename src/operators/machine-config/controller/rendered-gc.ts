/**
 * Garbage collection of rendered MachineConfigs, which the MCO never does (issues #301, #354:
 * they pile up for the life of a cluster, and `oc adm prune renderedmachineconfigs` came years
 * later). A rendered config is in use while a pool targets it or last completed it
 * (`spec.configuration`, `status.configuration`) or a node's daemon runs it or is told to
 * (`currentConfig`, `desiredConfig`); one in use is never deleted — deleting one breaks the
 * nodes and the config server (#2010, #2635). One that has been unused for `gracePeriodMs`
 * (by this controller's clock: a restart starts the wait again, which only delays) is deleted,
 * after the pools and nodes are read again from the API, not the cache, to confirm.
 */
import type { KubernetesObject, V1Node } from '@kubernetes/client-node';
import { machineConfigAnnotations, nodeAnnotations, type MachineConfig, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { errorText } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';

const NAME = 'rendered-config-gc';
const KEY = 'rendered-machineconfigs';

export interface RenderedConfigGcOptions {
  /** How long a rendered config must have been unused before it is deleted; default 10 minutes. */
  readonly gracePeriodMs?: number;
}

/** A config the render controller made: named `rendered-…` and stamped with a controller version. */
export function isRenderedConfig(mc: DeepReadonly<MachineConfig>): boolean {
  return !!mc.metadata?.name?.startsWith('rendered-') && mc.metadata.annotations?.[machineConfigAnnotations.generatedByControllerVersion] !== undefined;
}

/** The rendered config names pools and nodes refer to. */
export function renderedConfigsInUse(pools: readonly DeepReadonly<MachineConfigPool>[], nodes: readonly DeepReadonly<KubernetesObject>[]): Set<string> {
  const inUse = new Set<string>();
  for (const p of pools) {
    for (const name of [p.spec?.configuration?.name, p.status?.configuration?.name]) if (name) inUse.add(name);
  }
  for (const n of nodes) {
    for (const key of [nodeAnnotations.currentConfig, nodeAnnotations.desiredConfig]) {
      const name = n.metadata?.annotations?.[key];
      if (name) inUse.add(name);
    }
  }
  return inUse;
}

export function createRenderedConfigGc(ctx: ControllerContext, o: RenderedConfigGcOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const pools = ctx.informers.informer<MachineConfigPool>(resources.machineConfigPools);
  const machineConfigs = ctx.informers.informer<MachineConfig>(resources.machineConfigs);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const gracePeriodMs = o.gracePeriodMs ?? 10 * 60_000;
  /** Rendered config name → when (clock.now()) it was first seen unused. */
  const unusedSince = new Map<string, number>();

  const reconcile = async () => {
    const now = ctx.clock.now();
    const inUse = renderedConfigsInUse(pools.store.list(), nodes.store.list());
    const rendered = machineConfigs.store.list().filter(isRenderedConfig);
    const present = new Set(rendered.map((mc) => mc.metadata!.name!));
    for (const name of unusedSince.keys()) if (!present.has(name)) unusedSince.delete(name);

    let nextDueMs: number | undefined;
    const due: DeepReadonly<MachineConfig>[] = [];
    for (const mc of rendered) {
      const name = mc.metadata!.name!;
      if (inUse.has(name)) {
        unusedSince.delete(name);
        continue;
      }
      const since = unusedSince.get(name) ?? now;
      unusedSince.set(name, since);
      const left = since + gracePeriodMs - now;
      if (left <= 0) due.push(mc);
      else nextDueMs = Math.min(nextDueMs ?? left, left);
    }
    if (due.length > 0) {
      // The cache may lag a pool's new target or a node's annotation: confirm with the API itself.
      const [livePools, liveNodes] = await Promise.all([
        ctx.client.listAll<MachineConfigPool>(resources.machineConfigPools),
        ctx.client.listAll<V1Node>(resources.nodes),
      ]);
      const liveInUse = renderedConfigsInUse(livePools.items as DeepReadonly<MachineConfigPool>[], liveNodes.items as DeepReadonly<V1Node>[]);
      for (const mc of due) {
        const name = mc.metadata!.name!;
        if (liveInUse.has(name)) {
          unusedSince.delete(name);
          continue;
        }
        await ctx.client.deleteIfExists(resources.machineConfigs, undefined, name, { preconditions: { uid: mc.metadata?.uid } });
        unusedSince.delete(name);
        logger.info({ machineConfig: name, unusedForMs: gracePeriodMs }, 'deleted rendered MachineConfig no pool or node uses');
      }
    }
    return nextDueMs === undefined ? undefined : { requeueAfterMs: nextDueMs };
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ err: errorText(r.error) }, 'rendered config collection failed'),
  });
  const toKey = () => [KEY];
  controller.watchMapped(machineConfigs, (mc) => (isRenderedConfig(mc) ? [KEY] : []));
  controller.watchMapped(pools, toKey);
  controller.watchMapped(nodes, (n) => (n.metadata?.annotations?.[nodeAnnotations.currentConfig] || n.metadata?.annotations?.[nodeAnnotations.desiredConfig] ? [KEY] : []));
  controller.enqueue(KEY);
  return controller;
}
