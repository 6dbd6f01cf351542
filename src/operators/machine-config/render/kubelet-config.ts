/**
 * A KubeletConfig turned into the MachineConfig that carries it, as the MCO's kubelet-config
 * controller does: the pools it selects (by their labels), the pool's kubelet configuration
 * from the templates with the user's fields merged on top, and the result as
 * `99-<pool>-generated-kubelet` — `-1` … `-9` for a pool's further KubeletConfigs, so the newest
 * sorts last and wins the render — owned by the KubeletConfig and labelled with the pool's role.
 * The merge is the MCO's (mergo with override) with one fix: a field the user sets wins even when
 * it is `false` or `0`, where mergo would silently keep the template's value.
 */
import { compileLabelSelector, isEmptySelector } from '../../../api/label-selector.ts';
import { newestVersion, type IgnitionConfig, type IgnitionFile } from '../../../api/ignition/index.ts';
import {
  group,
  KubeletConfig,
  kubeletConfigConditionTypes,
  MachineConfig,
  machineConfigAnnotations,
  roleLabel,
  type ControllerConfig,
  type KubeletConfigCondition,
  type MachineConfigPool,
} from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { textFile } from './ignition-file.ts';
import { validateKubeletConfig } from './kubelet-config-validate.ts';
import { kubeletConfFile, kubeletConfiguration, type KubeletConfiguration } from './kubelet-conf.ts';

/** On a KubeletConfig: which `99-<pool>-generated-kubelet[-N]` it owns (`""` for the plain name). */
export const mcNameSuffixAnnotation = `${group}/mc-name-suffix`;

/** A pool's KubeletConfigs beyond the first get suffixes 1–9: at most ten per pool, as in the MCO. */
const maxSuffix = 9;

export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** The pools whose labels the KubeletConfig's `machineConfigPoolSelector` matches; nil and `{}` match none. */
export function kubeletConfigPools(kc: DeepReadonly<KubeletConfig>, pools: readonly DeepReadonly<MachineConfigPool>[]): Outcome<DeepReadonly<MachineConfigPool>[]> {
  const selector = kc.spec.machineConfigPoolSelector;
  const compiled = isEmptySelector(selector) ? undefined : compileLabelSelector(selector, 'spec.machineConfigPoolSelector');
  if (compiled?.error !== undefined) return { ok: false, error: `invalid machineConfigPoolSelector: ${compiled.error}` };
  const matched = compiled ? pools.filter((p) => compiled.matches(p.metadata?.labels)) : [];
  if (matched.length === 0) return { ok: false, error: `KubeletConfig ${kc.metadata?.name ?? ''} does not match any MachineConfigPools` };
  return { ok: true, value: matched };
}

/**
 * The generated config's name for this KubeletConfig and pool, and the suffix to record on the
 * KubeletConfig (`mc-name-suffix`) so the name stays its own: the first KubeletConfig of a pool
 * gets the plain name, each later one the next number after the highest taken.
 */
export function generatedKubeletConfigName(
  pool: DeepReadonly<MachineConfigPool>,
  kc: DeepReadonly<KubeletConfig>,
  all: readonly DeepReadonly<KubeletConfig>[],
): Outcome<{ name: string; suffix: string }> {
  const base = `99-${pool.metadata?.name ?? ''}-generated-kubelet`;
  const named = (suffix: string): Outcome<{ name: string; suffix: string }> => ({ ok: true, value: { name: suffix ? `${base}-${suffix}` : base, suffix } });
  const recorded = kc.metadata?.annotations?.[mcNameSuffixAnnotation];
  if (recorded !== undefined) return named(recorded);
  const forPool = all.filter((other) => {
    const selector = other.spec.machineConfigPoolSelector;
    return !isEmptySelector(selector) && compileLabelSelector(selector).matches?.(pool.metadata?.labels) === true;
  });
  if (forPool.every((other) => other.metadata?.name === kc.metadata?.name)) return named('');
  let highest = 0;
  for (const other of forPool) {
    const suffix = Number(other.metadata?.annotations?.[mcNameSuffixAnnotation] || 0);
    if (Number.isInteger(suffix) && suffix > highest) highest = suffix;
  }
  if (highest + 1 > maxSuffix) return { ok: false, error: 'max number of supported kubelet config (10) has been reached. Please delete old kubelet configs before retrying' };
  return named(String(highest + 1));
}

/** The template's configuration with the user's fields on top: maps merge key by key, lists and scalars replace. */
export function mergeKubeletConfiguration(base: DeepReadonly<KubeletConfiguration>, user: DeepReadonly<Record<string, unknown>>): KubeletConfiguration {
  const out = structuredClone(base) as KubeletConfiguration;
  for (const [key, value] of Object.entries(user)) {
    // The file's own type stays the template's; feature gates come from the FeatureGate, never a user.
    if (key === 'apiVersion' || key === 'kind' || key === 'featureGates' || value === null || value === undefined) continue;
    out[key] = mergeValue(out[key], value);
  }
  return out;
}

function mergeValue(base: unknown, value: unknown): unknown {
  if (isMap(base) && isMap(value)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = mergeValue(out[k], v);
    return out;
  }
  return structuredClone(value);
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface GeneratedKubeletConfigInput {
  readonly pool: DeepReadonly<MachineConfigPool>;
  readonly kubeletConfig: DeepReadonly<KubeletConfig>;
  readonly controllerConfig: DeepReadonly<ControllerConfig>;
  readonly controllerVersion: string;
  /** From `generatedKubeletConfigName`. */
  readonly name: string;
}

/** The MachineConfig a valid KubeletConfig becomes for one pool, or why it cannot be made. */
export function renderGeneratedKubeletConfig(input: GeneratedKubeletConfigInput): Outcome<MachineConfig> {
  const kc = input.kubeletConfig;
  const invalid = validateKubeletConfig(kc);
  if (invalid) return { ok: false, error: invalid };
  const configuration = mergeKubeletConfiguration(kubeletConfiguration(input.controllerConfig), kc.spec.kubeletConfig ?? {});
  const files: IgnitionFile[] = [kubeletConfFile(configuration)];
  if (kc.spec.logLevel !== undefined && kc.spec.logLevel !== null) {
    files.push(textFile('/etc/systemd/system/kubelet.service.d/20-logging.conf', `[Service]\nEnvironment="KUBELET_LOG_LEVEL=${kc.spec.logLevel}"\n`));
  }
  const config: IgnitionConfig = { ignition: { version: newestVersion }, storage: { files } };
  const metadata: NonNullable<MachineConfig['metadata']> = {
    name: input.name,
    labels: { [roleLabel]: input.pool.metadata?.name ?? '' },
    annotations: { [machineConfigAnnotations.generatedByControllerVersion]: input.controllerVersion },
  };
  const uid = kc.metadata?.uid;
  if (uid) metadata.ownerReferences = [{ apiVersion: KubeletConfig.apiVersion, kind: KubeletConfig.kind, name: kc.metadata?.name ?? '', uid, controller: true }];
  return { ok: true, value: { apiVersion: MachineConfig.apiVersion, kind: MachineConfig.kind, metadata, spec: { config: config as unknown as Record<string, unknown> } } };
}

/** The KubeletConfig status condition the MCO writes: `Success` or `Failure` with `Error: <cause>`. */
export function kubeletConfigCondition(error: string | undefined, now: string): KubeletConfigCondition {
  return error === undefined
    ? { type: kubeletConfigConditionTypes.success, status: 'True', lastTransitionTime: now, message: 'Success' }
    : { type: kubeletConfigConditionTypes.failure, status: 'False', lastTransitionTime: now, message: `Error: ${error}` };
}
