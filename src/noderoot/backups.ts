/**
 * What was on the node before a config took a path over. The first write over a file that is
 * not ours (no config of the node named it) keeps the file as
 * `etc/machine-config-daemon/orig/<path>.mcdorig`, where the MCO keeps it; when a later config
 * drops the path the backup goes back, and a path that was ours from the start is removed. The
 * backups live in a directory of their own, not beside the file, so that a directory read as a
 * whole (the kubelet's static pod manifests, `systemd`'s unit directory) never sees them.
 *
 * When nothing was there, an empty `etc/machine-config-daemon/noorig/<path>.mcdnoorig` stamp
 * says so, before the write: a daemon killed after writing and before recording its new config
 * runs the update again, finds the file it wrote, and must not take it for the original.
 *
 * A path is ours when the config the node runs names it: then its contents are what that
 * config wrote (or a hand edit of it, which is not worth keeping). The MCO decides this from rpm
 * ownership instead, and so once backed up its own first-boot files (its bug 1814397).
 */
import { chmod, copyFile, readlink, rename, rm } from 'node:fs/promises';
import { lstatOrUndefined, prepare, removeFile, stagingPath, symlinkAtomic, writeFileAtomic } from './fs.ts';
import { resolveInRoot } from './paths.ts';

export const origDir = '/etc/machine-config-daemon/orig';

export const noOrigDir = '/etc/machine-config-daemon/noorig';

export function origPath(path: string): string {
  return `${origDir}${path}.mcdorig`;
}

export function noOrigPath(path: string): string {
  return `${noOrigDir}${path}.mcdnoorig`;
}

/** Keeps what is at `path` unless it is ours or already kept; true when a backup was made now. */
export async function keepOriginal(root: string, path: string, ours: boolean): Promise<boolean> {
  if (ours) return false;
  // The first record is the original; a later one would be a config's file.
  if ((await lstatOrUndefined(await resolveInRoot(root, origPath(path)))) || (await lstatOrUndefined(await resolveInRoot(root, noOrigPath(path))))) return false;
  const host = await resolveInRoot(root, path);
  const st = await lstatOrUndefined(host);
  if (!st) {
    await writeFileAtomic(await prepare(root, noOrigPath(path)), '', 0o644);
    return false;
  }
  if (st.isDirectory()) return false;
  const orig = await prepare(root, origPath(path));
  if (st.isSymbolicLink()) {
    await symlinkAtomic(await readlink(host), orig);
    return true;
  }
  const tmp = stagingPath(orig);
  await rm(tmp, { force: true });
  await copyFile(host, tmp);
  await chmod(tmp, st.mode & 0o7777);
  await rename(tmp, orig);
  return true;
}

/** A path a config no longer names: its original back if one was kept, else gone. */
export async function restoreOrRemove(root: string, path: string): Promise<'restored' | 'removed' | 'absent'> {
  const orig = await resolveInRoot(root, origPath(path));
  if (await lstatOrUndefined(orig)) {
    await rename(orig, await prepare(root, path));
    return 'restored';
  }
  const removed = await removeFile(await resolveInRoot(root, path));
  // The stamp goes last: killed before, a second run still knows the file was never the node's.
  await removeFile(await resolveInRoot(root, noOrigPath(path)));
  return removed ? 'removed' : 'absent';
}
