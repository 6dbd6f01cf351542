/**
 * The render controller: for each MachineConfigPool, the MachineConfigs its selector picks,
 * merged (render/render.ts `renderPool`) into `rendered-<pool>-<hash>`, which is created when
 * missing (event `RenderedConfigGenerated`) and becomes the pool's `spec.configuration` — the
 * target the node controller rolls out. A config that cannot be rendered sets `RenderDegraded`
 * with the cause and leaves the previous target alone; a pool selecting every config (`{}`) gets
 * a `SelectingAll` warning and no render.
 *
 * It renders only once the template controller has rendered the ControllerConfig's current
 * generation, and a MachineConfig event renders after `renderDelayMs` (the MCO's renderDelay,
 * much shorter here): a burst of writes — the template controller putting back a config a user
 * edited, a KubeletConfig and its generated config — is rendered once, at its end, rather than
 * through every intermediate state a node could be sent to.
 */
import {
  controllerConfigName,
  machineConfigPoolConditionTypes as types,
  type ControllerConfig,
  type MachineConfig,
  type MachineConfigPool,
  type MachineConfigPoolStatus,
} from '../../../api/machineconfiguration/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import { errorText, isAlreadyExists } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { renderedConfigGeneratedMessage, renderPool } from '../render/render.ts';
import { setPoolCondition } from './pool-status.ts';
import { templatesCompleted } from './template-controller.ts';

const NAME = 'render';

export interface RenderControllerOptions {
  readonly controllerVersion: string;
  /** How long after a MachineConfig event its pools are rendered; default 100 ms. */
  readonly renderDelayMs?: number;
}

export function createRenderController(ctx: ControllerContext, o: RenderControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const pools = ctx.informers.informer<MachineConfigPool>(resources.machineConfigPools);
  const machineConfigs = ctx.informers.informer<MachineConfig>(resources.machineConfigs);
  const controllerConfigs = ctx.informers.informer<ControllerConfig>(resources.controllerConfigs);
  const renderDelayMs = o.renderDelayMs ?? 100;

  const setRenderDegraded = (pool: DeepReadonly<MachineConfigPool>, message: string | undefined) =>
    updateStatus<MachineConfigPoolStatus>(ctx.client, statusTargetOf(resources.machineConfigPools, pool), (status) => {
      const now = formatTimestamp(ctx.clock.wallNow());
      const conditions = setPoolCondition(status.conditions ?? [], types.renderDegraded, message === undefined ? 'False' : 'True', '', message ?? '', now);
      return { ...status, conditions };
    });

  const reconcile = async (key: string) => {
    const pool = pools.store.get(key);
    if (!pool || pool.metadata?.deletionTimestamp) return;
    const cc = controllerConfigs.store.get(controllerConfigName);
    // Both come back through the ControllerConfig's watch.
    if (!cc || !templatesCompleted(cc)) return;

    const outcome = renderPool(pool, machineConfigs.store.list(), cc, { controllerVersion: o.controllerVersion });
    if (outcome.kind === 'skipped') {
      ctx.recorder.event(pool, 'Warning', outcome.warning.reason, outcome.warning.message);
      return;
    }
    if (outcome.kind === 'failed') {
      await setRenderDegraded(pool, outcome.message);
      logger.warn({ pool: key, err: outcome.cause }, 'render failed; the pool keeps its target');
      // Retried with backoff too: a cause outside the watched objects (a version skew) may pass.
      throw new Error(outcome.message);
    }

    const rendered = outcome.machineConfig;
    const name = rendered.metadata!.name!;
    if (!machineConfigs.store.get(name)) {
      try {
        await ctx.client.create(resources.machineConfigs, rendered);
        ctx.recorder.event(pool, 'Normal', 'RenderedConfigGenerated', renderedConfigGeneratedMessage(rendered));
        logger.info({ pool: key, machineConfig: name }, 'generated rendered MachineConfig');
      } catch (err) {
        // The cache had not seen it yet: equal names are equal content, so it is the same config.
        if (!isAlreadyExists(err)) throw err;
      }
    }
    const configuration = { name, source: outcome.source };
    const current = pool.spec?.configuration;
    if (current?.name !== name || canonicalJson(current?.source) !== canonicalJson(configuration.source)) {
      await ctx.client.patch(resources.machineConfigPools, undefined, key, { spec: { configuration } });
      logger.info({ pool: key, from: current?.name ?? '', to: name }, 'pool targets a new rendered MachineConfig');
    }
    await setRenderDegraded(pool, undefined);
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.debug({ key: r.key, err: errorText(r.error) }, 'render sync failed'),
  });
  const allPools = () => pools.store.keys();
  controller.watch(pools);
  controller.watchMapped(controllerConfigs, (cc) => (cc.metadata?.name === controllerConfigName ? allPools() : []));
  const renderAll = () => {
    for (const k of allPools()) {
      if (renderDelayMs > 0) controller.enqueueAfter(k, renderDelayMs);
      else controller.enqueue(k);
    }
  };
  // A rendered config is an output, never an input; but one deleted while a pool targets it is made again.
  const isInput = (mc: DeepReadonly<MachineConfig>) => !mc.metadata?.name?.startsWith('rendered-');
  machineConfigs.on('add', (mc) => {
    if (isInput(mc)) renderAll();
  });
  machineConfigs.on('update', (mc, old) => {
    if (isInput(mc) && mc.metadata?.resourceVersion !== old.metadata?.resourceVersion) renderAll();
  });
  machineConfigs.on('delete', renderAll);
  return controller;
}
