/**
 * Commit notices between processes that share one SQLite store (API server replicas, issue 17).
 * A process learns of its own writes from its write path; another process's rows it could find
 * only by polling the file. Instead, each process owns a notice file, `<db>-notify/<pid>-<random>/
 * notice`, and after acknowledging a batch overwrites it with the batch's last revision; every
 * other process watches that file (inotify, through `fs.watch`), so the notice wakes it within a
 * millisecond or so to read the new rows. The notices are also what the durability fence trusts
 * (sqlite.ts): a revision a writer acknowledged was covered by an fsync that began after its
 * COMMIT, and every row below it had committed before, so all of them are on disk.
 *
 * Why files and inotify rather than sockets: Node has no Unix datagram sockets, the kernel fans a
 * change out to every watcher, and a notice left by a process that died is still true (it only
 * ever says what was already durable). Each process's file sits in a directory of its own, so
 * the watch on the parent (which finds peers coming and going) does not hear every write, and a
 * process never hears its own: a lone server pays one small write per batch. The directory is
 * renamed into place with its file already in it, so a peer that sees it can watch the file at
 * once. A peer's file is kept open and read on demand, so a read that must not miss a write
 * another replica acknowledged just before (sqlite.ts, reads at the current revision) costs one
 * pread per peer, not a wait for the watch.
 *
 * Inotify is the fast path only: a watch that cannot be set up (a full inotify table) or a
 * notice lost on the way leaves the store's periodic poll to find the rows, and `rescan` the peers.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, watch, writeSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** `<16 digits> <the same 16 digits>\n`: a read torn by a concurrent write has two different halves and is ignored. */
const DIGITS = 16;
export const NOTICE_BYTES = 2 * DIGITS + 2;

export function encodeNotice(revision: number): Buffer {
  const digits = String(revision).padStart(DIGITS, '0');
  return Buffer.from(`${digits} ${digits}\n`, 'latin1');
}

/** The revision a notice carries, or undefined for an empty, torn or foreign file. */
export function decodeNotice(bytes: Buffer): number | undefined {
  if (bytes.length !== NOTICE_BYTES) return undefined;
  const text = bytes.toString('latin1');
  const first = text.slice(0, DIGITS);
  if (!/^\d+$/.test(first) || text !== `${first} ${first}\n`) return undefined;
  return Number(first);
}

/** A process's directory: `<pid>-<8 hex>`; while being set up, `.<pid>-<8 hex>.tmp`. */
const NAME = /^(\d+)-[0-9a-f]{8}$/;
const STAGING = /^\.(\d+)-[0-9a-f]{8}\.tmp$/;
const FILE = 'notice';

export interface CommitNoticesOptions {
  /** The directory every process of the store shares (created if missing). */
  readonly dir: string;
  /** A peer announced something, or came or went. Must not throw. */
  readonly onNotice: () => void;
}

interface Peer {
  readonly fd: number;
  readonly watcher: FSWatcher | undefined;
}

export class CommitNotices {
  private readonly dir: string;
  private readonly own: string;
  private readonly ownFd: number;
  private readonly peers = new Map<string, Peer>();
  private readonly watcher: FSWatcher | undefined;
  private readonly buffer = Buffer.alloc(NOTICE_BYTES);
  private announced = 0;
  private closed = false;

  constructor(private readonly opts: CommitNoticesOptions) {
    this.dir = opts.dir;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
    const staging = join(this.dir, `.${id}.tmp`);
    mkdirSync(staging, { mode: 0o700 });
    this.ownFd = openSync(join(staging, FILE), 'w', 0o600);
    renameSync(staging, join(this.dir, id));
    this.own = id;
    // Watching before listing: a peer that starts in between is seen by one or the other.
    this.watcher = this.watchDirectory();
    this.rescan();
  }

  /** How many other processes have the store open, as far as this one knows. */
  get peerCount(): number {
    return this.peers.size;
  }

  /** After this process acknowledged writes up to `revision`. */
  announce(revision: number): void {
    if (this.closed || revision <= this.announced) return;
    this.announced = revision;
    try {
      writeSync(this.ownFd, encodeNotice(revision), 0, NOTICE_BYTES, 0);
    } catch {
      // A notice is an optimisation: peers find the rows through their poll.
    }
  }

  /** The highest revision any peer has announced (0 when none has), read from their files now. */
  highestAnnounced(): number {
    let highest = 0;
    for (const peer of this.peers.values()) {
      let n: number;
      try {
        n = readSync(peer.fd, this.buffer, 0, NOTICE_BYTES, 0);
      } catch {
        continue;
      }
      const revision = n === NOTICE_BYTES ? decodeNotice(this.buffer) : undefined;
      if (revision !== undefined && revision > highest) highest = revision;
    }
    return highest;
  }

  /**
   * Lists the directory again: picks up peers whose arrival the watch missed, lets go of those
   * whose directories are gone, and removes those of processes that no longer exist (killed
   * ones never remove their own; what their notices said stays true, but nobody need read it).
   */
  rescan(): void {
    if (this.closed) return;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const present = new Set(names);
    for (const name of this.peers.keys()) if (!present.has(name)) this.forget(name);
    for (const name of names) {
      if (name === this.own) continue;
      const pid = (NAME.exec(name) ?? STAGING.exec(name))?.[1];
      if (pid === undefined) continue;
      if (!alive(Number(pid))) {
        this.forget(name);
        rmSync(join(this.dir, name), { recursive: true, force: true });
      } else if (!this.peers.has(name) && NAME.test(name)) this.adopt(name);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    for (const name of [...this.peers.keys()]) this.forget(name);
    closeSync(this.ownFd);
    rmSync(join(this.dir, this.own), { recursive: true, force: true });
  }

  private watchDirectory(): FSWatcher | undefined {
    try {
      const watcher = watch(this.dir, { persistent: false }, (_event, name) => this.arrivedOrLeft(name));
      // The poll's rescan carries on without it.
      watcher.on('error', () => watcher.close());
      return watcher;
    } catch {
      return undefined;
    }
  }

  private arrivedOrLeft(name: string | null): void {
    if (this.closed || name === null || name === this.own || !NAME.test(name)) return;
    if (this.peers.has(name)) {
      if (!existsSync(join(this.dir, name))) this.forget(name);
    } else this.adopt(name);
    this.opts.onNotice();
  }

  private adopt(name: string): void {
    const path = join(this.dir, name, FILE);
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return; // gone again already
    }
    let watcher: FSWatcher | undefined;
    try {
      watcher = watch(path, { persistent: false }, () => this.opts.onNotice());
      watcher.on('error', () => watcher?.close());
    } catch {
      // Without a watch its notices are still read by every read and poll.
    }
    this.peers.set(name, { fd, watcher });
  }

  private forget(name: string): void {
    const peer = this.peers.get(name);
    if (!peer) return;
    this.peers.delete(name);
    peer.watcher?.close();
    closeSync(peer.fd);
  }
}

/** Whether a process exists (EPERM: it does, under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
