/**
 * Writing a rendered Ignition config into a node root with Ignition's own rules, as first boot
 * does: directories, files and symlinks shallowest first, hard links last (their targets must
 * exist); systemd units into `etc/systemd/system`, enabled through `<target>.wants/` links and
 * masked by a link to `/dev/null`; SSH keys into `~/.ssh/authorized_keys.d/ignition`. An
 * existing node is replaced only with `overwrite: true`; without it a file with no source keeps
 * its contents (and gets appended to), anything else fails.
 *
 * Ownership (`user`/`group`), password hashes, disks and kernel arguments cannot be applied to
 * a directory: they are returned as skipped. A running node's updates have other rules
 * (`update.ts`).
 */
import { chmod, link, lstat, mkdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { posix } from 'node:path';
import type { IgnitionConfig, IgnitionFile, IgnitionLink, IgnitionResource, IgnitionUnit } from '../api/ignition/index.ts';
import { linkTarget, lstatOrUndefined, prepare, writeFileAtomic } from './fs.ts';
import { resolveInRoot } from './paths.ts';
import { writeAuthorizedKeys } from './ssh.ts';
import { disableUnit, enableUnit, maskUnit, unitPath, vendorUnitDir } from './units.ts';

export class IgnitionApplyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IgnitionApplyError';
  }
}

export interface FirstBootWriteOptions {
  /** The bytes of a file's contents or appended parts (remote sources fetched by the caller). */
  readonly read: (resource: IgnitionResource) => Promise<Buffer>;
}

/** Writes `config` into `root`; returns what a node root cannot express. */
export async function writeFirstBootConfig(config: IgnitionConfig, root: string, options: FirstBootWriteOptions): Promise<string[]> {
  const skipped: string[] = [];
  const s = config.storage ?? {};
  type Entry = { path: string; write: () => Promise<void> };
  const entries: Entry[] = [
    ...(s.directories ?? []).map((d) => ({ path: d.path, write: () => writeDirectory(root, d.path, d.mode, d.overwrite === true) })),
    ...(s.files ?? []).map((f) => ({ path: f.path, write: () => writeIgnitionFile(root, f, options) })),
    ...(s.links ?? []).filter((l) => !l.hard).map((l) => ({ path: l.path, write: () => writeLink(root, l) })),
  ];
  const depth = (p: string): number => p.split('/').filter(Boolean).length;
  entries.sort((a, b) => depth(a.path) - depth(b.path));
  for (const e of entries) await step(e.path, e.write);
  for (const l of (s.links ?? []).filter((x) => x.hard)) await step(l.path, () => writeLink(root, l));

  for (const u of config.systemd?.units ?? []) await step(`unit ${u.name}`, () => writeUnit(root, u, skipped));
  for (const u of config.passwd?.users ?? []) {
    if (u.sshAuthorizedKeys?.length) {
      const home = u.homeDir ?? (u.name === 'root' ? '/root' : `/home/${u.name}`);
      await step(`user ${u.name}`, () => writeAuthorizedKeys(root, home, u.sshAuthorizedKeys!));
    }
    if (u.passwordHash !== undefined) skipped.push(`passwd.users ${u.name}: passwordHash`);
  }
  const owned = [...(s.files ?? []), ...(s.directories ?? []), ...(s.links ?? [])].filter((n) => n.user || n.group).map((n) => n.path);
  if (owned.length) skipped.push(`ownership of ${owned.join(', ')}`);
  if (config.passwd?.groups?.length) skipped.push(`passwd.groups: ${config.passwd.groups.map((g) => g.name).join(', ')}`);
  for (const key of ['disks', 'raid', 'filesystems', 'luks'] as const) if (s[key]?.length) skipped.push(`storage.${key}: a node root has no block devices`);
  const kargs = config.kernelArguments;
  if (kargs?.shouldExist?.length || kargs?.shouldNotExist?.length) skipped.push('kernelArguments');
  return skipped;
}

async function step(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    throw new IgnitionApplyError(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

async function writeDirectory(root: string, path: string, mode: number | undefined, overwrite: boolean): Promise<void> {
  const host = await prepare(root, path);
  let st = await lstatOrUndefined(host);
  if (st && overwrite) {
    await rm(host, { recursive: true, force: true });
    st = undefined;
  } else if (st && !st.isDirectory()) {
    throw new Error('a non-directory already exists and overwrite is false');
  }
  if (!st) await mkdir(host, { mode: 0o755 });
  // Unset mode: 0755 for a new directory, the old mode for a kept one (Ignition's rule).
  if (mode !== undefined || !st) await chmod(host, mode ?? 0o755);
}

async function writeIgnitionFile(root: string, f: IgnitionFile, options: FirstBootWriteOptions): Promise<void> {
  const host = await prepare(root, f.path);
  const st = await lstatOrUndefined(host);
  const hasSource = !!f.contents?.source;
  const replace = !!st && f.overwrite === true;
  if (st && !replace) {
    if (!st.isFile()) throw new Error('a non-regular file already exists and overwrite is false');
    if (hasSource) throw new Error('a file already exists and overwrite is false');
  }
  const keep = !!st && !replace;
  // Everything is read before anything is replaced, so a failed fetch leaves the old file.
  const parts: Buffer[] = [];
  if (keep) parts.push(await readFile(host));
  else if (hasSource) parts.push(await options.read(f.contents!));
  for (const a of f.append ?? []) parts.push(await options.read(a));
  // Unset mode: 0644 for a new file, the old mode for a kept one (Ignition's rule).
  const mode = f.mode ?? (keep ? st!.mode & 0o7777 : 0o644);
  await writeFileAtomic(host, Buffer.concat(parts), mode);
}

async function writeLink(root: string, l: IgnitionLink): Promise<void> {
  const host = await prepare(root, l.path);
  const target = l.target!;
  const st = await lstatOrUndefined(host);
  if (l.hard) {
    const targetPath = target.startsWith('/') ? target : posix.join(posix.dirname(l.path), target);
    const targetHost = await resolveInRoot(root, targetPath);
    const tst = await lstat(targetHost).catch(() => undefined);
    if (!tst) throw new Error(`hard link target ${JSON.stringify(targetPath)} does not exist`);
    if (st && l.overwrite !== true) {
      if (st.ino === tst.ino && st.dev === tst.dev) return;
      throw new Error('a file already exists at that path but is not the target and overwrite is false');
    }
    if (st) await rm(host, { recursive: true, force: true });
    await link(targetHost, host);
    return;
  }
  const written = linkTarget(l.path, target);
  if (st && l.overwrite !== true) {
    if (!st.isSymbolicLink()) throw new Error('a non-symlink already exists at that path and overwrite is false');
    const existing = await readlink(host);
    if (posix.normalize(existing) === posix.normalize(written)) return;
    throw new Error(`a symlink exists at that path but points to ${existing}, not ${target}, and overwrite is false`);
  }
  if (st) await rm(host, { recursive: true, force: true });
  await symlink(written, host);
}

async function writeUnit(root: string, u: IgnitionUnit, skipped: string[]): Promise<void> {
  const path = unitPath(u.name);
  for (const d of u.dropins ?? []) {
    if (d.contents !== undefined) await writeFileAtomic(await prepare(root, `${path}.d/${d.name}`), d.contents, 0o644);
  }
  if (u.mask) {
    if (u.contents !== undefined) skipped.push(`unit ${u.name}: contents (the unit is masked)`);
    await maskUnit(root, u.name);
  } else if (u.contents !== undefined) {
    await writeFileAtomic(await prepare(root, path), u.contents, 0o644);
  }
  if (u.enabled === undefined) return;
  if (!u.enabled) return disableUnit(root, u.name);
  // Without contents of its own the unit is a vendor one, as `systemctl enable` would find it.
  const target = u.contents !== undefined || u.mask ? path : `${vendorUnitDir}/${u.name}`;
  await enableUnit(root, u.name, u.contents, target);
}
