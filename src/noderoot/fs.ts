/**
 * The few file operations every node-root writer is built from. Files and links replace what is
 * at their path with one `rename`, so a process killed mid-write leaves the old node or the new
 * one, never half of either; the temporary name starts with a dot, because the kubelet skips
 * dot files in its manifest directory and nothing else reads them. Absolute link targets are
 * stored relative to the link, so the host following one never leaves the root; `/dev/null`
 * (a masked unit) is kept as it is.
 */
import { chmod, lstat, mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { resolveInRoot } from './paths.ts';

export async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  return lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
}

/** The host path of `path` in the root, with its parent directories made (0755, Ignition's and the MCO's default). */
export async function prepare(root: string, path: string): Promise<string> {
  const host = await resolveInRoot(root, path);
  await mkdir(dirname(host), { recursive: true, mode: 0o755 });
  return host;
}

/** Where a write to `host` is staged: beside it (same file system, so `rename` is atomic), hidden. */
export function stagingPath(host: string): string {
  return join(dirname(host), `.${basename(host)}.shipyard-tmp`);
}

/**
 * Replaces whatever is at `host` (a file, a link, an empty spot) with a file of `data` and
 * `mode`. The mode is set before the data is written, since the data may be a secret.
 */
export async function writeFileAtomic(host: string, data: string | Uint8Array, mode: number): Promise<void> {
  const tmp = stagingPath(host);
  await rm(tmp, { force: true });
  await writeFile(tmp, '', { mode });
  // writeFile's mode is filtered by the umask; the config's mode is not.
  await chmod(tmp, mode);
  await writeFile(tmp, data);
  await renameOver(tmp, host);
}

/** Replaces whatever is at `host` with a symlink to `target`, written as given. */
export async function symlinkAtomic(target: string, host: string): Promise<void> {
  const tmp = stagingPath(host);
  await rm(tmp, { force: true });
  await symlink(target, tmp);
  await renameOver(tmp, host);
}

/** `rename` cannot replace a directory with a file; a directory in the way goes first. */
async function renameOver(tmp: string, host: string): Promise<void> {
  const st = await lstatOrUndefined(host);
  if (st?.isDirectory()) await rm(host, { recursive: true, force: true });
  try {
    await rename(tmp, host);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Removes a file or link; absent is fine (the state wanted). */
export async function removeFile(host: string): Promise<boolean> {
  try {
    await unlink(host);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
}

/** Absolute targets become relative to the link, so the host never follows one out of the root. */
export function linkTarget(path: string, target: string): string {
  if (!target.startsWith('/') || target === '/dev/null') return target;
  return posix.relative(posix.dirname(path), target) || '.';
}
