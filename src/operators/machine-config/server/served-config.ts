/**
 * What a booting machine gets for `GET /config/<pool>`: the pool's rendered Ignition with the
 * node's first files added — its bootstrap kubeconfig and the daemon's first annotations
 * (current = desired = the served config, state Done), so the daemon's first sync finds nothing
 * to do — written in the spec version the machine's Ignition asked for. Pure: the handler reads
 * the pool and the rendered MachineConfig and mints the kubeconfig's token.
 */
import { convertConfig, encodeDataUrl, parseObject, type ConfigProblem, type IgnitionConfig, type IgnitionFile } from '../../../api/ignition/index.ts';
import { nodeAnnotations, servedNodeFiles, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';

/**
 * The rendered config a machine joining `pool` boots from, as the MCO's server picks it: the
 * target once at least one node has updated to it (a new node then neither boots a config the
 * pool is leaving nor, if that config broke, deadlocks on it), the last completed one before
 * that, and the target while the pool has completed none.
 */
export function servedConfigName(pool: Pick<MachineConfigPool, 'spec' | 'status'>): string | undefined {
  const target = pool.spec?.configuration?.name || undefined;
  const completed = pool.status?.configuration?.name || undefined;
  if ((pool.status?.updatedMachineCount ?? 0) > 0) return target ?? completed;
  return completed ?? target;
}

export interface ServedConfigInput {
  /** The rendered MachineConfig's name: the node's first current and desired config. */
  readonly renderedName: string;
  /** Its `spec.config`, as stored. */
  readonly config: unknown;
  readonly bootstrapKubeconfig: string;
  /** A version `negotiateVersion` chose. */
  readonly version: string;
}

export type ServedConfig =
  | { ok: true; body: unknown }
  /** `unreadable`: the rendered config does not parse (a server-side fault); `inexpressible`: the asked version cannot say it. */
  | { ok: false; reason: 'unreadable' | 'inexpressible'; problems: ConfigProblem[] };

export function servedConfig(input: ServedConfigInput): ServedConfig {
  const parsed = parseObject(input.config ?? { ignition: { version: '3.4.0' } });
  if (!parsed.ok) return { ok: false, reason: 'unreadable', problems: parsed.errors };
  const config = withFiles(parsed.config, nodeFiles(input.renderedName, input.bootstrapKubeconfig));
  const converted = convertConfig(config, input.version);
  if (!converted.ok) return { ok: false, reason: 'inexpressible', problems: converted.errors };
  return { ok: true, body: converted.config };
}

export function initialNodeAnnotations(renderedName: string): Record<string, string> {
  return { [nodeAnnotations.currentConfig]: renderedName, [nodeAnnotations.desiredConfig]: renderedName, [nodeAnnotations.state]: 'Done' };
}

function nodeFiles(renderedName: string, kubeconfig: string): IgnitionFile[] {
  return [
    // It holds a credential: readable by root alone, unlike the MCO's 0644.
    { path: servedNodeFiles.bootstrapKubeconfig, overwrite: true, mode: 0o600, contents: { source: encodeDataUrl(kubeconfig) } },
    { path: servedNodeFiles.initialNodeAnnotations, overwrite: true, mode: 0o644, contents: { source: encodeDataUrl(JSON.stringify(initialNodeAnnotations(renderedName))) } },
  ];
}

/** The config with `files` added; anything a MachineConfig put at their paths gives way, since one path may hold one entry. */
function withFiles(config: IgnitionConfig, files: readonly IgnitionFile[]): IgnitionConfig {
  const paths = new Set(files.map((f) => f.path));
  const storage = { ...config.storage };
  storage.files = [...(storage.files ?? []).filter((f) => !paths.has(f.path)), ...files];
  if (storage.directories) storage.directories = storage.directories.filter((d) => !paths.has(d.path));
  if (storage.links) storage.links = storage.links.filter((l) => !paths.has(l.path));
  return { ...config, storage };
}
