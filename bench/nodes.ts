/**
 * `npm run bench -- nodes`: how many hollow nodes one machine's control plane holds.
 *
 * The API server, controller-manager and scheduler run as their own processes, exactly as
 * `shipyard up` runs them; this process hosts the kubelets (inline, one node host, simulated
 * runtime), renewing their Leases every 10 s. Each stage adds nodes, waits until all are
 * Ready, gives every node 30 simulated pods (30 DaemonSets), then measures a steady window:
 * Lease-renewal (heartbeat) latency as the kubelets see it, and the control plane's CPU
 * seconds and peak RSS from /proc. Stages grow until heartbeat p99 reaches 1 s, the control
 * plane passes 4 GiB, or the largest stage is done; the figure judged is the largest node
 * count that held p99 < 1 s, against the 5,000-node target.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { ApiClient } from '../src/runtime/client.ts';
import { InformerFactory } from '../src/runtime/informer-factory.ts';
import { resources } from '../src/runtime/resources.ts';
import { createNodeHost } from '../src/node/node-host.ts';
import { createSimulatedRuntime } from '../src/node/runtimes/simulated.ts';
import { Latencies } from './stats.ts';

const PODS_PER_NODE = 30;
const STEADY_MS = Number(process.env.SHIPYARD_BENCH_STEADY_MS ?? 60_000);
const STAGES = (process.env.SHIPYARD_BENCH_NODES ?? '1000,2000,3500,5000').split(',').map(Number);
const RSS_LIMIT = 4 * 1024 ** 3;

function procStat(pid: number): { cpuSeconds: number; hwmBytes: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds: ticks / 100, hwmBytes: kb('VmHWM'), rssBytes: kb('VmRSS') };
}

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SHIPYARD_LOG_LEVEL: 'warn', ...env } });
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!(await cond().catch(() => false))) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return (Date.now() - t0) / 1000;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-nodes-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const apiserver = start(['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)]);
  const kubeconfig = join(dir, 'kubeconfig');
  await until('the API server', async () => existsSync(kubeconfig), 60_000);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const client = new ApiClient(kc, { maxSockets: 128 });
  await until('the API server to answer', async () => (await client.list(resources.namespaces), true), 60_000);
  const cm = start(['bin/components/kube-controller-manager.js', `--kubeconfig=${kubeconfig}`, '--leader-elect=false']);
  const scheduler = start(['bin/components/kube-scheduler.js', `--kubeconfig=${kubeconfig}`, '--leader-elect=false']);
  const controlPlane = [apiserver, cm, scheduler];
  const stop = new AbortController();
  const informers = new InformerFactory({ client, signal: stop.signal, pageSize: 5000 });
  const heartbeats = new Latencies();
  let recording = false;
  let failedBeats = 0;
  const host = createNodeHost({
    client,
    informers,
    logger: pino({ level: 'warn' }),
    recorder: { event: () => {} },
    runtimes: [createSimulatedRuntime({ startDelayMs: 200, writeLogs: false })],
    onHeartbeat: (ms, ok) => {
      if (!recording) return;
      if (ok) heartbeats.add(ms);
      else failedBeats++;
    },
  });
  const pods = informers.informer<V1Pod>(resources.pods);
  let held = 0;
  let nodes = 0;
  let daemonSets = 0;
  try {
    for (const target of STAGES) {
      const t0 = Date.now();
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
      await until(`${target} Ready nodes`, async () => {
        const list = await client.listAll<{ metadata?: object; status?: { conditions?: { type: string; status: string }[] } }>(resources.nodes, undefined, { pageSize: 5000 });
        return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= target;
      }, 30 * 60_000);
      const readySeconds = (Date.now() - t0) / 1000;
      for (; daemonSets < PODS_PER_NODE; daemonSets++) {
        await client.create(resources.daemonSets, {
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: `sim-${daemonSets}`, namespace: 'default' },
          spec: { selector: { matchLabels: { sim: String(daemonSets) } }, template: { metadata: { labels: { sim: String(daemonSets) } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } } },
        } as never);
      }
      const want = target * PODS_PER_NODE;
      const podsSeconds = await until(`${want} Running pods`, async () => pods.store.list().filter((p) => p.status?.phase === 'Running').length >= want, 60 * 60_000);
      const before = controlPlane.map((p) => procStat(p.pid!));
      recording = true;
      await new Promise((r) => setTimeout(r, STEADY_MS));
      recording = false;
      const after = controlPlane.map((p) => procStat(p.pid!));
      const cpu = after.reduce((a, s, i) => a + s.cpuSeconds - before[i]!.cpuSeconds, 0);
      const peak = after.reduce((a, s) => a + s.hwmBytes, 0);
      const p99 = heartbeats.percentile(99);
      console.log(
        `${target} nodes: all Ready ${readySeconds.toFixed(1)} s after the stage's first kubelet started, ` +
          `${want} simulated pods Running in ${podsSeconds.toFixed(1)} s; steady ${STEADY_MS / 1000} s: heartbeats ${heartbeats.count} (${failedBeats} failed), ${heartbeats.summary()}; ` +
          `control plane CPU ${cpu.toFixed(1)} s (${((cpu / STEADY_MS) * 1000).toFixed(2)} cores), peak RSS ${(peak / 1024 ** 2).toFixed(0)} MiB ` +
          `(apiserver ${(after[0]!.hwmBytes / 1024 ** 2).toFixed(0)}, controller-manager ${(after[1]!.hwmBytes / 1024 ** 2).toFixed(0)}, scheduler ${(after[2]!.hwmBytes / 1024 ** 2).toFixed(0)})`,
      );
      const holds = p99 < 1000 && peak < RSS_LIMIT;
      if (holds) held = target;
      heartbeats.clear();
      failedBeats = 0;
      if (!holds) break;
    }
  } catch (err) {
    console.log(`stopped at ${nodes} nodes: ${(err as Error).message}`);
  } finally {
    console.log(`largest node count holding heartbeat p99 < 1 s and control-plane RSS < 4 GiB: ${held} (target 5000); nodes ratio: ${(held / 5000).toFixed(2)}`);
    stop.abort();
    await host.stop().catch(() => {});
    for (const p of controlPlane) p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    for (const p of controlPlane) p.kill('SIGKILL');
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
