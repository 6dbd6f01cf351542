/**
 * The kubelet-config controller: each KubeletConfig, checked and merged over the pool's kubelet
 * configuration (render/kubelet-config.ts), becomes `99-<pool>-generated-kubelet[-N]` for every
 * pool it selects — owned by the KubeletConfig, so deleting it deletes them (the garbage
 * collector follows the owner reference) and the pools render without it. Its status says
 * `Success`, or `Failure` with why; a KubeletConfig that fails keeps the configs it had, so a
 * typo never reverts running nodes. The suffix a KubeletConfig's config name took is recorded
 * on it (`mc-name-suffix`), so its name never changes when other KubeletConfigs come and go.
 */
import {
  controllerConfigName,
  KubeletConfig,
  type ControllerConfig,
  type KubeletConfigCondition,
  type KubeletConfigStatus,
  type MachineConfig,
  type MachineConfigPool,
} from '../../../api/machineconfiguration/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { errorText } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, controllerOf } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { generatedKubeletConfigName, kubeletConfigCondition, kubeletConfigPools, mcNameSuffixAnnotation, renderGeneratedKubeletConfig } from '../render/kubelet-config.ts';
import { applyMachineConfig } from './apply-machine-config.ts';

const NAME = 'kubelet-config';

/** Conditions kept on a KubeletConfig, newest last, as the MCO keeps them. */
const keptConditions = 3;

export interface KubeletConfigControllerOptions {
  readonly controllerVersion: string;
}

export function createKubeletConfigController(ctx: ControllerContext, o: KubeletConfigControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const kubeletConfigs = ctx.informers.informer<KubeletConfig>(resources.kubeletConfigs);
  const pools = ctx.informers.informer<MachineConfigPool>(resources.machineConfigPools);
  const machineConfigs = ctx.informers.informer<MachineConfig>(resources.machineConfigs);
  const controllerConfigs = ctx.informers.informer<ControllerConfig>(resources.controllerConfigs);

  const writeStatus = (kc: DeepReadonly<KubeletConfig>, error: string | undefined) =>
    updateStatus<KubeletConfigStatus>(ctx.client, statusTargetOf(resources.kubeletConfigs, kc), (status, object) => {
      const conditions = status.conditions ?? [];
      const next = kubeletConfigCondition(error, formatTimestamp(ctx.clock.wallNow()));
      const last = conditions[conditions.length - 1];
      const same = last && last.type === next.type && last.status === next.status && last.message === next.message;
      const kept: KubeletConfigCondition[] = same ? conditions : [...conditions, next].slice(-keptConditions);
      return { ...status, conditions: kept, observedGeneration: object.metadata?.generation };
    });

  const reconcile = async (key: string) => {
    let kc = kubeletConfigs.store.get(key);
    if (!kc || kc.metadata?.deletionTimestamp) return;
    const cc = controllerConfigs.store.get(controllerConfigName);
    // The kubelet template comes from it; its watch brings every KubeletConfig back.
    if (!cc) return;
    const selected = kubeletConfigPools(kc, pools.store.list());
    if (!selected.ok) {
      await writeStatus(kc, selected.error);
      return;
    }

    const wanted: MachineConfig[] = [];
    for (const pool of selected.value) {
      const named = generatedKubeletConfigName(pool, kc, kubeletConfigs.store.list());
      if (!named.ok) {
        await writeStatus(kc, named.error);
        return;
      }
      if (kc.metadata?.annotations?.[mcNameSuffixAnnotation] !== named.value.suffix) {
        kc = (await ctx.client.patch<KubeletConfig>(resources.kubeletConfigs, undefined, key, { metadata: { annotations: { [mcNameSuffixAnnotation]: named.value.suffix } } })) as DeepReadonly<KubeletConfig>;
      }
      const rendered = renderGeneratedKubeletConfig({ pool, kubeletConfig: kc, controllerConfig: cc, controllerVersion: o.controllerVersion, name: named.value.name });
      if (!rendered.ok) {
        await writeStatus(kc, rendered.error);
        return;
      }
      wanted.push(rendered.value);
    }

    for (const mc of wanted) {
      const { action } = await applyMachineConfig(ctx.client, machineConfigs.store.get(mc.metadata!.name!), mc);
      if (action !== 'unchanged') logger.info({ kubeletConfig: key, machineConfig: mc.metadata?.name, action }, 'applied generated kubelet MachineConfig');
    }
    // A pool it no longer selects loses its config.
    const wantedNames = new Set(wanted.map((mc) => mc.metadata!.name!));
    for (const mc of machineConfigs.store.list()) {
      const owner = controllerOf(mc);
      if (owner?.kind !== KubeletConfig.kind || owner.uid !== kc.metadata?.uid || wantedNames.has(mc.metadata?.name ?? '')) continue;
      await ctx.client.deleteIfExists(resources.machineConfigs, undefined, mc.metadata!.name!, { preconditions: { uid: mc.metadata?.uid } });
      logger.info({ kubeletConfig: key, machineConfig: mc.metadata?.name }, 'deleted generated kubelet MachineConfig of a pool no longer selected');
    }
    await writeStatus(kc, undefined);
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ key: r.key, err: errorText(r.error) }, 'kubelet config sync failed'),
  });
  const all = () => kubeletConfigs.store.keys();
  controller.watch(kubeletConfigs);
  // A pool matters to a KubeletConfig by its labels; its status changes all the time and never does.
  const enqueueAll = () => {
    for (const k of all()) controller.enqueue(k);
  };
  pools.on('add', enqueueAll);
  pools.on('delete', enqueueAll);
  pools.on('update', (p, old) => {
    if (JSON.stringify(p.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {})) enqueueAll();
  });
  controller.watchMapped(controllerConfigs, (cc) => (cc.metadata?.name === controllerConfigName ? all() : []));
  controller.watchOwned(machineConfigs, KubeletConfig.kind);
  return controller;
}
