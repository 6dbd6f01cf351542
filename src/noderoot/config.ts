/**
 * A node's configuration as the daemon compares and applies it: a rendered MachineConfig's
 * spec with its Ignition already parsed (spec 2.2 translated to 3), so every rule here sees one
 * shape. `fromMachineConfig` takes any object with a MachineConfig's name and spec; the API
 * types live elsewhere and need not be imported for it.
 */
import { isDeepStrictEqual } from 'node:util';
import { IgnitionConfigError, newestVersion, parseObject, type IgnitionConfig, type IgnitionFile } from '../api/ignition/index.ts';

export interface NodeConfig {
  /** The rendered MachineConfig's name, for messages (`rendered-worker-<hash>`). */
  readonly name: string;
  readonly ignition: IgnitionConfig;
  readonly kernelArguments?: readonly string[] | null;
  readonly extensions?: readonly string[] | null;
  readonly fips?: boolean;
  /** `""`/`default`, `realtime`, `64k-pages`. */
  readonly kernelType?: string;
  readonly osImageURL?: string;
}

export interface MachineConfigLike {
  readonly metadata?: { readonly name?: string };
  readonly spec?: {
    readonly config?: unknown;
    readonly kernelArguments?: readonly string[] | null;
    readonly extensions?: readonly string[] | null;
    readonly fips?: boolean;
    readonly kernelType?: string;
    readonly osImageURL?: string;
  };
}

/** The config a node with none has: what the MCO compares a first boot's target against. */
export function emptyConfig(name = ''): NodeConfig {
  return { name, ignition: { ignition: { version: newestVersion } } };
}

/** Throws `IgnitionConfigError` (each problem with its JSON path) for an unreadable `spec.config`. */
export function fromMachineConfig(mc: MachineConfigLike): NodeConfig {
  const spec = mc.spec ?? {};
  const name = mc.metadata?.name ?? '';
  let ignition = emptyConfig().ignition;
  // A MachineConfig without Ignition is valid (kernel arguments only).
  if (spec.config !== undefined && spec.config !== null) {
    const parsed = parseObject(spec.config);
    if (!parsed.ok) throw new IgnitionConfigError(parsed.errors.map((p) => ({ ...p, path: p.path ? `spec.config.${p.path}` : 'spec.config' })));
    ignition = parsed.config;
  }
  return { name, ignition, kernelArguments: spec.kernelArguments, extensions: spec.extensions, fips: spec.fips, kernelType: spec.kernelType, osImageURL: spec.osImageURL };
}

/** The files a config writes, by path; a later entry for a path wins, as it would on disk. */
export function filesByPath(config: NodeConfig): Map<string, IgnitionFile> {
  const out = new Map<string, IgnitionFile>();
  for (const f of config.ignition.storage?.files ?? []) out.set(f.path, f);
  return out;
}

export function canonicalKernelType(kernelType: string | undefined): string {
  return !kernelType || kernelType === 'default' ? 'default' : kernelType;
}

/**
 * Equal as configs: an unset field, `null`, an empty list and an empty object all mean "none",
 * so a merge that leaves `passwd: {}` behind changes nothing; list order still counts.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(plain(a) ?? null, plain(b) ?? null);
}

function plain(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.length ? value.map((v) => plain(v) ?? null) : undefined;
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = plain(v);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length ? out : undefined;
}
