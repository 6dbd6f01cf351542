/**
 * `npm run bench -- rollout`: how close a MachineConfig rollout comes to the time its pool's
 * `maxUnavailable` allows (issue 15, benchmark).
 *
 * The API server and the machine-config-controller run as their own processes (the controller
 * as its ServiceAccount with the payload's role, as its pod would). This process hosts 200
 * simulated worker nodes: kubelets in one node host with the simulated runtime, each with a node
 * root under a temporary directory, and beside each a machine-config-daemon started in-process
 * as its DaemonSet pod starts it (`start(ctx)`, the node root as its rootfs, NODE_NAME), as the
 * daemon's ServiceAccount. The nodes are installed as `shipyard up` installs them: the templates
 * and each pool's rendered config from the controller's bootstrap render, every node root
 * written by first boot from its pool's rendered Ignition with the daemon's first annotations
 * (current = desired, Done), the pools created at that config, and the worker pool given
 * `maxUnavailable: 10%`. There are no pods to drain.
 *
 * Once every node is Done and the pool Updated, a MachineConfig adding a file is created (the
 * client's create, timed from its request: kubectl's own start-up is not the rollout's). A file
 * change reboots each node: the daemon cordons it, writes the file and asks the kubelet for a
 * reboot; the kubelet goes NotReady, stays down its boot delay (3 s, as in `shipyard up`),
 * boots with a new bootID and Ready; the daemon validates, uncordons and reports Done. Measured
 * from the Node and pool events this process's informers see: the total from the create to every
 * node Done at the new config and the pool Updated; each node's update time, from its
 * desiredConfig to its Done at the new config (median), split into its steps; the time from the
 * create to the first node's desiredConfig (target < 1 s); how long the controller took to hand a
 * freed slot to the next node; and the most nodes unavailable at once. Ideal = waves × median
 * node time, waves = ceil(nodes / maxUnavailable); the figure judged is total ÷ ideal (target
 * < 1.10).
 *
 * Settings: SHIPYARD_BENCH_ROLLOUT_NODES (default 200), SHIPYARD_BENCH_NODE_ARGS (extra `node`
 * flags for the API server and controller processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Progress goes to stderr, figures to stdout. Everything started here is stopped on the way out.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { parse as parseYaml } from 'yaml';
import { encodeDataUrl } from '../src/api/ignition/index.ts';
import { machineConfigurationCRDs, nodeAnnotations, roleLabel, type MachineConfig, type MachineConfigPool } from '../src/api/machineconfiguration/index.ts';
import { nodeIgnition, type MachineConfigBootstrap } from '../src/cli/up/machine-config.ts';
import { runFirstBoot } from '../src/cloud/first-boot.ts';
import { createNodeHost } from '../src/node/node-host.ts';
import { createSimulatedRuntime } from '../src/node/runtimes/simulated.ts';
import { start as startDaemon } from '../src/operators/machine-config/daemon/component.ts';
import { controllerConfigFor } from '../src/operators/machine-config/operator/controller-config.ts';
import { parseImagesJson } from '../src/operators/machine-config/operator/images.ts';
import { builtinPools } from '../src/operators/machine-config/operator/operands.ts';
import { renderBootstrap } from '../src/operators/machine-config/render/render.ts';
import { renderTemplates } from '../src/operators/machine-config/render/templates.ts';
import { ApiClient, isAlreadyExists } from '../src/runtime/client.ts';
import { InformerFactory } from '../src/runtime/informer-factory.ts';
import type { DeepReadonly } from '../src/runtime/readonly.ts';
import { resources } from '../src/runtime/resources.ts';
import { kubectl, serviceAccountKubeconfig } from './kube.ts';
import { Processes } from './processes.ts';
import { median } from './stats.ts';

const NODES = Number(process.env.SHIPYARD_BENCH_ROLLOUT_NODES ?? 200);
const NODE_ARGS = (process.env.SHIPYARD_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const MAX_UNAVAILABLE = '10%';
const NS = 'openshift-machine-config-operator';
const VERSION = '0.1.0-bench';
const MANIFESTS = new URL('../src/release/payload/manifests/', import.meta.url).pathname;
/** The file the rolled-out MachineConfig adds: a file change, so every node drains and reboots. */
const FILE = '/etc/shipyard-bench/rollout.conf';
const FILE_TEXT = 'rolled out by npm run bench -- rollout\n';

type Node = DeepReadonly<V1Node>;

/** What this process saw of one node's update, in ms of performance.now(). */
interface NodeTimes {
  desired?: number;
  working?: number;
  cordoned?: number;
  down?: number;
  up?: number;
  done?: number;
}

const max = (xs: readonly number[]): number => (xs.length ? Math.max(...xs) : NaN);
const seconds = (ms: number): string => (ms / 1000).toFixed(2);

const annotation = (n: Node, key: string): string => n.metadata?.annotations?.[key] ?? '';
const isReady = (n: Node): boolean => !!n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const isDoneAt = (n: Node, config: string): boolean =>
  annotation(n, nodeAnnotations.currentConfig) === config && annotation(n, nodeAnnotations.desiredConfig) === config && annotation(n, nodeAnnotations.state) === 'Done';
/** As a user counts it: NotReady, cordoned, or its daemon not done at its desired config. */
const isUnavailable = (n: Node): boolean =>
  !isReady(n) || !!n.spec?.unschedulable || annotation(n, nodeAnnotations.state) !== 'Done' || annotation(n, nodeAnnotations.currentConfig) !== annotation(n, nodeAnnotations.desiredConfig);

/** The install's render (src/cli/up/machine-config.ts), with the release's images and this API server's CA. */
function bootstrap(rootCAPem: string): MachineConfigBootstrap {
  const imagesConfigMap = parseYaml(readFileSync(join(MANIFESTS, '0000_80_machine-config_02_images.configmap.yaml'), 'utf8')) as { data: Record<string, string> };
  const images = parseImagesJson(imagesConfigMap.data['images.json']!, 'images.json');
  const controllerConfig = controllerConfigFor({ serviceNetwork: ['127.64.0.0/16'], rootCAPem, images, releaseImage: `shipyard.local/release:${VERSION}`, operatorVersion: VERSION });
  const templates = renderTemplates({ controllerConfig, controllerVersion: VERSION });
  const { pools, renderedConfigs } = renderBootstrap(builtinPools(), templates, controllerConfig, { controllerVersion: VERSION });
  return { controllerConfig, templates, renderedConfigs, pools };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-rollout-'));
  const procs = new Processes(NODE_ARGS);
  const stop = new AbortController();
  const daemonsStop = new AbortController();
  const progress = (msg: string): void => void process.stderr.write(`[rollout ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  const releaseExitHandlers = procs.cleanUpOnExit(dir);

  async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> {
    const t0 = Date.now();
    for (;;) {
      if (procs.failure) throw procs.failure;
      if (await Promise.resolve().then(cond).catch(() => false)) return;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  let client: ApiClient | undefined;
  let heartbeatClient: ApiClient | undefined;
  let host: ReturnType<typeof createNodeHost> | undefined;
  const daemons: Promise<void>[] = [];
  let result: string[] | undefined;
  try {
    const port = 20000 + Math.floor(Math.random() * 20000);
    procs.start('apiserver', ['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)]);
    const kubeconfig = join(dir, 'kubeconfig');
    await until('the API server', () => existsSync(kubeconfig), 60_000);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    client = new ApiClient(kc, { maxSockets: 64 });
    heartbeatClient = new ApiClient(kc, { maxSockets: 16 });
    const api = client;
    await until('the API server to answer', async () => (await api.list(resources.namespaces), true), 60_000);

    // What the CVO and the installer leave before the controller starts (src/cli/up/install.ts, machine-config.ts).
    progress('installing the machine-config CRDs, namespace, RBAC and the bootstrap-rendered configs');
    for (const crd of machineConfigurationCRDs()) await api.create(resources.customResourceDefinitions, crd as never);
    for (const ref of [resources.machineConfigs, resources.machineConfigPools, resources.kubeletConfigs, resources.controllerConfigs]) {
      await until(`${ref.resource} served`, async () => (await api.list(ref), true), 30_000);
    }
    for (const name of ['openshift-config', 'kube-system']) {
      await api.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
    }
    await kubectl(kubeconfig, ['apply', ...['00_namespace', '02_controller-rbac', '02_daemon-rbac'].flatMap((f) => ['-f', join(MANIFESTS, `0000_80_machine-config_${f}.yaml`)])]);
    const controllerKubeconfig = join(dir, 'machine-config-controller.kubeconfig');
    const daemonKubeconfig = join(dir, 'machine-config-daemon.kubeconfig');
    await serviceAccountKubeconfig(api, kc, NS, 'machine-config-controller', controllerKubeconfig);
    await serviceAccountKubeconfig(api, kc, NS, 'machine-config-daemon', daemonKubeconfig);

    const caPem = Buffer.from(kc.getCurrentCluster()!.caData ?? '', 'base64').toString('utf8');
    const boot = bootstrap(caPem);
    const initial = boot.pools.find((p) => p.metadata?.name === 'worker')!.spec!.configuration!.name!;
    await api.create(resources.controllerConfigs, structuredClone(boot.controllerConfig));
    for (const mc of [...boot.templates, ...boot.renderedConfigs]) await api.create(resources.machineConfigs, structuredClone(mc));
    for (const pool of boot.pools) {
      const { status, ...body } = structuredClone(pool);
      if (body.metadata?.name === 'worker') body.spec = { ...body.spec, maxUnavailable: MAX_UNAVAILABLE };
      const created = await api.create(resources.machineConfigPools, body as MachineConfigPool);
      await api.updateStatus(resources.machineConfigPools, { ...created, status } as MachineConfigPool);
    }

    // First boot of every node root from the worker pool's Ignition, as the cloud boots an instance.
    const ignition = nodeIgnition(boot, 'worker');
    const names = Array.from({ length: NODES }, (_, i) => `worker-${String(i).padStart(3, '0')}`);
    const nodeDir = (name: string): string => join(dir, 'nodes', name);
    for (const name of names) await runFirstBoot(ignition, join(nodeDir(name), 'root'));

    const informers = new InformerFactory({ client, signal: stop.signal, pageSize: 5000 });
    host = createNodeHost({
      client,
      heartbeatClient,
      heartbeatThread: { kubeConfig: kc, maxSockets: 16 },
      informers,
      logger: pino({ level: 'warn' }, pino.destination(2)),
      recorder: { event: () => {} },
      runtimes: [createSimulatedRuntime({ startDelayMs: 200, writeLogs: false })],
    });
    const nodes = informers.informer<V1Node>(resources.nodes);
    const pools = informers.informer<MachineConfigPool>(resources.machineConfigPools);
    const t0Nodes = Date.now();
    progress(`starting ${NODES} kubelets`);
    for (const [i, name] of names.entries()) {
      host
        .addNode({
          nodeName: name,
          nodeIP: `127.1.${(i + 1) >> 8}.${(i + 1) & 255}`,
          nodeDir: nodeDir(name),
          roles: ['worker'],
          zone: `local-${'abc'[i % 3]}`,
          region: 'local',
          instanceType: 's.large',
          providerID: `shipyard://local/local-${'abc'[i % 3]}/${name}`,
          capacity: { cpu: '4', memory: '16Gi', pods: '250' },
          staticPods: false,
        })
        .start()
        .catch((err: unknown) => progress(`kubelet ${name}: ${(err as Error).message}`));
    }
    await until(`${NODES} Ready nodes`, () => names.every((n) => { const x = nodes.store.get(n); return !!x && isReady(x); }), 10 * 60_000, 500);
    progress(`${NODES} nodes Ready in ${((Date.now() - t0Nodes) / 1000).toFixed(1)} s; starting their daemons`);

    // Each node's daemon, as its DaemonSet pod runs it: its rootfs is the node root (the pod's hostPath of /).
    for (const name of names) {
      const running = startDaemon({
        signal: daemonsStop.signal,
        args: ['start', '--kubeconfig', daemonKubeconfig, '--root-mount', '/'],
        env: { NODE_NAME: name, SHIPYARD_LOG_LEVEL: 'warn' },
        rootfs: join(nodeDir(name), 'root'),
      });
      daemons.push(running.catch((err: unknown) => progress(`daemon of ${name} stopped: ${(err as Error).message}`)));
    }
    await until(`every daemon Done at ${initial}`, () => names.every((n) => { const x = nodes.store.get(n); return !!x && isDoneAt(x, initial); }), 5 * 60_000, 500);
    // After the daemons' first annotations, as on a new cluster, where the nodes come up with them.
    progress('daemons Done at the installed config; starting the machine-config-controller');
    procs.start('machine-config-controller', ['bin/components/machine-config-controller.js', 'start', `--kubeconfig=${controllerKubeconfig}`, '--leader-elect=false'], { RELEASE_VERSION: VERSION });
    const poolAt = (config: string): boolean => {
      const p = pools.store.get('worker');
      return p?.status?.configuration?.name === config && !!p.status.conditions?.some((c) => c.type === 'Updated' && c.status === 'True') && p.status.updatedMachineCount === NODES;
    };
    await until(`the worker pool Updated at ${initial} with ${NODES} machines`, () => poolAt(initial), 5 * 60_000);
    // The controller's first passes (template status, taints checked) and the nodes' status writes settle.
    await new Promise((r) => setTimeout(r, 5000));
    if (names.some((n) => !isDoneAt(nodes.store.get(n)!, initial))) throw new Error('a node left its installed config before the change was applied');

    // ---- the rollout ----
    const bootID0 = new Map(names.map((n) => [n, nodes.store.get(n)!.status?.nodeInfo?.bootID ?? '']));
    const times = new Map<string, NodeTimes>(names.map((n) => [n, {}]));
    let target: string | undefined;
    let poolUpdatedAt: number | undefined;
    let maxUnavailableSeen = 0;
    /** When the pool's new target was seen, and the first and last UpdateInProgress taint (the controller taints every node to update before it targets any). */
    let targetSeenAt: number | undefined;
    const tainted = new Set<string>();
    let firstTaintAt: number | undefined;
    let lastTaintAt: number | undefined;
    const observe = (n: Node): void => {
      const t = times.get(n.metadata?.name ?? '');
      if (!t) return;
      const now = performance.now();
      if (!tainted.has(n.metadata!.name!) && n.spec?.taints?.some((x) => x.key === 'UpdateInProgress')) {
        tainted.add(n.metadata!.name!);
        firstTaintAt ??= now;
        lastTaintAt = now;
      }
      const desired = annotation(n, nodeAnnotations.desiredConfig);
      if (desired === initial) return;
      t.desired ??= now;
      if (annotation(n, nodeAnnotations.state) === 'Working') t.working ??= now;
      if (n.spec?.unschedulable) t.cordoned ??= now;
      if (!isReady(n)) t.down ??= now;
      else if (t.down !== undefined && n.status?.nodeInfo?.bootID !== bootID0.get(n.metadata!.name!)) t.up ??= now;
      if (isDoneAt(n, desired)) t.done ??= now;
      const unavailable = names.reduce((k, name) => k + (isUnavailable(nodes.store.get(name)!) ? 1 : 0), 0);
      maxUnavailableSeen = Math.max(maxUnavailableSeen, unavailable);
    };
    const observePool = (p: DeepReadonly<MachineConfigPool>): void => {
      if (p.metadata?.name !== 'worker') return;
      const spec = p.spec?.configuration?.name;
      if (spec && spec !== initial && target === undefined) {
        target = spec;
        targetSeenAt = performance.now();
      }
      if (target && poolAt(target)) poolUpdatedAt ??= performance.now();
    };
    const offNodes = nodes.on('update', observe);
    const offPools = pools.on('update', observePool);

    const mc: MachineConfig = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-worker-bench-rollout', labels: { [roleLabel]: 'worker' } },
      spec: { config: { ignition: { version: '3.4.0' }, storage: { files: [{ path: FILE, mode: 0o644, overwrite: true, contents: { source: encodeDataUrl(FILE_TEXT) } }] } } },
    };
    progress(`creating MachineConfig ${mc.metadata!.name} (adds ${FILE}) and waiting for the rollout`);
    const t0 = performance.now();
    await api.create(resources.machineConfigs, mc);
    const created = performance.now();
    let lastReport = Date.now();
    await until('every node Done at the new config and the pool Updated', () => {
      if (Date.now() - lastReport >= 15_000) {
        lastReport = Date.now();
        const done = [...times.values()].filter((t) => t.done !== undefined).length;
        progress(`${done}/${NODES} nodes updated after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
      return poolUpdatedAt !== undefined && [...times.values()].every((t) => t.done !== undefined);
    }, 30 * 60_000, 100);
    const end = Math.max(poolUpdatedAt!, ...[...times.values()].map((t) => t.done!));
    offNodes();
    offPools();

    // ---- checks: real reboots, the file on every node ----
    const rebooted = names.filter((n) => nodes.store.get(n)!.status?.nodeInfo?.bootID !== bootID0.get(n)).length;
    const sawDown = [...times.values()].filter((t) => t.down !== undefined && t.up !== undefined).length;
    const withFile = names.filter((n) => {
      try {
        return readFileSync(join(nodeDir(n), 'root', FILE), 'utf8') === FILE_TEXT;
      } catch {
        return false;
      }
    }).length;
    if (rebooted !== NODES || withFile !== NODES) throw new Error(`after the rollout ${rebooted}/${NODES} nodes have a new bootID and ${withFile}/${NODES} hold ${FILE}`);

    // ---- figures ----
    const all = [...times.values()];
    const nodeMs = all.map((t) => t.done! - t.desired!);
    const perNode = median(nodeMs);
    const maxUnavailable = Math.max(1, Math.floor((NODES * 10) / 100));
    const waves = Math.ceil(NODES / maxUnavailable);
    const ideal = waves * perNode;
    const total = end - t0;
    const desiredTimes = all.map((t) => t.desired!).sort((a, b) => a - b);
    const doneTimes = all.map((t) => t.done!).sort((a, b) => a - b);
    // The k-th node targeted after the first wave took the slot the k-th finished node freed.
    const handoffs = desiredTimes.slice(maxUnavailable).map((d, k) => d - doneTimes[k]!);
    const phase = (from: keyof NodeTimes, to: keyof NodeTimes): string => {
      const xs = all.filter((t) => t[from] !== undefined && t[to] !== undefined).map((t) => t[to]! - t[from]!);
      return `median ${seconds(median(xs))} s, max ${seconds(max(xs))} s`;
    };
    result = [
      `${NODES} simulated workers, maxUnavailable ${MAX_UNAVAILABLE} (${maxUnavailable} nodes), a MachineConfig adding ${FILE} (drain and reboot on each node; no pods to drain)`,
      `create of the MachineConfig answered in ${seconds(created - t0)} s; first node's desiredConfig ${seconds(desiredTimes[0]! - t0)} s after it (target < 1 s)`,
      `  of which: the pool's new target seen ${seconds((targetSeenAt ?? NaN) - t0)} s after the create (render); UpdateInProgress taints on ${tainted.size} nodes seen from ${seconds((firstTaintAt ?? NaN) - t0)} to ${seconds((lastTaintAt ?? NaN) - t0)} s`,
      `per-node update (desiredConfig to Done at the new config): median ${seconds(perNode)} s, min ${seconds(Math.min(...nodeMs))} s, max ${seconds(max(nodeMs))} s`,
      `  desiredConfig to Working (the daemon starts): ${phase('desired', 'working')}`,
      `  Working to cordoned: ${phase('working', 'cordoned')}`,
      `  cordoned to NotReady (drain, write the file, reboot request, the kubelet's look for it each second): ${phase('cordoned', 'down')}`,
      `  NotReady to Ready with a new bootID (the simulated reboot, 3 s boot delay): ${phase('down', 'up')}`,
      `  Ready to Done (validate, uncordon, Done): ${phase('up', 'done')}`,
      `slot handoff (a node Done to the next node's desiredConfig): median ${seconds(median(handoffs))} s, max ${seconds(max(handoffs))} s`,
      `last node Done to pool Updated: ${seconds((poolUpdatedAt ?? NaN) - doneTimes.at(-1)!)} s; most nodes unavailable at once: ${maxUnavailableSeen} (limit ${maxUnavailable}); ${rebooted} nodes rebooted (${sawDown} seen NotReady then Ready), ${withFile} hold the file`,
      `total ${seconds(total)} s; ideal ${waves} waves × ${seconds(perNode)} s = ${seconds(ideal)} s`,
      `rollout apply to first desiredConfig: ${seconds(desiredTimes[0]! - t0)} s (target < 1 s)`,
      `rollout overhead (total ÷ ideal): ${(total / ideal).toFixed(3)} (target < 1.10)`,
    ];
  } catch (err) {
    console.log(`rollout stopped: ${(err as Error).message}`);
  } finally {
    daemonsStop.abort();
    await Promise.all(daemons);
    stop.abort();
    await host?.stop().catch(() => {});
    await procs.stop(NODE_ARGS.length ? 60_000 : 5000);
    client?.close();
    heartbeatClient?.close();
    rmSync(dir, { recursive: true, force: true });
    releaseExitHandlers();
  }
  for (const line of result ?? []) console.log(line);
}
