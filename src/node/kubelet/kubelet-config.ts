/**
 * `<node root>/etc/kubernetes/kubelet.conf`: the KubeletConfiguration the Machine Config
 * Operator later manages. Read at start and on every reboot, so a changed maxPods or
 * systemReserved takes effect the way it does on a real node: after a reboot. A malformed file
 * keeps the last good configuration, and the error names the file and the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseDuration } from '../../api/duration.ts';
import { quantityMilliValue } from '../../api/quantity.ts';

export interface KubeletConfig {
  readonly maxPods: number;
  /** cpu in millicores, memory in bytes, taken off capacity for allocatable. */
  readonly reservedCpuMilli: number;
  readonly reservedMemory: number;
  readonly nodeStatusReportFrequencyMs: number;
  readonly nodeLeaseDurationSeconds: number;
}

export const defaultKubeletConfig: KubeletConfig = {
  maxPods: 250,
  reservedCpuMilli: 0,
  reservedMemory: 0,
  nodeStatusReportFrequencyMs: 5 * 60_000,
  nodeLeaseDurationSeconds: 40,
};

export class KubeletConfigError extends Error {}

export function readKubeletConfig(path: string): KubeletConfig {
  if (!existsSync(path)) return defaultKubeletConfig;
  let doc: Record<string, unknown>;
  try {
    doc = (parse(readFileSync(path, 'utf8')) ?? {}) as Record<string, unknown>;
  } catch (err) {
    throw new KubeletConfigError(`${path}: not valid YAML or JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new KubeletConfigError(`${path}: must be a KubeletConfiguration object`);
  if (doc.kind !== undefined && doc.kind !== 'KubeletConfiguration') throw new KubeletConfigError(`${path}: kind: must be KubeletConfiguration, got ${JSON.stringify(doc.kind)}`);
  const field = <T>(name: string, read: (v: unknown) => T, fallback: T): T => {
    if (doc[name] === undefined) return fallback;
    try {
      return read(doc[name]);
    } catch (err) {
      throw new KubeletConfigError(`${path}: ${name}: ${(err as Error).message}`);
    }
  };
  const int = (v: unknown): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new Error(`must be a positive integer, got ${JSON.stringify(v)}`);
    return v;
  };
  const reserved = (v: unknown): { cpu: number; memory: number } => {
    if (typeof v !== 'object' || v === null) throw new Error('must be a map of resource quantities');
    const r = v as Record<string, unknown>;
    return { cpu: r.cpu === undefined ? 0 : quantityMilliValue(String(r.cpu)), memory: r.memory === undefined ? 0 : quantityMilliValue(String(r.memory)) / 1000 };
  };
  const sys = field('systemReserved', reserved, { cpu: 0, memory: 0 });
  const kube = field('kubeReserved', reserved, { cpu: 0, memory: 0 });
  return {
    maxPods: field('maxPods', int, defaultKubeletConfig.maxPods),
    reservedCpuMilli: sys.cpu + kube.cpu,
    reservedMemory: sys.memory + kube.memory,
    nodeStatusReportFrequencyMs: field('nodeStatusReportFrequency', (v) => parseDuration(String(v)), defaultKubeletConfig.nodeStatusReportFrequencyMs),
    nodeLeaseDurationSeconds: field('nodeLeaseDurationSeconds', int, defaultKubeletConfig.nodeLeaseDurationSeconds),
  };
}
