/**
 * Moving a running node's root from one config to the next, as the MCO's daemon does
 * (`updateFiles`, `deleteStaleData`, `updateSSHKeys`, then the OS changes):
 *
 * - every file of the new config is written, whole, atomically, with its mode (0644 unset),
 *   whether it changed or not, so a second run after a crash, or one the force file asks for,
 *   puts back anything that drifted; the first write over a file that is not ours keeps its
 *   original (`backups.ts`);
 * - every unit: drop-ins (an empty one is removed), the unit file or its mask, then
 *   enabled/disabled as the config says; a unit whose `[Install]` changed is re-linked;
 * - files, drop-ins and units the old config named and the new one does not are put back as
 *   they were before us, or removed when they were ours from the start;
 * - user `core`'s SSH keys, kernel arguments and the OS record when they changed.
 *
 * Every step converges: running it again from the same two configs changes nothing more, so a
 * daemon killed at any point resumes by running it again. It does not judge whether the change
 * can be made in place (`reconcile.ts`) nor what it disrupts (`disruption.ts`). Ownership and
 * password hashes cannot be set in a directory tree and are reported as skipped.
 */
import type { IgnitionUnit } from '../api/ignition/index.ts';
import { keepOriginal, restoreOrRemove } from './backups.ts';
import { filesByPath, type NodeConfig } from './config.ts';
import { coreKeys, diffConfigs } from './diff.ts';
import { lstatOrUndefined, prepare, removeFile, writeFileAtomic } from './fs.ts';
import { updateKernelArguments, writeOsRecord } from './os-state.ts';
import { readResource } from './resource.ts';
import { coreHome, writeAuthorizedKeys } from './ssh.ts';
import { disableUnit, dropinPath, enableUnit, enablementLinks, installedUnitFile, isMasked, maskUnit, unitPath } from './units.ts';

export interface UpdateResult {
  /** Node paths written: files, unit files, drop-ins. */
  readonly written: string[];
  /** Paths whose original was kept before the first write over it. */
  readonly keptOriginals: string[];
  /** Dropped paths whose original was put back. */
  readonly restored: string[];
  /** Dropped (or emptied) paths removed. */
  readonly removed: string[];
  readonly enabled: string[];
  readonly disabled: string[];
  readonly masked: string[];
  readonly unmasked: string[];
  readonly sshKeys: boolean;
  readonly kernelArguments: boolean;
  readonly os: boolean;
  /** What a node root cannot express. */
  readonly skipped: string[];
}

type Draft = { -readonly [K in keyof UpdateResult]: UpdateResult[K] };

export async function applyUpdate(root: string, from: NodeConfig, to: NodeConfig): Promise<UpdateResult> {
  const result: Draft = { written: [], keptOriginals: [], restored: [], removed: [], enabled: [], disabled: [], masked: [], unmasked: [], sshKeys: false, kernelArguments: false, os: false, skipped: [] };
  const ours = managedPaths(from);
  await writeFiles(root, to, ours, result);
  for (const u of to.ignition.systemd?.units ?? []) await writeUnit(root, u, ours, result);
  await deleteStale(root, from, to, result);

  const diff = diffConfigs(from, to);
  if (diff.passwd) {
    await step(`could not write SSH keys for user core`, () => writeAuthorizedKeys(root, coreHome, coreKeys(to)));
    result.sshKeys = diff.sshKeys;
    if (diff.passwordHash) result.skipped.push('passwd.users core: passwordHash');
  }
  if (diff.kargs) {
    await step('could not update kernel arguments', () => updateKernelArguments(root, from.kernelArguments, to.kernelArguments));
    result.kernelArguments = true;
  }
  if (diff.osUpdate || diff.kernelType || diff.extensions) {
    await step('could not record the OS deployment', () => writeOsRecord(root, to));
    result.os = true;
  }
  return result;
}

/** The node paths a config owns: its files, unit files (masks included) and drop-ins with contents. */
export function managedPaths(config: NodeConfig): Set<string> {
  const out = new Set(filesByPath(config).keys());
  for (const u of config.ignition.systemd?.units ?? []) {
    if (u.mask || u.contents) out.add(unitPath(u.name));
    for (const d of u.dropins ?? []) if (d.contents) out.add(dropinPath(u.name, d.name));
  }
  return out;
}

async function step<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

async function writeFiles(root: string, to: NodeConfig, ours: Set<string>, result: UpdateResult): Promise<void> {
  const owned: string[] = [];
  for (const f of filesByPath(to).values()) {
    if (f.append?.length) throw new Error(`could not write file ${JSON.stringify(f.path)}: found an append section when writing files. Append is not supported`);
    // Decoded before anything is touched: a bad data URL leaves the old file in place.
    const data = await step(`could not decode file ${JSON.stringify(f.path)}`, () => readResource(f.contents ?? {}));
    await step(`could not write file ${JSON.stringify(f.path)}`, async () => {
      await writeManaged(root, f.path, ours, result);
      await writeFileAtomic(await prepare(root, f.path), data, f.mode ?? 0o644);
    });
    result.written.push(f.path);
    if (f.user || f.group) owned.push(f.path);
  }
  if (owned.length) result.skipped.push(`ownership of ${owned.join(', ')}`);
}

/** Before a write: a directory is never replaced by a file, and a foreign file is kept. */
async function writeManaged(root: string, path: string, ours: Set<string>, result: UpdateResult): Promise<void> {
  const st = await lstatOrUndefined(await prepare(root, path));
  if (st?.isDirectory()) throw new Error('a directory is in the way');
  if (await keepOriginal(root, path, ours.has(path))) result.keptOriginals.push(path);
}

async function writeUnit(root: string, u: IgnitionUnit, ours: Set<string>, result: UpdateResult): Promise<void> {
  const path = unitPath(u.name);
  await step(`could not write systemd unit ${JSON.stringify(u.name)}`, async () => {
    for (const d of u.dropins ?? []) {
      const dpath = dropinPath(u.name, d.name);
      if (!d.contents) {
        // An empty drop-in means none (the MCO's rule since 4.7).
        if (await removeFile(await prepare(root, dpath))) result.removed.push(dpath);
        continue;
      }
      await writeManaged(root, dpath, ours, result);
      await writeFileAtomic(await prepare(root, dpath), d.contents, 0o644);
      result.written.push(dpath);
    }
    if (u.mask) {
      if (!(await isMasked(root, u.name))) {
        await writeManaged(root, path, ours, result);
        await maskUnit(root, u.name);
        result.masked.push(u.name);
      }
      return;
    }
    if (u.contents) {
      // A rewrite may move the unit to other targets; links follow the new [Install].
      const wasEnabled = (await enablementLinks(root, u.name)).length > 0;
      await writeManaged(root, path, ours, result);
      await writeFileAtomic(await prepare(root, path), u.contents, 0o644);
      result.written.push(path);
      if (wasEnabled && u.enabled === undefined) {
        await disableUnit(root, u.name);
        await enableUnit(root, u.name, u.contents, path);
      }
    } else if ((u.mask === false || ours.has(path)) && (await isMasked(root, u.name))) {
      // Explicitly unmasked, or masked by the old config and no longer: the MCO misses the latter.
      await removeFile(await prepare(root, path));
      result.unmasked.push(u.name);
    }
    if (u.enabled === false) {
      if ((await enablementLinks(root, u.name)).length > 0) result.disabled.push(u.name);
      await disableUnit(root, u.name);
    } else if (u.enabled === true) {
      const file = u.contents ? { path, contents: u.contents } : await installedUnitFile(root, u.name);
      if (!file) {
        // The MCO's rule too: there is nothing to link to.
        result.skipped.push(`unit ${u.name}: enabled, but the node has no such unit`);
        return;
      }
      const wasEnabled = (await enablementLinks(root, u.name)).length > 0;
      // Links from an older [Install] go; the current one's are made.
      await disableUnit(root, u.name);
      await enableUnit(root, u.name, file.contents, file.path);
      if (!wasEnabled) result.enabled.push(u.name);
    }
  });
}

async function deleteStale(root: string, from: NodeConfig, to: NodeConfig, result: UpdateResult): Promise<void> {
  const record = (path: string, outcome: 'restored' | 'removed' | 'absent') => {
    if (outcome === 'restored') result.restored.push(path);
    if (outcome === 'removed') result.removed.push(path);
  };
  const newFiles = filesByPath(to);
  const newDropins = new Set<string>();
  const newUnits = new Set<string>();
  for (const u of to.ignition.systemd?.units ?? []) {
    newUnits.add(u.name);
    for (const d of u.dropins ?? []) newDropins.add(dropinPath(u.name, d.name));
  }
  for (const path of filesByPath(from).keys()) {
    // A file turned into a drop-in of the new config has just been written as one.
    if (newFiles.has(path) || newDropins.has(path)) continue;
    record(path, await step(`could not delete stale file ${JSON.stringify(path)}`, () => restoreOrRemove(root, path)));
  }
  for (const u of from.ignition.systemd?.units ?? []) {
    for (const d of u.dropins ?? []) {
      const dpath = dropinPath(u.name, d.name);
      if (newDropins.has(dpath) || newFiles.has(dpath)) continue;
      record(dpath, await step(`could not delete stale systemd dropin ${JSON.stringify(dpath)}`, () => restoreOrRemove(root, dpath)));
    }
    // A vendor unit the old config only enabled is left as it is: there is no preset to go back to.
    if (newUnits.has(u.name) || newFiles.has(unitPath(u.name)) || !(u.contents || u.mask)) continue;
    await step(`could not delete stale systemd unit ${JSON.stringify(u.name)}`, async () => {
      if ((await enablementLinks(root, u.name)).length > 0) result.disabled.push(u.name);
      await disableUnit(root, u.name);
      record(unitPath(u.name), await restoreOrRemove(root, unitPath(u.name)));
    });
  }
}
