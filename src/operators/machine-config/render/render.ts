/**
 * Rendering a pool: select its MachineConfigs, check each, merge them in the MCO's order and
 * name the result by its content (`rendered-<pool>-<hash>`), owned by the pool and stamped with
 * the controller and release versions. Pure: the render controller calls it with its listers'
 * contents and writes what it returns; `shipyard up` calls `renderBootstrap` on the configs it
 * renders before any API server exists (the MCO's `RunBootstrap`), so both produce the very
 * same names. A failure is a value worded as the pool's `RenderDegraded` message; the caller
 * keeps the pool's previous target.
 */
import {
  group,
  MachineConfig,
  machineConfigAnnotations as annotations,
  MachineConfigPool,
  type ControllerConfig,
  type ObjectReference,
} from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { renderedConfigName } from './hash.ts';
import { mergeMachineConfigs, mergeOrder, type MergeInput } from './merge.ts';
import { describeSelector, selectMachineConfigs, type PoolWarning } from './select.ts';
import { checkMachineConfig } from './validate.ts';

/** On the ControllerConfig: the operator version that wrote it. */
const controllerConfigWrittenBy = `${group}/generated-by-version`;

export interface RenderOptions {
  /** This controller's version: stamped on the rendered config and compared with the ControllerConfig's. */
  readonly controllerVersion: string;
}

export type RenderOutcome =
  | { readonly kind: 'rendered'; readonly machineConfig: MachineConfig; readonly source: ObjectReference[] }
  /** Nothing to render and nothing wrong with the pool's status: record the warning as an event. */
  | { readonly kind: 'skipped'; readonly warning: PoolWarning }
  /** `message` is the `RenderDegraded=True` message; `cause` the part after the pool's name. */
  | { readonly kind: 'failed'; readonly cause: string; readonly message: string };

export function renderDegradedMessage(pool: string, cause: string): string {
  return `Failed to render configuration for pool ${pool}: ${cause}`;
}

/** The `RenderedConfigGenerated` event's message, as the MCO words it. */
export function renderedConfigGeneratedMessage(rendered: DeepReadonly<MachineConfig>): string {
  const a = rendered.metadata?.annotations ?? {};
  return `${rendered.metadata?.name} successfully generated (release version: ${a[annotations.releaseImageVersion] ?? ''}, controller version: ${a[annotations.generatedByControllerVersion] ?? ''})`;
}

export function renderPool(
  pool: DeepReadonly<MachineConfigPool>,
  configs: readonly DeepReadonly<MachineConfig>[],
  controllerConfig: DeepReadonly<ControllerConfig>,
  options: RenderOptions,
): RenderOutcome {
  const poolName = pool.metadata?.name ?? '';
  const failed = (cause: string): RenderOutcome => ({ kind: 'failed', cause, message: renderDegradedMessage(poolName, cause) });

  // During an upgrade the old controller must not render with the new operator's ControllerConfig
  // (nor the reverse): each would roll the pool to a config the other then replaces (bugzilla 1879099).
  const writtenBy = controllerConfig.metadata?.annotations?.[controllerConfigWrittenBy];
  if (writtenBy !== undefined && writtenBy !== options.controllerVersion) {
    return failed(`Ignoring controller config generated from ${writtenBy} (my version: ${options.controllerVersion})`);
  }

  const selection = selectMachineConfigs(pool, configs);
  if (!selection.ok) return failed(selection.error);
  if (selection.warning) return { kind: 'skipped', warning: selection.warning };
  if (selection.configs.length === 0) return failed(`no MachineConfigs found matching selector ${describeSelector(pool)}`);

  const inputs: MergeInput[] = [];
  for (const mc of mergeOrder(selection.configs.map((machineConfig) => ({ machineConfig })))) {
    const checked = checkMachineConfig(mc.machineConfig);
    if (!checked.ok) return failed(checked.error);
    inputs.push({ machineConfig: mc.machineConfig, ignition: checked.ignition });
  }
  const merged = mergeMachineConfigs(inputs, controllerConfig);
  if (!merged.ok) return failed(merged.error);

  const metadataAnnotations: Record<string, string> = {
    [annotations.generatedByControllerVersion]: options.controllerVersion,
    [annotations.releaseImageVersion]: controllerConfig.metadata?.annotations?.[annotations.releaseImageVersion] ?? '',
  };
  if (merged.osImageURLOverridden) metadataAnnotations[annotations.osImageURLOverridden] = 'true';
  const machineConfig: MachineConfig = {
    apiVersion: MachineConfig.apiVersion,
    kind: MachineConfig.kind,
    metadata: { name: renderedConfigName(poolName, merged.spec), annotations: metadataAnnotations },
    spec: merged.spec,
  };
  // A pool rendered at bootstrap has no uid yet, and an owner reference without one is invalid.
  const uid = pool.metadata?.uid;
  if (uid) machineConfig.metadata!.ownerReferences = [{ apiVersion: MachineConfigPool.apiVersion, kind: MachineConfigPool.kind, name: poolName, uid, controller: true, blockOwnerDeletion: true }];
  const source = inputs.map(({ machineConfig: mc }) => ({ apiVersion: MachineConfig.apiVersion, kind: MachineConfig.kind, name: mc.metadata?.name ?? '' }));
  return { kind: 'rendered', machineConfig, source };
}

/**
 * The render controller in bootstrap mode: every pool rendered from in-memory lists, each pool
 * returned with `spec.configuration` and `status.configuration` both naming its rendered
 * config, so the first nodes boot already at their pool's target. Any failure stops the install.
 */
export function renderBootstrap(
  pools: readonly DeepReadonly<MachineConfigPool>[],
  configs: readonly DeepReadonly<MachineConfig>[],
  controllerConfig: DeepReadonly<ControllerConfig>,
  options: RenderOptions,
): { pools: MachineConfigPool[]; renderedConfigs: MachineConfig[] } {
  const out = { pools: [] as MachineConfigPool[], renderedConfigs: [] as MachineConfig[] };
  for (const pool of pools) {
    const outcome = renderPool(pool, configs, controllerConfig, options);
    if (outcome.kind === 'failed') throw new Error(outcome.message);
    if (outcome.kind === 'skipped') throw new Error(renderDegradedMessage(pool.metadata?.name ?? '', outcome.warning.message));
    const configuration = { name: outcome.machineConfig.metadata!.name!, source: outcome.source };
    const rendered = structuredClone(pool) as MachineConfigPool;
    rendered.spec = { ...rendered.spec, configuration };
    rendered.status = { ...rendered.status, configuration: structuredClone(configuration) };
    out.pools.push(rendered);
    out.renderedConfigs.push(outcome.machineConfig);
  }
  return out;
}
