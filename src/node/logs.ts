/**
 * Container logs on the node, in the CRI file format (`<RFC3339Nano> <stream> F <line>`), so
 * they can be served with or without timestamps: `<nodeDir>/logs/<ns>_<pod>_<uid>/<container>/`
 * holds `current.log` and, after a restart, `previous.log` (what `kubectl logs --previous` reads).
 */
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export function containerLogDir(nodeDir: string, pod: { namespace: string; name: string; uid: string }, container: string): string {
  return join(nodeDir, 'logs', `${pod.namespace}_${pod.name}_${pod.uid}`, container);
}

export const currentLogPath = (dir: string): string => join(dir, 'current.log');
export const previousLogPath = (dir: string): string => join(dir, 'previous.log');

/** Keeps the last run's log as `previous.log` before a container starts again. */
export function rotateLog(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (existsSync(currentLogPath(dir))) renameSync(currentLogPath(dir), previousLogPath(dir));
}

export function criLine(stream: 'stdout' | 'stderr', line: string, now = new Date()): string {
  const iso = now.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
  return `${iso} ${stream} F ${line}\n`;
}

function render(line: string, timestamps: boolean): string | undefined {
  const m = /^(\S+) (stdout|stderr) [FP] (.*)$/.exec(line);
  if (!m) return undefined;
  return timestamps ? `${m[1]} ${m[3]}` : m[3]!;
}

/** The kubelet's bounds on a termination message taken from the log (FallbackToLogsOnError): 80 lines, 2 KiB. */
export const terminationLogTail = { maxLines: 80, maxBytes: 2048 } as const;

/**
 * The log's last lines, without the CRI prefixes, at most `maxLines` lines and `maxBytes` bytes
 * (the end is kept: the error is there); '' when there is no log. Synchronous and bounded, as
 * it runs once when a container exits.
 */
export function logTail(path: string, { maxLines, maxBytes }: { maxLines: number; maxBytes: number } = terminationLogTail): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  let text: string;
  let fromStart: boolean;
  try {
    const size = statSync(path).size;
    // Room for the content and each line's prefix (timestamp, stream, tag: under 48 bytes).
    const length = Math.min(size, maxBytes + maxLines * 48);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    text = buf.toString('utf8');
    fromStart = length === size;
  } finally {
    closeSync(fd);
  }
  const raw = text.split('\n');
  // A line the window cut keeps its end: it is content unless the cut fell in its prefix.
  const lines = raw.map((l, i) => render(l, false) ?? (i === 0 && !fromStart ? l : undefined)).filter((l): l is string => l !== undefined);
  const tail = lines.slice(-maxLines).join('\n');
  const bytes = Buffer.from(tail, 'utf8');
  return bytes.length <= maxBytes ? tail : bytes.subarray(bytes.length - maxBytes).toString('utf8');
}

export interface ReadLogOptions {
  tailLines?: number;
  timestamps?: boolean;
  limitBytes?: number;
  follow?: boolean;
  signal?: AbortSignal;
  /** While following, how often to look for new lines. */
  pollMs?: number;
}

/** Yields the log's lines (each ending in \n); with `follow`, keeps yielding until the signal aborts. */
export async function* readLog(path: string, opts: ReadLogOptions = {}): AsyncGenerator<string> {
  let sent = 0;
  const limit = opts.limitBytes ?? Infinity;
  let offset = 0;
  const lines: string[] = [];
  if (existsSync(path)) {
    const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const raw of rl) {
      const text = render(raw, opts.timestamps ?? false);
      if (text !== undefined) lines.push(text);
      if (opts.tailLines !== undefined && lines.length > opts.tailLines) lines.shift();
    }
    offset = statSync(path).size;
  }
  for (const l of opts.tailLines === 0 ? [] : lines) {
    const out = `${l}\n`;
    if (sent + out.length > limit) return;
    sent += out.length;
    yield out;
  }
  if (!opts.follow) return;
  let partial = '';
  while (!opts.signal?.aborted) {
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
    if (!existsSync(path)) continue;
    const size = statSync(path).size;
    if (size < offset) offset = 0; // rotated: a restarted container writes a new file
    if (size === offset) continue;
    const chunk = await new Promise<string>((resolve, reject) => {
      let data = '';
      createReadStream(path, { start: offset, end: size - 1, encoding: 'utf8' })
        .on('data', (c) => (data += c as string))
        .on('end', () => resolve(data))
        .on('error', reject);
    });
    offset = size;
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const raw of parts) {
      const text = render(raw, opts.timestamps ?? false);
      if (text === undefined) continue;
      const out = `${text}\n`;
      if (sent + out.length > limit) return;
      sent += out.length;
      yield out;
    }
  }
}
