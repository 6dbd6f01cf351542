/**
 * Noticing a hand edit of a file the node's config manages, within seconds, as the MCO's config
 * drift monitor does with fsnotify. Here the managed paths are looked at on a timer (the
 * daemon's clock), each by `lstat` only: a change of contents, mode, size or inode (every
 * atomic write is a new inode) changes the fingerprint, and the daemon then validates the whole
 * config, which says what differs in the MCO's words. Polling costs a stat per file every few
 * seconds, works the same on any file system, and a FakeClock drives it in tests.
 */
import type { Stats } from 'node:fs';
import { lstatOrUndefined, managedPaths, resolveInRoot, type NodeConfig } from '../../../noderoot/index.ts';

function stamp(st: Stats | undefined): string {
  if (!st) return '-';
  return `${st.ino}:${st.mode}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** One string that changes whenever any managed path of `config` changes on disk. */
export async function fingerprint(root: string, config: NodeConfig): Promise<string> {
  const parts: string[] = [];
  for (const path of [...managedPaths(config)].sort()) {
    let st: Stats | undefined;
    try {
      st = await lstatOrUndefined(await resolveInRoot(root, path));
    } catch {
      // A path that cannot be resolved (a link out of the root) is a drift validation will name.
      st = undefined;
    }
    parts.push(`${path}=${stamp(st)}`);
  }
  return parts.join('\n');
}

/**
 * Remembers the fingerprint of the config last validated; `changed()` is true once what is on
 * disk no longer matches it. Before any config is known it never reports a change.
 */
export class DriftWatch {
  private config: NodeConfig | undefined;
  private last: string | undefined;

  constructor(private readonly root: string) {}

  /** The config the node now runs, and what its files look like just before it is validated. */
  async watch(config: NodeConfig): Promise<void> {
    this.config = config;
    this.last = await fingerprint(this.root, config);
  }

  /** Stops looking (an update is rewriting the files). */
  stop(): void {
    this.config = undefined;
    this.last = undefined;
  }

  async changed(): Promise<boolean> {
    if (!this.config) return false;
    const now = await fingerprint(this.root, this.config);
    if (now === this.last) return false;
    this.last = now;
    return true;
  }
}
