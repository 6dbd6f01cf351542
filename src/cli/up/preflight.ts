/**
 * Before `shipyard up` starts anything, every address it is about to listen on must be free.
 * A second cluster whose nodes got the same addresses as a running one used to boot "fine" and
 * then show its nodes `not registered` for minutes, its kubelets and API server quietly losing
 * to the first cluster's (issue 13). So a taken address is an error at once, naming the
 * address, what needed it and, where the holder can be read from /proc, the process and the
 * data directory of the cluster that holds it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { DATACENTER_ENV } from './reaper.ts';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** What would listen there, for the message: "the load balancer (--api-port)", "node master-0's kubelet". */
  readonly what: string;
}

/** 'free', 'taken', or 'denied' (a port below 1024 without the privilege: nothing to check). */
function probe(e: Endpoint): Promise<'free' | 'taken' | 'denied'> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve('taken');
      else if (err.code === 'EACCES') resolve('denied');
      else reject(new Error(`cannot check ${e.host}:${e.port} (${e.what}): ${err.message}`));
    });
    server.listen({ host: e.host, port: e.port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

/** /proc/net/tcp writes an IPv4 address as little-endian hex, the port as big-endian hex. */
function procAddress(host: string, port: number): string {
  const ip = host
    .split('.')
    .map((o) => Number(o).toString(16).padStart(2, '0').toUpperCase())
    .reverse()
    .join('');
  return `${ip}:${port.toString(16).padStart(4, '0').toUpperCase()}`;
}

/** The listening socket's inode for host:port (or 0.0.0.0:port), if /proc shows it. */
function listenerInode(host: string, port: number): string | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  const wanted = new Set([procAddress(host, port), procAddress('0.0.0.0', port)]);
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // f[1] local address, f[3] state (0A = LISTEN), f[9] inode.
    if (f.length > 9 && f[3] === '0A' && wanted.has(f[1]!)) return f[9];
  }
  return undefined;
}

interface Holder {
  readonly pid: number;
  readonly command: string;
  readonly dataDir?: string;
}

function holderOf(inode: string): Holder | undefined {
  const target = `socket:[${inode}]`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      if (link !== target) continue;
      const pid = Number(entry);
      const read = (f: string): string => {
        try {
          return readFileSync(`/proc/${pid}/${f}`, 'latin1');
        } catch {
          return '';
        }
      };
      const argv = read('cmdline').split('\0').filter(Boolean);
      const env = read('environ').split('\0');
      // A pod process carries its datacenter's marker; `shipyard up` itself names --data-dir.
      const marked = env.find((v) => v.startsWith(`${DATACENTER_ENV}=`))?.slice(DATACENTER_ENV.length + 1);
      const flag = argv.indexOf('--data-dir');
      const dataDir = marked ?? (flag >= 0 ? argv[flag + 1] : undefined);
      return { pid, command: argv.join(' ').slice(0, 160), ...(dataDir ? { dataDir } : {}) };
    }
  }
  return undefined;
}

function describe(e: Endpoint): string {
  const inode = listenerInode(e.host, e.port);
  const holder = inode ? holderOf(inode) : undefined;
  const base = `${e.host}:${e.port}, which ${e.what} needs, is already in use`;
  if (!holder) return base;
  const owner = holder.dataDir ? `, by the Shipyard cluster in ${holder.dataDir}` : '';
  return `${base}${owner} (pid ${holder.pid}: ${holder.command})`;
}

/** Whether every endpoint is free now (one that needs a privilege this process lacks counts as free). */
export async function endpointsFree(endpoints: readonly Endpoint[]): Promise<boolean> {
  for (const e of endpoints) if ((await probe(e)) === 'taken') return false;
  return true;
}

/** Throws one error listing every endpoint that is taken; resolves when all are free. */
export async function ensureEndpointsFree(endpoints: readonly Endpoint[]): Promise<void> {
  const taken: Endpoint[] = [];
  for (const e of endpoints) if ((await probe(e)) === 'taken') taken.push(e);
  if (!taken.length) return;
  const lines = taken.map((e) => `  ${describe(e)}`);
  throw new Error(`cannot start: ${taken.length === 1 ? 'an address this cluster needs is' : 'addresses this cluster needs are'} taken:\n${lines.join('\n')}\nStop the cluster holding ${taken.length === 1 ? 'it' : 'them'} (or, for the load balancer and cloud ports, choose others with --api-port / --cloud-port at creation).`);
}
