/**
 * Paths inside a node's root directory. A node root is the node's `/`: a config path such as
 * `/etc/kubernetes/kubelet.conf` lives at `<root>/etc/kubernetes/kubelet.conf`, and a symlink in
 * the root is followed as the node would follow it — an absolute target from the root, not from
 * the host's `/`. Resolution refuses anything that would end up outside the root (a `..` past
 * `/`, a link pointing out), so writing a node's files can never touch the host's.
 */
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';

const maxLinks = 40;

export class RootEscapeError extends Error {
  constructor(path: string, detail: string) {
    super(`path ${JSON.stringify(path)} escapes the node root: ${detail}`);
    this.name = 'RootEscapeError';
  }
}

/**
 * The host path for `path` (absolute, in the node's view) under `root`. Symlinks on the way are
 * followed inside the root; the last component is followed only with `followFinal`, because
 * creating a file or link replaces a link there rather than writing through it.
 */
export async function resolveInRoot(root: string, path: string, options: { followFinal?: boolean } = {}): Promise<string> {
  const done: string[] = [];
  const pending = split(path);
  let links = 0;
  while (pending.length > 0) {
    const seg = pending.shift()!;
    if (seg === '..') {
      if (done.length === 0) throw new RootEscapeError(path, '".." above "/"');
      done.pop();
      continue;
    }
    const isFinal = pending.length === 0;
    const candidate = join(root, ...done, seg);
    const st = await lstat(candidate).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
      throw err;
    });
    if (!st?.isSymbolicLink() || (isFinal && !options.followFinal)) {
      done.push(seg);
      continue;
    }
    if (++links > maxLinks) throw new Error(`path ${JSON.stringify(path)}: too many levels of symbolic links`);
    const target = await readlink(candidate);
    if (target.startsWith('/')) done.length = 0;
    pending.unshift(...split(target));
  }
  return join(root, ...done);
}

function split(p: string): string[] {
  return p.split('/').filter((s) => s !== '' && s !== '.');
}
