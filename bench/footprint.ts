/**
 * `npm run bench -- footprint`: what a default local datacenter costs the machine.
 *
 * Runs `shipyard up` (the compiled CLI, as `npm start` does) on an empty temporary data
 * directory, default shape (3 masters, 2 workers) on ports of its own, and times it from the
 * spawn to ClusterVersion `Available=True` (read from the API server every 250 ms). After an
 * idle settle it samples, over a window, every process of the cluster: the `shipyard up`
 * process and all its descendants (the pods' process groups, the reaper). It prints each
 * process's idle RSS (the median of its samples), named by its pod (or component) and node,
 * their total and median, the PSS total (RSS counts the pages the processes share, Node's own
 * code among them, once per process), and the CPU cores the cluster used over the window.
 * It ends with the ratios against the targets: Available < 20 s, total RSS < 2 GiB, median
 * process < 70 MiB (a ratio below 1 holds).
 *
 * Settings: SHIPYARD_BENCH_SETTLE_MS (idle pause after Available, default 20 s),
 * SHIPYARD_BENCH_IDLE_MS (the sampled window, default 30 s), SHIPYARD_BENCH_API_PORT and
 * SHIPYARD_BENCH_CLOUD_PORT (default 15443, 15080), SHIPYARD_BENCH_UP_ARGS (extra `shipyard up`
 * flags, e.g. `--workers 0`). Node addresses (127.1.0.x) are fixed, so only one datacenter runs on
 * a machine: the benchmark refuses to start while one listens there. The cluster is stopped on
 * every way out (SIGINT to `shipyard up`, then SIGKILL to every process group it had).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiClient } from '../src/runtime/client.ts';

const TARGET_AVAILABLE_S = 20;
const TARGET_TOTAL_BYTES = 2 * 1024 ** 3;
const TARGET_MEDIAN_BYTES = 70 * 1024 ** 2;
const SETTLE_MS = Number(process.env.SHIPYARD_BENCH_SETTLE_MS ?? 20_000);
const IDLE_MS = Number(process.env.SHIPYARD_BENCH_IDLE_MS ?? 30_000);
const SAMPLE_MS = 2_000;
const API_PORT = Number(process.env.SHIPYARD_BENCH_API_PORT ?? 15443);
const CLOUD_PORT = Number(process.env.SHIPYARD_BENCH_CLOUD_PORT ?? 15080);
const UP_ARGS = (process.env.SHIPYARD_BENCH_UP_ARGS ?? '').split(/\s+/).filter(Boolean);
const AVAILABLE_TIMEOUT_MS = 300_000;
const STOP_GRACE_MS = 30_000;
const MiB = 1024 ** 2;
const repo = fileURLToPath(new URL('../', import.meta.url));
const TICKS_PER_SECOND = 100;

interface ProcSample {
  pid: number;
  ppid: number;
  pgid: number;
  cpuTicks: number;
  rssBytes: number;
  pssBytes: number;
}

function readProc(pid: number, withPss: boolean): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    let pss = rss;
    if (withPss) {
      try {
        pss = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
      } catch {
        // No smaps_rollup (old kernel, or not ours): count its RSS.
      }
    }
    return { pid, ppid: Number(f[1]), pgid: Number(f[2]), cpuTicks: Number(f[11]) + Number(f[12]), rssBytes: rss, pssBytes: pss };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** `root` and every process descended from it. */
function processTree(root: number, withPss = false): ProcSample[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: ProcSample[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    const s = readProc(pid, withPss);
    if (!s) continue;
    out.push(s);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** A process's name: its pod (from the pod directory it runs in) or what it runs, and its node; a helper process is named by its group's leader. */
function nameOf(pid: number, upPid: number, podNames: ReadonlyMap<string, string>, pgid: number): string {
  if (pid === upPid) return 'shipyard up (cloud, load balancer, kubelets)';
  let args: string[] = [];
  let cwd = '';
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // exited meanwhile
  }
  const cmdline = args.join(' ');
  if (cmdline.includes('shipyard-reaper')) return 'reaper';
  const component = /bin\/components\/([^/ ]+)\.js/.exec(cmdline)?.[1];
  if (!component && pgid !== pid) return `${nameOf(pgid, upPid, podNames, pgid)}: ${basename(args[0] ?? '?')}`;
  const node = /\/nodes\/([^/]+)\//.exec(cwd)?.[1];
  const uid = /\/pods\/([^/]+)\//.exec(cwd)?.[1];
  const pod = uid ? podNames.get(uid) : undefined;
  return `${pod ?? component ?? cmdline.slice(0, 60)}${node ? ` @${node}` : ''}`;
}

/** Pod uid → `namespace/name`; a mirror pod also under its static pod's uid (what the kubelet's directory is named by). */
async function podNamesBy(client: ApiClient): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const list = await client.request<{ items: { metadata: { uid: string; name: string; namespace: string; annotations?: Record<string, string> } }[] }>('GET', '/api/v1/pods');
  for (const p of list.items) {
    const name = `${p.metadata.namespace}/${p.metadata.name}`;
    out.set(p.metadata.uid, name);
    const mirror = p.metadata.annotations?.['kubernetes.io/config.mirror'];
    if (mirror) out.set(mirror, name);
  }
  return out;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const mib = (b: number): string => (b / MiB).toFixed(0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Another datacenter on this machine: a `shipyard up` process, or a listener on the nodes' addresses (127.1.0.x). */
function otherDatacenter(): string | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const at = args.findIndex((a) => /(^|\/)(shipyard(\.js)?)$/.test(a));
      if (at >= 0 && args[at + 1] === 'up') return `\`shipyard up\` runs as pid ${name}`;
    } catch {
      // exited meanwhile
    }
  }
  // /proc/net/tcp: 127.1.0.x is xx00017F in its little-endian hex; state 0A is LISTEN.
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, , st] = line.trim().split(/\s+/);
    if (st === '0A' && local && /^[0-9A-F]{2}00017F:/.test(local)) return `something listens on 127.1.0.${parseInt(local.slice(0, 2), 16)}`;
  }
  return undefined;
}

export async function run(): Promise<void> {
  const other = otherDatacenter();
  if (other) throw new Error(`another Shipyard datacenter is running (${other}); only one can run on a machine (node addresses 127.1.0.x are fixed): stop it first`);
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-footprint-'));
  const progress = (msg: string): void => void process.stderr.write(`[footprint ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  let up: ChildProcess | undefined;
  let output = '';
  /** Every process group seen in the cluster, for the last-resort SIGKILL. */
  const groups = new Set<number>();
  const killGroups = (): void => {
    for (const g of groups) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (up?.pid) groups.add(up.pid);
    for (const p of up?.pid ? processTree(up.pid) : []) groups.add(p.pgid);
    killGroups();
    rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', killGroups);
  let client: ApiClient | undefined;
  try {
    const started = performance.now();
    up = spawn(process.execPath, ['bin/shipyard.js', 'up', '--data-dir', dir, '--api-port', String(API_PORT), '--cloud-port', String(CLOUD_PORT), ...UP_ARGS], {
      cwd: repo,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_LOG_LEVEL ?? 'info' },
    });
    groups.add(up.pid!);
    const keep = (c: Buffer): void => void (output = (output + c.toString('utf8')).slice(-20_000));
    up.stdout!.on('data', keep);
    up.stderr!.on('data', keep);
    let exited: string | undefined;
    up.once('exit', (code, signal) => (exited = signal ?? `code ${code}`));
    const upPid = up.pid!;
    progress(`shipyard up (pid ${upPid}) in ${dir}, API on 127.0.0.1:${API_PORT}`);

    // Time to ClusterVersion Available, as a client sees it.
    const kubeconfigPath = join(dir, 'kubeconfig');
    let availableS = NaN;
    for (let poll = 0; ; poll++) {
      if (exited) throw new Error(`shipyard up exited (${exited}) before ClusterVersion was Available; its output:\n${output}`);
      const elapsed = performance.now() - started;
      if (elapsed > AVAILABLE_TIMEOUT_MS) throw new Error(`ClusterVersion not Available after ${AVAILABLE_TIMEOUT_MS / 1000} s; shipyard up's output:\n${output}`);
      if (poll % 8 === 0) for (const p of processTree(upPid)) groups.add(p.pgid);
      if (!client && existsSync(kubeconfigPath)) {
        const kc = new KubeConfig();
        kc.loadFromFile(kubeconfigPath);
        client = new ApiClient(kc, { userAgent: 'bench-footprint' });
      }
      const cv = await client
        ?.request<{ status?: { conditions?: { type: string; status: string }[] } }>('GET', '/apis/config.openshift.io/v1/clusterversions/version')
        .catch(() => undefined);
      if (cv?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True')) {
        availableS = (performance.now() - started) / 1000;
        break;
      }
      await sleep(250);
    }
    progress(`ClusterVersion Available after ${availableS.toFixed(1)} s; settling ${SETTLE_MS / 1000} s`);
    const podNames = await podNamesBy(client!);
    client!.close();
    client = undefined;
    await sleep(SETTLE_MS);

    // The idle window: RSS sampled every 2 s (each process's median kept), CPU from its start to its end.
    progress(`sampling ${IDLE_MS / 1000} s of idle`);
    const rss = new Map<number, number[]>();
    const pss = new Map<number, number[]>();
    const firstTicks = new Map<number, number>();
    const lastTicks = new Map<number, number>();
    const windowStart = performance.now();
    for (let round = 0; ; round++) {
      if (exited) throw new Error(`shipyard up exited (${exited}) during the idle window; its output:\n${output}`);
      for (const p of processTree(upPid, true)) {
        groups.add(p.pgid);
        rss.set(p.pid, [...(rss.get(p.pid) ?? []), p.rssBytes]);
        pss.set(p.pid, [...(pss.get(p.pid) ?? []), p.pssBytes]);
        // A process born within the window is counted from its start.
        if (!firstTicks.has(p.pid)) firstTicks.set(p.pid, round === 0 ? p.cpuTicks : 0);
        lastTicks.set(p.pid, p.cpuTicks);
      }
      if (performance.now() - windowStart >= IDLE_MS) break;
      await sleep(SAMPLE_MS);
    }
    const windowS = (performance.now() - windowStart) / 1000;
    // Processes present at the end of the window are the cluster at idle (a pod that exited within it is gone).
    const final = processTree(upPid);
    const rows = final
      .filter((p) => rss.has(p.pid))
      .map(({ pid, pgid }) => ({ pid, name: nameOf(pid, upPid, podNames, pgid), rss: median(rss.get(pid)!), pss: median(pss.get(pid)!) }))
      .sort((a, b) => b.rss - a.rss);
    const cpuTicks = [...lastTicks].reduce((a, [pid, t]) => a + t - (firstTicks.get(pid) ?? t), 0);
    const cores = cpuTicks / TICKS_PER_SECOND / windowS;
    const total = rows.reduce((a, r) => a + r.rss, 0);
    const totalPss = rows.reduce((a, r) => a + r.pss, 0);
    const med = median(rows.map((r) => r.rss));

    console.log(`time to ClusterVersion Available: ${availableS.toFixed(1)} s (from the spawn of shipyard up, default shape unless SHIPYARD_BENCH_UP_ARGS: ${UP_ARGS.join(' ') || 'none'})`);
    console.log(`idle (${SETTLE_MS / 1000} s settle, ${windowS.toFixed(0)} s window): ${rows.length} processes, total RSS ${mib(total)} MiB (PSS ${mib(totalPss)} MiB), median ${mib(med)} MiB, CPU ${cores.toFixed(3)} cores`);
    for (const r of rows) console.log(`  ${mib(r.rss).padStart(5)} MiB  (PSS ${mib(r.pss).padStart(4)})  pid ${String(r.pid).padEnd(7)} ${r.name}`);
    console.log(`available ratio: ${(availableS / TARGET_AVAILABLE_S).toFixed(2)} (target < ${TARGET_AVAILABLE_S} s)`);
    console.log(`total RSS ratio: ${(total / TARGET_TOTAL_BYTES).toFixed(2)} (target < 2 GiB)`);
    console.log(`median process ratio: ${(med / TARGET_MEDIAN_BYTES).toFixed(2)} (target < 70 MiB)`);
  } finally {
    client?.close();
    if (up?.pid) {
      for (const p of processTree(up.pid)) groups.add(p.pgid);
      if (up.exitCode === null && up.signalCode === null) {
        progress('stopping the cluster');
        const gone = new Promise<void>((r) => up!.once('exit', () => r()));
        try {
          process.kill(up.pid, 'SIGINT');
        } catch {
          // already gone
        }
        await Promise.race([gone, sleep(STOP_GRACE_MS)]);
      }
    }
    killGroups();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('exit', killGroups);
    rmSync(dir, { recursive: true, force: true });
  }
}
