/**
 * Log lines as Kubernetes and OpenShift components print them (klog's text header), for the
 * components whose logs people read with `kubectl logs` and compare with what they know from
 * OpenShift: `I0816 06:58:42.985762    3240 update] Checking Reconcilable for config A to B`.
 * The machine-config daemon's log is the one the seed reads (shared/seeds/001), and a JSON
 * object per line there would bury the message people are looking for.
 *
 * It is a pino destination: the logger (runtime/logger.ts: levels, child bindings, redaction)
 * stays the same, and only the bytes written change. The header is the level letter (I, W, E,
 * F), month and day, local time to the microsecond, the process id, and the module that logged
 * (the `src` binding, else the component) where klog prints `file:line`; bound and passed
 * fields follow the message as klog's structured `key="value"` pairs.
 */
import pino, { type DestinationStream } from 'pino';

/** Fields every line carries that the header already says, or that say nothing to a reader. */
const HEADER_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'component', 'src']);

function letter(level: number): string {
  if (level >= 60) return 'F';
  if (level >= 50) return 'E';
  if (level >= 40) return 'W';
  return 'I';
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** klog's header time: month, day and wall-clock time of this host, to the microsecond. */
export function klogTime(epochMs: number): string {
  const d = new Date(epochMs);
  const micros = pad(d.getMilliseconds(), 3) + '000';
  return `${pad(d.getMonth() + 1)}${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${micros}`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v !== null && typeof v === 'object' && 'message' in v && typeof (v as { message: unknown }).message === 'string') return JSON.stringify((v as { message: string }).message);
  return JSON.stringify(v) ?? String(v);
}

/** One pino JSON record as a klog line (with its newline); a record that is not JSON is passed on as it is. */
export function klogLine(record: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.endsWith('\n') ? record : `${record}\n`;
  }
  const level = typeof o.level === 'number' ? o.level : 30;
  const time = typeof o.time === 'number' ? o.time : Date.now();
  const pid = typeof o.pid === 'number' ? o.pid : process.pid;
  const src = typeof o.src === 'string' ? o.src : typeof o.component === 'string' ? o.component : '';
  const fields = Object.entries(o)
    .filter(([k, v]) => !HEADER_FIELDS.has(k) && v !== undefined)
    .map(([k, v]) => ` ${k}=${value(v)}`)
    .join('');
  const msg = typeof o.msg === 'string' ? o.msg : '';
  // Seven columns for the id, as klog pads the thread id.
  return `${letter(level)}${klogTime(time)} ${String(pid).padStart(7)} ${src}] ${msg}${fields}\n`;
}

/**
 * A pino destination writing klog lines to a file descriptor (1, stdout, by default) or a
 * stream, synchronously through pino's own destination, which copes with a full pipe.
 */
export function klogDestination(to: number | DestinationStream = 1): DestinationStream {
  const out = typeof to === 'number' ? pino.destination({ dest: to, sync: true }) : to;
  return {
    write(chunk: string): void {
      // pino hands over one record per call, ending in a newline.
      for (const record of chunk.split('\n')) if (record) out.write(klogLine(record));
    },
  };
}
