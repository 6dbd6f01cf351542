/**
 * `npm run bench -- nodes`: how many hollow nodes one machine's control plane holds.
 *
 * The API server, controller-manager and scheduler run as their own processes, exactly as
 * `shipyard up` runs them; this process hosts the kubelets (inline, one node host, simulated
 * runtime), whose Leases are renewed every 10 s on the host's heartbeat thread with connections
 * of its own, as `shipyard up` renews them (kube's kubelet renews from a goroutine of its own,
 * through a heartbeat client of its own). Each stage adds nodes, waits until all are Ready,
 * gives every node 30 simulated pods (30 DaemonSets), lets the control plane settle, then
 * measures a steady window: the latency of the Lease renewals sent in it as the kubelets see
 * it, and the control plane's CPU seconds and peak RSS from /proc. The same renewals are also
 * read as the API server timed them (its request-latency histogram), which is where Kubernetes
 * measures its latency SLO; the kubelets' own view, timed on the heartbeat thread, is what is
 * judged: it counts waits for a connection and for this machine's CPU, not the pauses of the
 * thread running the kubelets' pods, which are reported beside it (host event-loop delay and
 * GC). Stages grow until heartbeat p99 reaches 1 s (or a renewal fails), the control plane
 * passes 4 GiB, or the largest stage is done; the figure judged is the largest node count that
 * held, against the 5,000-node target, with its RSS against 4 GiB.
 *
 * Settings: SHIPYARD_BENCH_NODES (stages, default 1000,2000,3500,5000), SHIPYARD_BENCH_STEADY_MS
 * (steady window, default 60 s), SHIPYARD_BENCH_SETTLE_MS (pause between the last pod Running
 * and the window, default 15 s), SHIPYARD_BENCH_NODE_ARGS (extra `node` flags for the three
 * control-plane processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). Progress goes to stderr,
 * figures to stdout. Every process started here runs in its own process group, which is
 * killed on the way out, whatever the way out is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { ApiClient } from '../src/runtime/client.ts';
import type { DeepReadonly } from '../src/runtime/readonly.ts';
import { InformerFactory } from '../src/runtime/informer-factory.ts';
import { resources } from '../src/runtime/resources.ts';
import { createNodeHost } from '../src/node/node-host.ts';
import { createSimulatedRuntime } from '../src/node/runtimes/simulated.ts';
import { Processes } from './processes.ts';
import { Latencies } from './stats.ts';

const PODS_PER_NODE = 30;
const TARGET_NODES = 5000;
const STEADY_MS = Number(process.env.SHIPYARD_BENCH_STEADY_MS ?? 60_000);
const SETTLE_MS = Number(process.env.SHIPYARD_BENCH_SETTLE_MS ?? 15_000);
const STAGES = (process.env.SHIPYARD_BENCH_NODES ?? '1000,2000,3500,5000').split(',').map(Number);
const NODE_ARGS = (process.env.SHIPYARD_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const RSS_LIMIT = 4 * 1024 ** 3;
const MiB = 1024 ** 2;
const NAMES = ['apiserver', 'controller-manager', 'scheduler'] as const;

interface ProcStat {
  cpuSeconds: number;
  hwmBytes: number;
  rssBytes: number;
}

function procStat(pid: number): ProcStat {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds: ticks / 100, hwmBytes: kb('VmHWM'), rssBytes: kb('VmRSS') };
}

interface StageResult {
  nodes: number;
  /** Pods this stage added (the earlier stages' are already running). */
  newPods: number;
  readySeconds: number;
  podsSeconds: number;
  heartbeats: number;
  failedBeats: number;
  p50: number;
  p99: number;
  hostLagP99Ms: number;
  hostLagMaxMs: number;
  /** The host's longest garbage-collection pause in the window. */
  hostGcMaxMs: number;
  /** The host's time in garbage-collection pauses in the window. */
  hostGcMs: { major: number; minor: number };
  /** Lease PATCHes as the API server timed them (see serverSide). */
  server: { count: number; within1s: number; p99Bound: number };
  cpuCores: number;
  peak: number[];
  steadyRss: number[];
  holds: boolean;
}

const mib = (b: number): string => (b / MiB).toFixed(0);
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

function describe(r: StageResult): string {
  const pods = r.nodes * PODS_PER_NODE;
  return (
    `${r.nodes} nodes: all Ready in ${r.readySeconds.toFixed(1)} s; ${pods} pods Running, the stage's ${r.newPods} in ${r.podsSeconds.toFixed(1)} s (${(r.newPods / r.podsSeconds).toFixed(0)} pods/s); ` +
    `steady ${STEADY_MS / 1000} s: heartbeats ${r.heartbeats} (${r.failedBeats} failed), p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; ` +
    `at the API server ${r.server.count} Lease PATCHes, ${(r.server.within1s * 100).toFixed(2)}% within 1 s, p99 ≤ ${r.server.p99Bound * 1000} ms ` +
    `(kubelet host event-loop delay p99 ${r.hostLagP99Ms.toFixed(0)} ms, max ${r.hostLagMaxMs.toFixed(0)} ms, longest GC ${r.hostGcMaxMs.toFixed(0)} ms, GC pauses ${r.hostGcMs.minor.toFixed(0)} ms minor + ${r.hostGcMs.major.toFixed(0)} ms major); control plane ${r.cpuCores.toFixed(2)} cores, ` +
    `peak RSS ${mib(sum(r.peak))} MiB (${NAMES.map((n, i) => `${n} ${mib(r.peak[i]!)}`).join(', ')}), ` +
    `steady RSS ${mib(sum(r.steadyRss))} MiB; ${r.holds ? 'holds' : 'does not hold'}`
  );
}

/** Cumulative counts of the API server's Lease PATCH latency histogram, by bucket bound in seconds. */
type Buckets = Map<number, number>;

async function leasePatchBuckets(client: ApiClient): Promise<Buckets> {
  const text = await client.request<string>('GET', '/metrics', { raw: true });
  const buckets: Buckets = new Map();
  const line = /^apiserver_request_duration_seconds_bucket\{(.*)\} (\d+)$/;
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (!m || !m[1]!.includes('verb="patch"') || !m[1]!.includes('resource="leases"')) continue;
    const le = /le="([^"]+)"/.exec(m[1]!)?.[1];
    if (le) buckets.set(le === '+Inf' ? Infinity : Number(le), Number(m[2]));
  }
  return buckets;
}

/**
 * The server-side view of the window, as Kubernetes' own latency SLO is measured (at the API
 * server, per verb and resource): the share of Lease PATCHes served within 1 s, and the
 * histogram bucket the 99th percentile falls in.
 */
function serverSide(before: Buckets, after: Buckets): { count: number; within1s: number; p99Bound: number } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = (le: number): number => (after.get(le) ?? 0) - (before.get(le) ?? 0);
  const count = delta(Infinity);
  const p99Bound = bounds.find((le) => delta(le) >= 0.99 * count) ?? Infinity;
  return { count, within1s: count ? delta(1) / count : 1, p99Bound };
}

/** `12s×40 13s×200 …`: how many samples fell in each second. */
function timeline(msOffsets: number[]): string {
  const bySecond = new Map<number, number>();
  for (const ms of msOffsets) bySecond.set(Math.floor(ms / 1000), (bySecond.get(Math.floor(ms / 1000)) ?? 0) + 1);
  return [...bySecond].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}s×${n}`).join(' ');
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-nodes-'));
  const procs = new Processes(NODE_ARGS);
  const stop = new AbortController();
  const progress = (msg: string): void => void process.stderr.write(`[nodes ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  const releaseExitHandlers = procs.cleanUpOnExit(dir);

  async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
    const t0 = Date.now();
    for (;;) {
      if (procs.failure) throw procs.failure;
      if (await Promise.resolve().then(cond).catch(() => false)) return (Date.now() - t0) / 1000;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  const results: StageResult[] = [];
  let client: ApiClient | undefined;
  let heartbeatClient: ApiClient | undefined;
  let host: ReturnType<typeof createNodeHost> | undefined;
  let nodes = 0;
  try {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const apiserver = procs.start('apiserver', ['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)]);
    const kubeconfig = join(dir, 'kubeconfig');
    await until('the API server', () => {
      readFileSync(kubeconfig);
      return true;
    }, 60_000);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    client = new ApiClient(kc, { maxSockets: 128 });
    // As a kubelet's own heartbeat client: thousands of kubelets' pod traffic shares `client`.
    // Node status goes through this one; Lease renewals through the heartbeat thread's own.
    heartbeatClient = new ApiClient(kc, { maxSockets: 64 });
    const api = client;
    await until('the API server to answer', async () => (await api.list(resources.namespaces), true), 60_000);
    const cm = procs.start('controller-manager', ['bin/components/kube-controller-manager.js', `--kubeconfig=${kubeconfig}`, '--leader-elect=false']);
    const scheduler = procs.start('scheduler', ['bin/components/kube-scheduler.js', `--kubeconfig=${kubeconfig}`, '--leader-elect=false']);
    const controlPlane = [apiserver, cm, scheduler];
    const informers = new InformerFactory({ client, signal: stop.signal, pageSize: 5000 });
    const heartbeats = new Latencies();
    let recording = false;
    let failedBeats = 0;
    let steadyStart = 0;
    let steadyEnd = Infinity;
    /** When (ms into the steady window) each failed or slow heartbeat was sent: stalls show as clusters. */
    const slowBeats: number[] = [];
    host = createNodeHost({
      client,
      heartbeatClient,
      heartbeatThread: { kubeConfig: kc, maxSockets: 64 },
      informers,
      logger: pino({ level: 'warn' }),
      recorder: { event: () => {} },
      runtimes: [createSimulatedRuntime({ startDelayMs: 200, writeLogs: false })],
      onHeartbeat: ({ startedAt: sentAt, ms, ok }) => {
        // Only renewals sent inside the window: one sent during the pod burst before it says nothing about the steady state.
        if (!recording || sentAt < steadyStart || sentAt >= steadyEnd) return;
        if (ok) heartbeats.add(ms);
        else failedBeats++;
        if (!ok || ms >= 1000) slowBeats.push(sentAt - steadyStart);
      },
    });
    const pods = informers.informer<V1Pod>(resources.pods);
    // Counted as events arrive: scanning 150,000 cached pods every second would load the host being measured.
    const running = new Set<string>();
    const countPod = (p: DeepReadonly<V1Pod>): void => {
      const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
      if (p.status?.phase === 'Running') running.add(key);
      else running.delete(key);
    };
    pods.on('add', countPod);
    pods.on('update', countPod);
    pods.on('delete', (p) => running.delete(`${p.metadata?.namespace}/${p.metadata?.name}`));
    const nodeInformer = informers.informer<V1Node>(resources.nodes);
    let daemonSets = 0;
    for (const target of STAGES) {
      const t0 = Date.now();
      progress(`stage ${target}: starting kubelets ${nodes}..${target - 1}`);
      for (; nodes < target; nodes++) {
        const i = nodes;
        const name = `hollow-${i}`;
        void host
          .addNode({
            nodeName: name,
            nodeIP: `127.1.${(i + 1) >> 8}.${(i + 1) & 255}`,
            nodeDir: join(dir, 'nodes', name),
            roles: ['worker'],
            zone: `local-${'abc'[i % 3]}`,
            region: 'local',
            instanceType: 's.large',
            providerID: `shipyard://local/local-${'abc'[i % 3]}/hollow-${i}`,
            capacity: { cpu: '4', memory: '16Gi', pods: '250' },
            staticPods: false,
          })
          .start();
        if (i % 100 === 99) await new Promise((r) => setTimeout(r, 50));
      }
      // The host's own node informer: polling the API server with full lists would load what is measured.
      const isReady = (n: { readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] } }): boolean => !!n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      await until(`${target} Ready nodes`, () => nodeInformer.store.list().filter(isReady).length >= target, 30 * 60_000);
      const readySeconds = (Date.now() - t0) / 1000;
      progress(`stage ${target}: all nodes Ready in ${readySeconds.toFixed(1)} s`);
      const p0 = Date.now();
      for (; daemonSets < PODS_PER_NODE; daemonSets++) {
        await client.create(resources.daemonSets, {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: `sim-${daemonSets}`, namespace: 'default' },
          spec: { selector: { matchLabels: { sim: String(daemonSets) } }, template: { metadata: { labels: { sim: String(daemonSets) } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } } },
        } as never);
      }
      const want = target * PODS_PER_NODE;
      let lastReport = Date.now();
      await until(`${want} Running pods`, () => {
        if (Date.now() - lastReport >= 30_000) {
          lastReport = Date.now();
          progress(`stage ${target}: ${running.size}/${want} pods Running after ${((Date.now() - p0) / 1000).toFixed(0)} s`);
        }
        return running.size >= want;
      }, 60 * 60_000);
      const podsSeconds = (Date.now() - p0) / 1000;
      progress(`stage ${target}: ${want} pods Running in ${podsSeconds.toFixed(1)} s; settling ${SETTLE_MS / 1000} s, then a steady window of ${STEADY_MS / 1000} s`);
      // The last pods' status writes, the DaemonSets' status and the Events are still on their way.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const before = controlPlane.map((p) => procStat(p.pid!));
      const serverBefore = await leasePatchBuckets(api);
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      let gcMax = 0;
      const gcTotal = { major: 0, minor: 0 };
      const gcs = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          gcMax = Math.max(gcMax, e.duration);
          const kind = ((e as unknown as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : 'minor';
          gcTotal[kind] += e.duration;
        }
      });
      gcs.observe({ entryTypes: ['gc'] });
      steadyStart = Date.now();
      steadyEnd = Infinity;
      recording = true;
      await new Promise((r) => setTimeout(r, STEADY_MS));
      steadyEnd = Date.now();
      lag.disable();
      gcs.disconnect();
      if (procs.failure) throw procs.failure;
      const after = controlPlane.map((p) => procStat(p.pid!));
      // Renewals sent near the end of the window are still counted when they return.
      await new Promise((r) => setTimeout(r, 10_000));
      // Read when the client-side count closes too, so both cover the window's renewals (the server's also the next 10 s').
      const server = serverSide(serverBefore, await leasePatchBuckets(api));
      recording = false;
      const cpu = sum(after.map((s, i) => s.cpuSeconds - before[i]!.cpuSeconds));
      const peak = after.map((s) => s.hwmBytes);
      const p99 = heartbeats.percentile(99);
      const result: StageResult = {
        nodes: target,
        newPods: want - (results.at(-1)?.nodes ?? 0) * PODS_PER_NODE,
        readySeconds,
        podsSeconds,
        heartbeats: heartbeats.count,
        failedBeats,
        p50: heartbeats.percentile(50),
        p99,
        hostLagP99Ms: lag.percentile(99) / 1e6,
        hostLagMaxMs: lag.max / 1e6,
        hostGcMaxMs: gcMax,
        hostGcMs: gcTotal,
        server,
        cpuCores: (cpu / STEADY_MS) * 1000,
        peak,
        steadyRss: after.map((s) => s.rssBytes),
        holds: p99 < 1000 && failedBeats === 0 && sum(peak) < RSS_LIMIT,
      };
      results.push(result);
      console.log(describe(result));
      if (slowBeats.length) progress(`stage ${target}: heartbeats failed or over 1 s, by second of the window they were sent in: ${timeline(slowBeats)}`);
      heartbeats.clear();
      failedBeats = 0;
      slowBeats.length = 0;
      if (!result.holds) break;
    }
  } catch (err) {
    console.log(`stopped at ${nodes} nodes: ${(err as Error).message}`);
  } finally {
    stop.abort();
    await host?.stop().catch(() => {});
    // Profiles are written as the processes exit, which takes a while with a big heap.
    await procs.stop(NODE_ARGS.length ? 60_000 : 5000);
    client?.close();
    heartbeatClient?.close();
    rmSync(dir, { recursive: true, force: true });
    releaseExitHandlers();
  }
  const held = results.filter((r) => r.holds).at(-1);
  const at1000 = results.find((r) => r.nodes === 1000);
  if (at1000 && at1000 !== held) console.log(`at 1000 nodes: ${describe(at1000)}`);
  if (held) console.log(`largest stage held: ${describe(held)}`);
  const heldNodes = held?.nodes ?? 0;
  const heldPeak = held ? sum(held.peak) : NaN;
  console.log(
    `largest node count holding heartbeat p99 < 1 s and control-plane RSS < 4 GiB: ${heldNodes} (target ${TARGET_NODES}); ` +
      `nodes ratio: ${(heldNodes / TARGET_NODES).toFixed(2)}; RSS ratio at that count: ${held ? (heldPeak / RSS_LIMIT).toFixed(2) : 'n/a'} (peak ${held ? mib(heldPeak) : 'n/a'} MiB / 4096 MiB)`,
  );
}
