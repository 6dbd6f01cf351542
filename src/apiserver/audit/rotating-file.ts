/**
 * The audit log file: lines appended in the background, rotated by size and pruned by count
 * and age, the way kube-apiserver's log backend uses lumberjack (`--audit-log-maxsize`,
 * `--audit-log-maxbackup`, `--audit-log-maxage`). A rotated file is renamed
 * `<name>-<UTC time>.<ext>` beside the live one. `append` never waits on the disk: lines are
 * buffered and written by one writer at a time, so a slow disk delays the log, not requests;
 * `close` writes what is buffered.
 */
import { mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export interface RotatingFileOptions {
  readonly path: string;
  /** Megabytes the file may reach before it is rotated; 0: lumberjack's default, 100. */
  readonly maxSizeMegabytes?: number;
  /** Rotated files kept; 0: all. */
  readonly maxBackups?: number;
  /** Days a rotated file is kept; 0: no limit. */
  readonly maxAgeDays?: number;
  readonly now?: () => number;
  /** Told of a failed write; the lines are lost (the server keeps serving, as kube's does). */
  readonly onError?: (err: Error) => void;
  /** Lines buffered at most while the disk lags; beyond it lines are dropped and counted. */
  readonly maxBufferedLines?: number;
}

const MB = 1024 * 1024;

/** lumberjack's backup time format, 2006-01-02T15-04-05.000, in UTC. */
function backupStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '').replace(/:/g, '-');
}

export class RotatingFile {
  private readonly maxBytes: number;
  private readonly now: () => number;
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private handle: FileHandle | undefined;
  private size = 0;
  private lastStamp = '';
  /** Lines dropped because the buffer was full. */
  dropped = 0;

  constructor(private readonly options: RotatingFileOptions) {
    this.maxBytes = (options.maxSizeMegabytes || 100) * MB;
    this.now = options.now ?? Date.now;
  }

  append(line: string): void {
    if (this.pending.length >= (this.options.maxBufferedLines ?? 100_000)) {
      this.dropped++;
      return;
    }
    this.pending.push(line.endsWith('\n') ? line : `${line}\n`);
    this.writing ??= this.drain();
  }

  /** Resolves once everything appended so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle?.close();
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const lines = this.pending;
        this.pending = [];
        try {
          await this.write(lines);
        } catch (err) {
          this.options.onError?.(err as Error);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async write(lines: string[]): Promise<void> {
    // Lines go out in chunks that fit the size limit, so a rotation falls between lines; a
    // single line larger than the limit still goes into a file of its own.
    let chunk = '';
    let bytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (!this.handle) await this.openFile();
      if (this.size + bytes > 0 && this.size + bytes + n > this.maxBytes) {
        if (chunk) await this.writeChunk(chunk, bytes);
        chunk = '';
        bytes = 0;
        await this.rotate();
      }
      chunk += line;
      bytes += n;
    }
    if (chunk) await this.writeChunk(chunk, bytes);
  }

  private async writeChunk(chunk: string, bytes: number): Promise<void> {
    if (!this.handle) await this.openFile();
    await this.handle!.write(chunk);
    this.size += bytes;
  }

  private async openFile(): Promise<void> {
    await mkdir(dirname(this.options.path), { recursive: true, mode: 0o700 });
    // 0600: the log names users and objects; only the server's owner reads it.
    this.handle = await open(this.options.path, 'a', 0o600);
    this.size = (await this.handle.stat()).size;
  }

  private async rotate(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    const { path } = this.options;
    const ext = extname(path);
    let stamp = backupStamp(this.now());
    // Two rotations in one millisecond (a burst of large lines) must not overwrite a backup.
    if (stamp <= this.lastStamp) stamp = `${this.lastStamp}-1`;
    this.lastStamp = stamp;
    await rename(path, join(dirname(path), `${basename(path, ext)}-${stamp}${ext}`));
    await this.prune();
    await this.openFile();
  }

  /** The rotated files, newest first. */
  async backups(): Promise<string[]> {
    const { path } = this.options;
    const ext = extname(path);
    const prefix = `${basename(path, ext)}-`;
    const names = (await readdir(dirname(path))).filter((n) => n.startsWith(prefix) && n.endsWith(ext) && n !== basename(path));
    return names.sort().reverse().map((n) => join(dirname(path), n));
  }

  /** When a backup was rotated, from its name (as lumberjack reads it), not its mtime, which copying changes. */
  private rotatedAt(file: string): number {
    const m = /(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})/.exec(basename(file));
    return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : Infinity;
  }

  private async prune(): Promise<void> {
    const { maxBackups = 0, maxAgeDays = 0 } = this.options;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const cutoff = this.now() - maxAgeDays * 24 * 3600 * 1000;
    const all = await this.backups();
    for (const [i, file] of all.entries()) {
      const tooMany = maxBackups > 0 && i >= maxBackups;
      const tooOld = maxAgeDays > 0 && this.rotatedAt(file) < cutoff;
      if (tooMany || tooOld) await unlink(file).catch(() => undefined);
    }
  }
}
