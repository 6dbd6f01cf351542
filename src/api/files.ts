/**
 * Files other processes read while they may be rewritten: a kubeconfig that kubectl reads while
 * another API server replica on the same data directory writes it, a pod IP table, a reboot
 * request. Each is written beside its final path under a name of its own, then put in place in
 * one step, so a reader sees the old file or the new one, never a truncated one.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';

function tempPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Replaces `path` whole (the mode applies to a new file, as writeFileSync's does). */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates `path` with `data` unless it exists, whole or not at all: false when another writer
 * (a replica starting beside this one) got there first, whose file is then the one to use.
 */
export function createFileOnce(path: string, data: string | Uint8Array, mode = 0o644): boolean {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, data, { mode });
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}
