/**
 * What a KubeletConfig may not say, as the MCO's kubelet-config controller refuses it
 * (`validateUserKubeletConfig`): the fields whose change would leave a node unable to come back
 * after its reboot (cgroup driver, cluster DNS and domain, feature gates — those come from the
 * FeatureGate — static pod directory, swap settings), system-reserved resources together with
 * auto-sizing, and a log level outside 1–10. Before that, the fields Shipyard's kubelet or the
 * MCO's typed decode reads must have the right JSON type, worded as Go's decoder words it, so a
 * string `maxPods` is refused here rather than silently ignored by the kubelet after a reboot.
 * Messages are the MCO's.
 */
import { parseDuration } from '../../../api/duration.ts';
import { parseQuantity } from '../../../api/quantity.ts';
import type { KubeletConfig } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

type FieldType = 'int32' | 'int64' | 'bool' | 'string' | 'duration' | '[]string' | 'map[string]string' | 'quantities' | 'map[string]bool';

/** A subset of KubeletConfiguration v1beta1: the fields commonly set, and every one Shipyard's kubelet reads. */
const fieldTypes: Readonly<Record<string, FieldType>> = {
  maxPods: 'int32',
  podPidsLimit: 'int64',
  kubeAPIQPS: 'int32',
  kubeAPIBurst: 'int32',
  nodeLeaseDurationSeconds: 'int32',
  imageGCHighThresholdPercent: 'int32',
  imageGCLowThresholdPercent: 'int32',
  containerLogMaxFiles: 'int32',
  maxOpenFiles: 'int64',
  nodeStatusReportFrequency: 'duration',
  nodeStatusUpdateFrequency: 'duration',
  syncFrequency: 'duration',
  imageMinimumGCAge: 'duration',
  evictionPressureTransitionPeriod: 'duration',
  runtimeRequestTimeout: 'duration',
  shutdownGracePeriod: 'duration',
  shutdownGracePeriodCriticalPods: 'duration',
  serializeImagePulls: 'bool',
  failSwapOn: 'bool',
  protectKernelDefaults: 'bool',
  rotateCertificates: 'bool',
  serverTLSBootstrap: 'bool',
  cgroupDriver: 'string',
  clusterDomain: 'string',
  staticPodPath: 'string',
  cpuManagerPolicy: 'string',
  topologyManagerPolicy: 'string',
  containerLogMaxSize: 'string',
  clusterDNS: '[]string',
  enforceNodeAllocatable: '[]string',
  systemReserved: 'quantities',
  kubeReserved: 'quantities',
  evictionHard: 'map[string]string',
  evictionSoft: 'map[string]string',
  featureGates: 'map[string]bool',
};

/** The cause that stops a KubeletConfig, or undefined when it may be applied. */
export function validateKubeletConfig(kc: DeepReadonly<KubeletConfig>): string | undefined {
  const level = kc.spec.logLevel;
  if (level !== undefined && level !== null && (level < 1 || level > 10)) return `KubeletConfig's LogLevel is not valid [1,10]: ${level}`;
  const raw = kc.spec.kubeletConfig;
  if (raw === undefined || raw === null) return undefined;
  const decodeError = decode(raw);
  if (decodeError) return `KubeletConfig could not be unmarshalled, err: ${decodeError}`;
  const notAllowed = (field: string, value: unknown): string => `KubeletConfiguration: ${field} is not allowed to be set, but contains: ${goFormat(value)}`;
  if (nonEmpty(raw.cgroupDriver)) return notAllowed('cgroupDriver', raw.cgroupDriver);
  if (nonEmpty(raw.clusterDNS)) return notAllowed('clusterDNS', raw.clusterDNS);
  if (nonEmpty(raw.clusterDomain)) return notAllowed('clusterDomain', raw.clusterDomain);
  if (nonEmpty(raw.featureGates)) return notAllowed('featureGates', raw.featureGates);
  if (nonEmpty(raw.staticPodPath)) return notAllowed('staticPodPath', raw.staticPodPath);
  // A pointer in Go: set at all, even to false, is refused.
  if (raw.failSwapOn !== undefined && raw.failSwapOn !== null) return notAllowed('failSwapOn', raw.failSwapOn);
  const swap = (raw.memorySwap as { swapBehavior?: unknown } | undefined)?.swapBehavior;
  if (nonEmpty(swap)) return notAllowed('swapBehavior', swap);
  if (nonEmpty(raw.systemReserved) && kc.spec.autoSizingReserved === true) return 'KubeletConfiguration: autoSizingReserved and systemdReserved cannot be set together';
  return undefined;
}

function decode(raw: DeepReadonly<Record<string, unknown>>): string | undefined {
  if (typeof raw !== 'object' || Array.isArray(raw)) return `json: cannot unmarshal ${jsonKind(raw)} into Go value of type v1beta1.KubeletConfiguration`;
  for (const [field, type] of Object.entries(fieldTypes)) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    const problem = typeProblem(value, type);
    if (problem) return problem.startsWith('json:') ? `${problem} into Go struct field KubeletConfiguration.${field} of type ${goType(type)}` : problem;
  }
  return undefined;
}

/** A Go decode error for `value` as `type` (its tail added by the caller), or a parse error of the value itself. */
function typeProblem(value: unknown, type: FieldType): string | undefined {
  const mismatch = `json: cannot unmarshal ${jsonKind(value)}`;
  switch (type) {
    case 'int32':
    case 'int64':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : mismatch;
    case 'bool':
      return typeof value === 'boolean' ? undefined : mismatch;
    case 'string':
      return typeof value === 'string' ? undefined : mismatch;
    case 'duration':
      if (typeof value !== 'string') return mismatch;
      try {
        parseDuration(value);
        return undefined;
      } catch {
        return `time: invalid duration ${JSON.stringify(value)}`;
      }
    case '[]string':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : mismatch;
    case 'map[string]bool':
      return isMap(value) && Object.values(value).every((v) => typeof v === 'boolean') ? undefined : mismatch;
    case 'map[string]string':
      return isMap(value) && Object.values(value).every((v) => typeof v === 'string') ? undefined : mismatch;
    case 'quantities': {
      if (!isMap(value) || !Object.values(value).every((v) => typeof v === 'string')) return mismatch;
      for (const [resource, q] of Object.entries(value)) {
        try {
          parseQuantity(q as string);
        } catch {
          return `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (${resource}: ${JSON.stringify(q)})`;
        }
      }
      return undefined;
    }
  }
}

function goType(type: FieldType): string {
  return type === 'duration' ? 'v1.Duration' : type === 'quantities' ? 'map[string]string' : type;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How Go's encoding/json names a JSON value's kind in an unmarshal error. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Go's zero-value test: empty strings, lists and maps, and false, count as not set. */
function nonEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return Object.keys(value).length > 0;
  return true;
}

/** Go's `%v`: `[a b]` for lists, `map[k:v]` with sorted keys for maps. */
function goFormat(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isMap(value)) return `map[${Object.keys(value).sort().map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  return String(value);
}
