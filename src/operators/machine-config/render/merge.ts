/**
 * Merging a pool's MachineConfigs into the spec of one rendered config, as the MCO's
 * `MergeMachineConfigs` does. Order first: configs labelled role `worker` come first, then the
 * rest, each group by name, so a custom pool's configs (`99-infra-generated-kubelet`) override
 * the worker configs they build on whatever their names; within a group the later name wins.
 * The first config's Ignition is the base and each later one is merged on top with Ignition's
 * merge (`api/ignition/merge.ts`): two configs writing one path leave the later one's file.
 * Kernel arguments and extensions are concatenated in that order, FIPS is on if any config
 * asks, and the kernel type and OS image are the last non-empty value (the OS image defaulting
 * to the ControllerConfig's).
 */
import { merge, newestVersion, type IgnitionConfig, type IgnitionFile } from '../../../api/ignition/index.ts';
import { machineConfigAnnotations, roleLabel, type ControllerConfig, type MachineConfig, type MachineConfigSpec } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export interface MergeInput {
  readonly machineConfig: DeepReadonly<MachineConfig>;
  /** Its `spec.config` parsed to spec 3 (`validate.ts`); undefined when it has none. */
  readonly ignition: IgnitionConfig | undefined;
}

export type MergeResult =
  | { readonly ok: true; readonly spec: MachineConfigSpec; readonly osImageURLOverridden: boolean }
  | { readonly ok: false; readonly error: string };

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The MCO's merge order: role `worker` first, then every other config; each part by name. */
export function mergeOrder<T extends { readonly machineConfig: DeepReadonly<MachineConfig> }>(items: readonly T[]): T[] {
  const keyed = items.map((item) => ({ item, name: item.machineConfig.metadata?.name ?? '' }));
  const isWorker = (k: (typeof keyed)[number]): boolean => k.item.machineConfig.metadata?.labels?.[roleLabel] === 'worker';
  return [...keyed.filter(isWorker).sort(byName), ...keyed.filter((k) => !isWorker(k)).sort(byName)].map((k) => k.item);
}

/** Merges configs already in merge order (`mergeOrder`). */
export function mergeMachineConfigs(ordered: readonly MergeInput[], controllerConfig: DeepReadonly<ControllerConfig>): MergeResult {
  const spec: MachineConfigSpec = {
    config: mergeIgnition(ordered) as unknown as Record<string, unknown>,
    kernelArguments: ordered.flatMap((i) => i.machineConfig.spec.kernelArguments ?? []),
    extensions: ordered.flatMap((i) => i.machineConfig.spec.extensions ?? []),
    fips: ordered.some((i) => i.machineConfig.spec.fips === true),
    kernelType: 'default',
    osImageURL: controllerConfig.spec.baseOSContainerImage || controllerConfig.spec.osImageURL || '',
  };
  let osImageURLOverridden = false;
  let extensionsImage = controllerConfig.spec.baseOSExtensionsContainerImage ?? '';
  for (const { machineConfig: mc } of ordered) {
    if (mc.spec.kernelType) spec.kernelType = mc.spec.kernelType;
    if (mc.spec.osImageURL) {
      spec.osImageURL = mc.spec.osImageURL;
      // The template configs carry the ControllerConfig's image; only a user's config overrides it.
      osImageURLOverridden = mc.metadata?.annotations?.[machineConfigAnnotations.generatedByControllerVersion] === undefined;
    }
    if (mc.spec.baseOSExtensionsContainerImage) extensionsImage = mc.spec.baseOSExtensionsContainerImage;
  }
  if (extensionsImage) spec.baseOSExtensionsContainerImage = extensionsImage;
  if (spec.kernelType !== 'default' && spec.extensions!.includes('kernel-devel')) {
    return { ok: false, error: `installing kernel-devel extension is not supported with kernelType: ${spec.kernelType}` };
  }
  return { ok: true, spec, osImageURLOverridden };
}

function mergeIgnition(ordered: readonly MergeInput[]): IgnitionConfig {
  let out: IgnitionConfig = structuredClone(ordered[0]?.ignition) ?? { ignition: { version: newestVersion } };
  for (const { ignition } of ordered.slice(1)) {
    if (!ignition) continue;
    out = merge(out, ignition);
    takeContentsWhole(out, ignition);
  }
  out.ignition.version = newestVersion;
  // Ignition's spec 3 default is not to overwrite, the MCO always does: a node scaled up later
  // from this config must end with the same files as the nodes that were updated in place.
  for (const file of out.storage?.files ?? []) file.overwrite ??= true;
  // As it will be stored: a translated 2.2 reference without a source holds `source: undefined`,
  // which only a JSON round trip removes (and the API's validator would refuse in memory).
  return JSON.parse(JSON.stringify(out)) as IgnitionConfig;
}

/**
 * A file whose later config gives new contents takes those contents whole: field-by-field
 * merge would keep the earlier config's `compression: gzip` or verification hash and apply it
 * to bytes it was never meant for.
 */
function takeContentsWhole(merged: IgnitionConfig, child: IgnitionConfig): void {
  const replaced = new Map<string, IgnitionFile>();
  for (const file of child.storage?.files ?? []) if (file.contents?.source !== undefined) replaced.set(file.path, file);
  if (replaced.size === 0) return;
  for (const file of merged.storage?.files ?? []) {
    const from = replaced.get(file.path);
    if (from) file.contents = structuredClone(from.contents);
  }
}
