/**
 * What the daemon keeps in its node's root, so that a daemon killed at any point, or a node
 * that rebooted under it, knows where it got to without trusting its memory:
 *
 * - `etc/machine-config-daemon/currentconfig`: the rendered MachineConfig whose files are on
 *   disk, written once they are (as the MCO's daemon keeps it). After a crash it wins over the
 *   node's `currentConfig` annotation, which is written only when an update is complete; it is a
 *   whole copy, so the node can still be validated when the object is gone from the cluster.
 * - `etc/machine-config-daemon/update.json`: the update under way, as a journal of its phase
 *   (`draining`, `applying`, `rebooting`) with both configs, whether the daemon cordoned the node
 *   and, once the files are written, whether a reboot follows and in which boot they were
 *   written. The MCO has no such record and leaves a daemon killed mid-write Degraded; with it,
 *   a restarted daemon finishes what it started (issue 15: "killed at any point, it resumes and
 *   converges").
 * - `etc/machine-config-daemon/node-annotations.json`: the first annotations, written by the
 *   config server into the node's first Ignition (api/machineconfiguration/config-server.ts).
 *
 * Every write is a temporary file and a rename (noderoot), so a reader finds the old record or
 * the new one. The files can hold the pull secret, so they are readable by root alone.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { nodeAnnotations, servedNodeFiles, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { forceFile, lstatOrUndefined, removeFile, resolveInRoot, writeFileAtomic, type MachineConfigLike } from '../../../noderoot/index.ts';

export const currentConfigPath = '/etc/machine-config-daemon/currentconfig';
export const journalPath = '/etc/machine-config-daemon/update.json';
export const initialAnnotationsPath = servedNodeFiles.initialNodeAnnotations;

/** A rendered MachineConfig as the daemon keeps it: its name and spec, nothing the server adds. */
export interface StoredConfig extends MachineConfigLike {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec: NonNullable<MachineConfig['spec']>;
}

export type UpdatePhase = 'draining' | 'applying' | 'rebooting';

export interface UpdateJournal {
  readonly phase: UpdatePhase;
  readonly from: StoredConfig;
  readonly to: StoredConfig;
  /** This update cordoned the node: finishing it (or giving it up for the config the node has) uncordons. */
  readonly cordoned: boolean;
  /** From `applying` on: whether the node reboots once the files are written, and why. */
  readonly reboot?: boolean;
  readonly rebootReason?: string;
  /** From `rebooting` on: the boot the files were written in; another one means the node has rebooted since. */
  readonly bootID?: string;
}

export function storedConfig(mc: { readonly metadata?: { readonly name?: string }; readonly spec?: MachineConfig['spec'] }): StoredConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name: mc.metadata?.name ?? '' },
    spec: structuredClone((mc.spec ?? {}) as NonNullable<MachineConfig['spec']>),
  };
}

async function host(root: string, path: string): Promise<string> {
  return resolveInRoot(root, path);
}

async function readJson<T>(root: string, path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(await host(root, path), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`could not read ${path}: ${(err as Error).message}`, { cause: err });
  }
}

async function writeJson(root: string, path: string, value: unknown): Promise<void> {
  const target = await host(root, path);
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  await writeFileAtomic(target, `${JSON.stringify(value)}\n`, 0o600);
}

export async function readCurrentConfig(root: string): Promise<StoredConfig | undefined> {
  const stored = await readJson<StoredConfig>(root, currentConfigPath);
  if (stored !== undefined && typeof stored?.metadata?.name !== 'string') throw new Error(`could not read ${currentConfigPath}: no metadata.name`);
  return stored;
}

export async function writeCurrentConfig(root: string, config: StoredConfig): Promise<void> {
  await writeJson(root, currentConfigPath, config);
}

export async function readJournal(root: string): Promise<UpdateJournal | undefined> {
  const journal = await readJson<UpdateJournal>(root, journalPath);
  if (journal !== undefined && !['draining', 'applying', 'rebooting'].includes(journal?.phase)) throw new Error(`could not read ${journalPath}: unknown phase ${JSON.stringify(journal?.phase)}`);
  return journal;
}

export async function writeJournal(root: string, journal: UpdateJournal): Promise<void> {
  await writeJson(root, journalPath, journal);
}

export async function removeJournal(root: string): Promise<void> {
  await removeFile(await host(root, journalPath));
}

/** The first annotations the config server wrote for this node, by their annotation names; undefined when there are none. */
export async function readInitialAnnotations(root: string): Promise<Record<string, string> | undefined> {
  const doc = await readJson<unknown>(root, initialAnnotationsPath);
  if (doc === undefined) return undefined;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`could not read ${initialAnnotationsPath}: not a JSON object`);
  const known = new Set<string>([nodeAnnotations.currentConfig, nodeAnnotations.desiredConfig, nodeAnnotations.state]);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc)) if (known.has(k) && typeof v === 'string' && v !== '') out[k] = v;
  return out;
}

/** Whether someone asked for the current config to be written again (`touch /run/machine-config-daemon-force`). */
export async function forceFilePresent(root: string): Promise<boolean> {
  return (await lstatOrUndefined(await host(root, forceFile))) !== undefined;
}

/** The force file is consumed by the update it started, as a reboot would clear it from `/run`. */
export async function removeForceFile(root: string): Promise<void> {
  await removeFile(await host(root, forceFile));
}
