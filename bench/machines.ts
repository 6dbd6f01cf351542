/**
 * `npm run bench -- machines`: what the Machine API's controllers add to the cloud's own time to
 * bring machines up and take them down (issue 16, benchmark).
 *
 * The API server runs as its own process. This process runs the simulated cloud (no boot delay)
 * with its HTTP API, and behind it a node host with the simulated runtime, wired as `shipyard up`'s
 * datacenter wires them (src/cli/up/datacenter.ts) but lighter: a booted instance's kubelet gets
 * its `system:node:<name>` certificate issued at once (no CSR round through the config server),
 * and no pod runs as a process. The cluster holds what the install leaves for the Machine API:
 * its CRDs, the Infrastructure singleton with platform Shipyard, the cloud credentials and worker
 * user-data Secrets in the provider's format (providers/shipyard/install.ts), the payload's
 * ServiceAccount and roles for the controllers, and one worker MachineSet at 0 replicas. The user
 * data is an Ignition config with nothing to fetch: no config server runs here.
 *
 * Each round has three phases, the cloud alone, the floor and then the controllers:
 * - **Cloud alone.** N instances launched concurrently through the cloud API, with the
 *   MachineSet's instance type, zone and user data; timed from the first request until N Nodes
 *   are Ready. Then all terminated concurrently, each Node deleted by this process as soon as its
 *   instance is terminated (as the machine controller does); timed until every instance is
 *   terminated and every Node gone.
 * - **Floor.** The writes the issue requires for each Machine, made by this process with no
 *   controller (`floor()` below lists them): no implementation of the controllers can do with
 *   fewer requests, so floor ÷ cloud alone is the least ratio any could reach, and controllers ÷
 *   floor is what these controllers add to it. Printed beside the judged ratio.
 * - **Controllers.** The MachineSet, machine and nodelink controllers as processes through their
 *   images' launchers (`machine-api-operator /machineset-controller`, `/nodelink-controller`,
 *   `machine-controller`), as the ServiceAccount `machine-api-controllers` with the payload's
 *   roles, without leader election; started before the phase and counted ready once their
 *   watches are open at the API server. The MachineSet is scaled 0 → N through its scale
 *   subresource (as `kubectl scale` does), timed until N Machines are Running with nodeRefs to
 *   Ready Nodes; then N → 0, timed until every Machine, instance and Node is gone. The
 *   controllers stop before the next round, so every baseline runs without them.
 *
 * Every time ends at the informer event (or cloud change) that completes its condition, not at
 * a poll. An uncounted warm-up round of a tenth of N comes first (JIT, first connections). Each
 * round's ratios are controllers ÷ cloud alone; the figures are medians over the rounds, so a
 * machine whose speed drifts slows both sides of a pair alike. Judged: the larger of the
 * scale-up and scale-down ratios (target < 1.2).
 *
 * For profiling, the last round's phases are also told by what they cost: when the last Machine
 * reached each step (created, providerID, nodeRef, Running; Deleting, Drained, instance
 * terminated), the CPU seconds of the API server, the controllers and this process (the cloud
 * and the kubelets) from /proc, the API requests by verb and resource (the API server's
 * `apiserver_request_total`), and each controller's reconciles and their mean time (its own
 * `/metrics`, served on loopback here).
 *
 * Settings: SHIPYARD_BENCH_MACHINES (N, default 200), SHIPYARD_BENCH_MACHINES_ROUNDS (default
 * 3), SHIPYARD_BENCH_MACHINES_CONTROLLER_ARGS (the machine controller's flags, default
 * `--requeue-after=1s --drain-requeue-after=1s --max-concurrent-reconciles=20`: OpenShift's
 * 30 s and 20 s would be the whole figure, and one worker launches 200 instances one at a time),
 * SHIPYARD_BENCH_NODE_ARGS (extra `node` flags for the API server and controller processes, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`). Progress goes to stderr, figures to stdout. Every
 * process started here is stopped on the way out, Ctrl-C included.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type KubernetesObject, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { ensureIdentityKubeconfig } from '../src/apiserver/auth/identity-kubeconfig.ts';
import { configCRDs, Infrastructure } from '../src/api/config/index.ts';
import { formatTimestamp } from '../src/api/time.ts';
import { Machine, machineAnnotations, machineAPICRDs, machineAPINamespace, machineConditionTypes, machineFinalizer, machineLabels, machinePhases, MachineSet } from '../src/api/machine/index.ts';
import { findInstanceType } from '../src/cloud/catalog.ts';
import { createCloud, type Cloud } from '../src/cloud/cloud.ts';
import { startCloudServer, type CloudServer } from '../src/cloud/server.ts';
import type { Instance } from '../src/cloud/state.ts';
import { ensureCloudToken } from '../src/cloud/token.ts';
import { CloudClient } from '../src/cloudclient/client.ts';
import { createNodeHost, type NodeHost } from '../src/node/node-host.ts';
import { createSimulatedRuntime } from '../src/node/runtimes/simulated.ts';
import { cloudCredentialsSecret, providerSpecFor, userDataSecret } from '../src/operators/machine-api/providers/shipyard/install.ts';
import { updateFor } from '../src/operators/machine-api/providers/shipyard/provider.ts';
import { ApiClient, isNotFound } from '../src/runtime/client.ts';
import { InformerFactory } from '../src/runtime/informer-factory.ts';
import type { Informer } from '../src/runtime/informer.ts';
import type { DeepReadonly } from '../src/runtime/readonly.ts';
import { objectPath, refOf, resources } from '../src/runtime/resources.ts';
import { kubectl, serviceAccountKubeconfig } from './kube.ts';
import { Processes } from './processes.ts';
import { median } from './stats.ts';

const COUNT = Number(process.env.SHIPYARD_BENCH_MACHINES ?? 200);
const ROUNDS = Number(process.env.SHIPYARD_BENCH_MACHINES_ROUNDS ?? 3);
const WARMUP = Math.max(1, Math.round(COUNT / 10));
const CONTROLLER_ARGS = (process.env.SHIPYARD_BENCH_MACHINES_CONTROLLER_ARGS ?? '--requeue-after=1s --drain-requeue-after=1s --max-concurrent-reconciles=20').split(/\s+/).filter(Boolean);
const NODE_ARGS = (process.env.SHIPYARD_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const TARGET = 1.2;
const NS = machineAPINamespace;
const INFRA = 'bench-7x2kq';
const ZONE = 'local-a';
const TYPE = 's.large';
const SET = `${INFRA}-worker-${ZONE}`;
const ACCOUNT = 'machine-api-controllers';
const MANIFESTS = new URL('../src/release/payload/manifests/', import.meta.url).pathname;
/** First boot applies it as it would a pointer's target; nothing to fetch, since no config server runs here. */
const USER_DATA = JSON.stringify({ ignition: { version: '3.4.0' } });
const PHASE_TIMEOUT_MS = 15 * 60_000;
/** The controllers' watches at the API server: how their start is told to be over. */
const CONTROLLER_WATCHES: Readonly<Record<string, number>> = { machines: 3, machinesets: 1, nodes: 2 };

const machinesRef = refOf(Machine);
const machineSetsRef = refOf(MachineSet);

type Node = DeepReadonly<V1Node>;
type MachineView = DeepReadonly<Machine>;

/** User and system CPU seconds of a process so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const isReady = (n: Node | undefined): boolean => !!n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const secs = (ms: number): string => (ms / 1000).toFixed(2);
const list = (xs: readonly number[], f: (x: number) => string): string => xs.map(f).join(' ');

/** A change feed to wait on: subscribes `fn`, returns its unsubscribe function. */
type Source = (fn: () => void) => () => void;

function informerSource<T extends KubernetesObject>(informer: Informer<T>): Source {
  return (fn) => {
    const offs = [informer.on('add', fn), informer.on('update', fn), informer.on('delete', fn)];
    return () => offs.forEach((off) => off());
  };
}

/** One round's figures, ms. */
interface Round {
  cloudUp: number;
  cloudDown: number;
  floorUp: number;
  floorDown: number;
  up: number;
  down: number;
  /** When (ms after the scale) the last Machine reached each step. */
  upSteps: Record<string, number>;
  downSteps: Record<string, number>;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-machines-'));
  const dc = join(dir, 'datacenter');
  const procs = new Processes(NODE_ARGS);
  const stop = new AbortController();
  const progress = (msg: string): void => void process.stderr.write(`[machines ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  const releaseExitHandlers = procs.cleanUpOnExit(dir);
  /** The controllers of the round under way: their own group, stopped at the end of each round. */
  let controllers: { procs: Processes; release: () => void; pids: number[] } | undefined;
  const failure = (): Error | undefined => procs.failure ?? controllers?.procs.failure;

  async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> {
    const t0 = Date.now();
    for (;;) {
      const f = failure();
      if (f) throw f;
      if (await Promise.resolve().then(cond).catch(() => false)) return;
      if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /**
   * Resolves with performance.now() at the first change after which `cond` holds (checked at
   * once, on every change of `sources`, and every 250 ms in case a change came from elsewhere).
   * Set up before the action it times, so no change is missed.
   */
  function completion(what: string, cond: () => boolean, sources: readonly Source[]): Promise<number> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const offs: (() => void)[] = [];
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        clearTimeout(deadline);
        for (const off of offs) off();
        fn();
      };
      const check = (): void => {
        if (settled) return;
        const f = failure();
        if (f) return finish(() => reject(f));
        let ok = false;
        try {
          ok = cond();
        } catch {
          ok = false;
        }
        if (ok) {
          const at = performance.now();
          finish(() => resolve(at));
        }
      };
      const timer = setInterval(check, 250);
      const deadline = setTimeout(() => finish(() => reject(new Error(`timed out after ${PHASE_TIMEOUT_MS / 1000} s waiting for ${what}`))), PHASE_TIMEOUT_MS);
      for (const s of sources) offs.push(s(check));
      check();
    });
  }

  let admin: ApiClient | undefined;
  let host: NodeHost | undefined;
  let cloud: Cloud | undefined;
  let cloudServer: CloudServer | undefined;
  const kubeletClients = new Map<string, ApiClient>();
  const rounds: Round[] = [];
  /** What the last round's phases cost (read after each phase: outside every figure). */
  let costs: Record<'cloudUp' | 'cloudDown' | 'floorUp' | 'floorDown' | 'up' | 'down' | 'reconcilesUp' | 'reconcilesDown', string> | undefined;
  let result: string[] | undefined;
  try {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const apiserverPid = procs.start('apiserver', ['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)]).pid!;
    const kubeconfig = join(dir, 'kubeconfig');
    await until('the API server', () => existsSync(kubeconfig), 60_000);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    admin = new ApiClient(kc, { maxSockets: 64, userAgent: 'bench-machines' });
    const api = admin;
    await until('the API server to answer', async () => (await api.list(resources.namespaces), true), 60_000);
    const apiUrl = kc.getCurrentCluster()!.server;
    const pkiDir = join(dir, 'pki');

    // ---- what the install leaves for the Machine API (src/cli/up/install.ts, machine-api.ts) ----
    progress('installing the Machine API CRDs, Infrastructure, RBAC, Secrets and the MachineSet');
    const crds = [...machineAPICRDs(), ...configCRDs().filter((c) => c.spec.names.kind === 'Infrastructure')];
    for (const crd of crds) await api.create(resources.customResourceDefinitions, crd as never);
    for (const ref of [machinesRef, machineSetsRef, refOf(Infrastructure)]) await until(`${ref.resource} served`, async () => (await api.list(ref), true), 30_000);
    await api.createIfMissing(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await kubectl(kubeconfig, ['apply', '-f', join(MANIFESTS, '0000_30_machine-api-operator_09_controllers-rbac.yaml')]);
    const controllerKubeconfig = join(dir, `${ACCOUNT}.kubeconfig`);
    await serviceAccountKubeconfig(api, kc, NS, ACCOUNT, controllerKubeconfig);
    const infra = await api.create<Infrastructure>(refOf(Infrastructure), { apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'Shipyard' } } } as Infrastructure);
    await api.request('PUT', objectPath(refOf(Infrastructure), undefined, 'cluster', 'status'), {
      body: { ...infra, status: { infrastructureName: INFRA, platform: 'Shipyard', platformStatus: { type: 'Shipyard' }, apiServerURL: apiUrl, apiServerInternalURI: apiUrl } },
    });

    // ---- the datacenter, lighter: cloud API, node host, kubelets with identities issued at boot ----
    const token = await ensureCloudToken(dc);
    const informers = new InformerFactory({ client: api, signal: stop.signal, pageSize: 5000 });
    const quiet = pino({ level: 'warn' }, pino.destination(2));
    const nodeHost = (host = createNodeHost({
      client: api,
      heartbeatThread: { kubeConfig: kc, maxSockets: 16 },
      informers,
      logger: quiet,
      recorder: { event: () => {} },
      runtimes: [createSimulatedRuntime({ writeLogs: false })],
    }));
    cloud = await createCloud({
      dataDir: dc,
      bootDelayMs: 0,
      logger: quiet,
      hooks: {
        boot: async (instance: Readonly<Instance>) => {
          const nodeDir = join(dc, 'nodes', instance.name);
          const credentials = await ensureIdentityKubeconfig({ path: join(nodeDir, 'root', 'var', 'lib', 'kubelet', 'kubeconfig'), server: apiUrl, pkiDir, user: `system:node:${instance.name}`, groups: ['system:nodes'] });
          const kubeletConfig = new KubeConfig();
          kubeletConfig.loadFromFile(credentials);
          kubeletClients.get(instance.name)?.close();
          const client = new ApiClient(kubeletConfig, { userAgent: `kubelet/${instance.name}`, maxSockets: 8 });
          kubeletClients.set(instance.name, client);
          const type = findInstanceType(instance.type);
          await nodeHost
            .addNode({
              client,
              leaseCredentials: readFileSync(credentials, 'utf8'),
              nodeName: instance.name,
              nodeIP: instance.privateIP,
              nodeDir,
              // No kubelet unit in a root booted from this user data: the host says the role.
              roles: ['worker'],
              zone: instance.zone,
              region: instance.region,
              instanceType: instance.type,
              providerID: instance.providerID,
              capacity: { cpu: String(type?.cpu ?? 4), memory: type?.memory ?? '16Gi', pods: String(type?.maxPods ?? 250) },
              staticPods: false,
            })
            .start();
        },
        stop: async (instance: Readonly<Instance>) => {
          await nodeHost.removeNode(instance.name);
          kubeletClients.get(instance.name)?.close();
          kubeletClients.delete(instance.name);
        },
      },
    });
    const theCloud = cloud;
    /** Instances not terminated, kept from the cloud's own changes: a full list per check would load what is measured. */
    const alive = new Set<string>();
    theCloud.onChange((i) => (i.state === 'terminated' ? alive.delete(i.id) : alive.add(i.id)));
    cloudServer = await startCloudServer({ cloud: theCloud, dataDir: dc, token, logger: quiet });
    const cloudApi = new CloudClient({ url: cloudServer.url, token });

    await api.create(resources.secrets, cloudCredentialsSecret(NS, { url: cloudServer.url, token }));
    await api.create(resources.secrets, userDataSecret(NS, 'worker-user-data', USER_DATA));
    const roleLabels = { [machineLabels.cluster]: INFRA, [machineLabels.role]: 'worker', [machineLabels.type]: 'worker' };
    await api.create(machineSetsRef, {
      apiVersion: MachineSet.apiVersion,
      kind: MachineSet.kind,
      metadata: { name: SET, namespace: NS, labels: roleLabels },
      spec: {
        replicas: 0,
        selector: { matchLabels: { [machineLabels.cluster]: INFRA, [machineLabels.machineSet]: SET } },
        template: {
          metadata: { labels: { ...roleLabels, [machineLabels.machineSet]: SET } },
          spec: { providerSpec: { value: providerSpecFor({ instanceType: TYPE, zone: ZONE, userDataSecret: 'worker-user-data' }) } },
        },
      },
    } as MachineSet);

    const nodes = informers.informer<V1Node>(resources.nodes);
    const machines = informers.informer<Machine>(machinesRef, { namespace: NS });
    await informers.waitForSync();
    const nodeEvents = informerSource(nodes);
    const machineEvents = informerSource(machines);
    const cloudEvents: Source = (fn) => theCloud.onChange(fn);

    const watchers = async (): Promise<Record<string, number>> => {
      const text = await api.request<string>('GET', '/metrics', { raw: true });
      const counts: Record<string, number> = {};
      for (const m of text.matchAll(/^apiserver_registered_watchers\{resource="([^"]+)"\} (\d+)$/gm)) counts[m[1]!] = Number(m[2]);
      return counts;
    };
    /** Requests the API server has answered, by `verb resource`. */
    const requestCounts = async (): Promise<Map<string, number>> => {
      const text = await api.request<string>('GET', '/metrics', { raw: true });
      const counts = new Map<string, number>();
      for (const m of text.matchAll(/^apiserver_request_total\{(.*)\} (\d+)$/gm)) {
        const verb = /verb="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
        const resource = /resource="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
        if (verb === 'watch' || resource.startsWith('/')) continue;
        counts.set(`${verb} ${resource}`, (counts.get(`${verb} ${resource}`) ?? 0) + Number(m[2]));
      }
      return counts;
    };
    /** CPU seconds so far of the API server, the controllers and this process (the cloud and the kubelets). */
    const cpuNow = (): number[] => [cpuSeconds(apiserverPid), (controllers?.pids ?? []).reduce((a, pid) => a + cpuSeconds(pid), 0), (process.cpuUsage().user + process.cpuUsage().system) / 1e6];
    type Probe = { requests: Map<string, number>; cpu: number[] };
    const probe = async (): Promise<Probe> => ({ requests: await requestCounts(), cpu: cpuNow() });
    /** What a phase cost: CPU seconds per side, and what it asked of the API server (the total and the largest kinds), `n` being the machines it brought up or down. */
    const costSince = async (before: Probe, n: number): Promise<string> => {
      const cpu = cpuNow().map((c, i) => c - before.cpu[i]!);
      const after = await requestCounts();
      const delta = [...after].map(([k, v]) => [k, v - (before.requests.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
      const total = delta.reduce((a, [, v]) => a + v, 0);
      return (
        `CPU ${cpu.reduce((a, b) => a + b, 0).toFixed(1)} s (API server ${cpu[0]!.toFixed(1)}, controllers ${cpu[1]!.toFixed(1)}, cloud and kubelets ${cpu[2]!.toFixed(1)}); ` +
        `API requests ${total} (${(total / n).toFixed(1)} per machine; ${delta.slice(0, 8).map(([k, v]) => `${k} ${v}`).join(', ')})`
      );
    };

    // This process's own watches open a moment after its caches synced.
    await until('this process\'s watches', async () => ((await watchers()).machines ?? 0) >= 1, 30_000);
    const ownWatches = await watchers();

    // ---- the phases ----
    async function cloudAlone(tag: string, n: number): Promise<{ up: number; down: number; costs: string[] }> {
      const names = Array.from({ length: n }, (_, i) => `cloud-${tag}-${String(i).padStart(3, '0')}`);
      const upDone = completion(`${n} Ready Nodes`, () => names.every((x) => isReady(nodes.store.get(x))), [nodeEvents]);
      let before = await probe();
      const t0 = performance.now();
      const launched = await Promise.all(names.map((name) => cloudApi.runInstance({ name, type: TYPE, zone: ZONE, userData: USER_DATA })));
      const up = (await upDone) - t0;
      const phaseCosts = [await costSince(before, n)];

      const ids = new Set(launched.map((i) => i.id));
      const nodeDeletes: Promise<unknown>[] = [];
      const offTerminated = theCloud.onChange((i) => {
        if (ids.has(i.id) && i.state === 'terminated') nodeDeletes.push(api.delete(resources.nodes, undefined, i.name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err))));
      });
      const downDone = completion('every instance terminated and its Node deleted', () => alive.size === 0 && nodes.store.list().length === 0, [nodeEvents, cloudEvents]);
      before = await probe();
      const t1 = performance.now();
      await Promise.all([...ids].map((id) => cloudApi.terminateInstance(id)));
      const down = (await downDone) - t1;
      phaseCosts.push(await costSince(before, n));
      offTerminated();
      await Promise.all(nodeDeletes);
      return { up, down, costs: phaseCosts };
    }

    /**
     * The floor: what the issue requires to be written for each Machine, written by this process
     * with no controller, every Machine at once and each step right after the last, with two
     * writes merged wherever one can carry both. Up: the Machine created with its finalizer, the
     * launch, providerID, addresses and phase Provisioned, the Node (once registered) annotated
     * and labelled, nodeRef and phase Running. Down: the Machine deleted, phase Deleting with
     * Drained=True, the Node cordoned, the instance terminated, the Node deleted once it is, the
     * finalizer dropped. No controller can do its work in fewer requests, so the controllers'
     * time over the floor's is theirs, and the floor's over the cloud alone's is the issue's.
     */
    async function floor(tag: string, n: number): Promise<{ up: number; down: number; costs: string[] }> {
      const names = Array.from({ length: n }, (_, i) => `floor-${tag}-${String(i).padStart(3, '0')}`);
      const wanted = new Set(names);
      const floorMachines = (): MachineView[] => machines.store.list().filter((m) => wanted.has(m.metadata?.name ?? ''));
      const upDone = completion(`${n} floor Machines Running with Ready Nodes`, () => {
        const ms = floorMachines();
        return ms.length === n && ms.every((m) => m.status?.phase === 'Running' && isReady(nodes.store.get(m.metadata?.name ?? '')));
      }, [machineEvents, nodeEvents]);
      const template = (await api.get<MachineSet>(machineSetsRef, NS, SET)).spec!.template!;
      const ids = new Map<string, string>();
      let before = await probe();
      const t0 = performance.now();
      const upSteps = Promise.all(
        names.map(async (name) => {
          await api.create(machinesRef, { apiVersion: Machine.apiVersion, kind: Machine.kind, metadata: { name, namespace: NS, labels: { [machineLabels.cluster]: INFRA }, finalizers: [machineFinalizer] }, spec: template.spec } as Machine);
          const instance = await cloudApi.runInstance({ name, type: TYPE, zone: ZONE, userData: USER_DATA });
          ids.set(name, instance.id);
          const update = updateFor(instance);
          await api.patch(machinesRef, NS, name, { metadata: { labels: update.labels, annotations: update.annotations }, spec: { providerID: instance.providerID } });
          await api.patch(machinesRef, NS, name, { status: { phase: machinePhases.provisioned, addresses: update.addresses, providerStatus: update.providerStatus } }, { type: 'merge', subresource: 'status' });
          await completion(`Node ${name} registered`, () => !!nodes.store.get(name), [nodeEvents]);
          await api.patch(resources.nodes, undefined, name, { metadata: { annotations: { [machineAnnotations.nodeMachine]: `${NS}/${name}` }, labels: { [machineLabels.cluster]: INFRA } } });
          await api.patch(machinesRef, NS, name, { status: { phase: machinePhases.running, nodeRef: { kind: 'Node', name } } }, { type: 'merge', subresource: 'status' });
        }),
      );
      // Together: a step that fails, or a wait the deadline ends, ends the phase at once.
      const up = (await Promise.all([upSteps, upDone]))[1] - t0;
      const phaseCosts = [await costSince(before, n)];

      const gone = new Map<string, () => void>();
      const offTerminated = theCloud.onChange((i) => {
        if (i.state === 'terminated') gone.get(i.name)?.();
      });
      const downDone = completion('every floor Machine, instance and Node gone', () => floorMachines().length === 0 && alive.size === 0 && nodes.store.list().length === 0, [machineEvents, nodeEvents, cloudEvents]);
      const now = formatTimestamp(new Date());
      before = await probe();
      const t1 = performance.now();
      const downSteps = Promise.all(
        names.map(async (name) => {
          const terminated = new Promise<void>((resolve) => gone.set(name, resolve));
          await api.delete(machinesRef, NS, name);
          await api.patch(machinesRef, NS, name, { status: { phase: machinePhases.deleting, conditions: [{ type: machineConditionTypes.drained, status: 'True', lastTransitionTime: now }] } }, { type: 'merge', subresource: 'status' });
          await api.patch(resources.nodes, undefined, name, { spec: { unschedulable: true } });
          await cloudApi.terminateInstance(ids.get(name)!);
          await terminated;
          await api.delete(resources.nodes, undefined, name);
          await api.patch(machinesRef, NS, name, { metadata: { finalizers: null } });
        }),
      );
      const down = (await Promise.all([downSteps, downDone]))[1] - t1;
      phaseCosts.push(await costSince(before, n));
      offTerminated();
      return { up, down, costs: phaseCosts };
    }

    /** The controllers' /metrics, on loopback: their reconciles are the profile of a phase. */
    const metricsPorts = [0, 1, 2].map((i) => port + 1 + i);
    type Reconciles = Map<string, { count: number; seconds: number; requeues: number; errors: number }>;
    const reconciles = async (): Promise<Reconciles> => {
      const out: Reconciles = new Map();
      for (const p of metricsPorts) {
        const text = await new Promise<string>((resolve, reject) => {
          httpGet({ host: '127.0.0.1', port: p, path: '/metrics' }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (body += c));
            res.on('end', () => resolve(body));
          }).on('error', reject);
        });
        for (const m of text.matchAll(/^\w+_reconcile_(total|seconds_sum|seconds_count)\{([^}]*)\} ([\d.e+-]+)$/gm)) {
          const controller = /controller="([^"]+)"/.exec(m[2]!)?.[1] ?? '';
          const r = out.get(controller) ?? { count: 0, seconds: 0, requeues: 0, errors: 0 };
          const v = Number(m[3]);
          if (m[1] === 'seconds_sum') r.seconds = v;
          else if (m[1] === 'seconds_count') r.count = v;
          else if (/result="requeue"/.test(m[2]!)) r.requeues = v;
          else if (/result="error"/.test(m[2]!)) r.errors = v;
          out.set(controller, r);
        }
      }
      return out;
    };
    const reconcilesSince = (before: Reconciles, after: Reconciles): string =>
      [...after]
        .map(([name, a]) => {
          const b = before.get(name) ?? { count: 0, seconds: 0, requeues: 0, errors: 0 };
          const count = a.count - b.count;
          return `${name} ${count} (mean ${count ? (((a.seconds - b.seconds) / count) * 1000).toFixed(0) : '-'} ms, ${a.requeues - b.requeues} requeued, ${a.errors - b.errors} failed)`;
        })
        .join(', ');

    async function startControllers(): Promise<void> {
      const group = new Processes(NODE_ARGS);
      controllers = { procs: group, release: group.cleanUpOnExit(dir), pids: [] };
      const common = [`--kubeconfig=${controllerKubeconfig}`, '--leader-elect=false'];
      const metrics = (i: number): string => `--metrics-bind-address=127.0.0.1:${metricsPorts[i]}`;
      controllers.pids = [
        group.start('machineset-controller', ['bin/components/machine-api-operator.js', '/machineset-controller', ...common, metrics(0)]).pid!,
        group.start('nodelink-controller', ['bin/components/machine-api-operator.js', '/nodelink-controller', ...common, metrics(1)]).pid!,
        group.start('machine-controller', ['bin/components/machine-controller.js', ...common, metrics(2), ...CONTROLLER_ARGS]).pid!,
      ];
      await until('the controllers\' watches', async () => {
        const now = await watchers();
        return Object.entries(CONTROLLER_WATCHES).every(([r, k]) => (now[r] ?? 0) >= (ownWatches[r] ?? 0) + k);
      }, 120_000);
      // The last watch opened a moment after its controller's cache synced; its workers start right after.
      await new Promise((r) => setTimeout(r, 500));
    }

    async function stopControllers(): Promise<void> {
      if (!controllers) return;
      const { procs: group, release } = controllers;
      await group.stop(NODE_ARGS.length ? 60_000 : 5000);
      release();
      controllers = undefined;
      await until('the controllers\' watches to close', async () => {
        const now = await watchers();
        return Object.keys(CONTROLLER_WATCHES).every((r) => (now[r] ?? 0) <= (ownWatches[r] ?? 0));
      }, 30_000);
    }

    async function withControllers(n: number): Promise<Pick<Round, 'up' | 'down' | 'upSteps' | 'downSteps'> & { costs: string[]; reconciles: string[] }> {
      const ofSet = (): MachineView[] => machines.store.list().filter((m) => m.metadata?.labels?.[machineLabels.machineSet] === SET);
      // When (ms after the scale) each Machine first showed each step; the figure is the last one's.
      const seen = new Map<string, Record<string, number>>();
      let t0 = 0;
      const note = (m: MachineView, step: string): void => {
        const key = m.metadata?.name ?? '';
        const s = seen.get(key) ?? {};
        s[step] ??= performance.now() - t0;
        seen.set(key, s);
      };
      const offSteps = machineEvents(() => {
        for (const m of ofSet()) {
          note(m, 'created');
          if (m.spec?.providerID) note(m, 'providerID');
          if (m.status?.nodeRef?.name) note(m, 'nodeRef');
          if (m.status?.phase === 'Running') note(m, 'Running');
          if (m.status?.phase === 'Deleting') note(m, 'Deleting');
          if (m.status?.conditions?.some((c) => c.type === 'Drained' && c.status === 'True')) note(m, 'Drained');
        }
      });
      const lastOf = (steps: readonly string[]): Record<string, number> =>
        Object.fromEntries(steps.map((step) => [step, Math.max(...[...seen.values()].map((s) => s[step] ?? NaN))]));

      const running = (): boolean => {
        const ms = ofSet();
        return ms.length === n && ms.every((m) => m.status?.phase === 'Running' && isReady(nodes.store.get(m.status.nodeRef?.name ?? '')));
      };
      const upDone = completion(`${n} Machines Running with Ready Nodes`, running, [machineEvents, nodeEvents]);
      let before = await probe();
      let reconcilesBefore = await reconciles();
      t0 = performance.now();
      await api.patch(machineSetsRef, NS, SET, { spec: { replicas: n } }, { type: 'merge', subresource: 'scale' });
      const up = (await upDone) - t0;
      const phaseCosts = [await costSince(before, n)];
      const reconcileCounts = [reconcilesSince(reconcilesBefore, await reconciles())];
      const upSteps = lastOf(['created', 'providerID', 'nodeRef', 'Running']);

      seen.clear();
      const instanceGone = new Map<string, number>();
      const offInstances = theCloud.onChange((i) => {
        if (i.state === 'terminated' && !instanceGone.has(i.name)) instanceGone.set(i.name, performance.now() - t0);
      });
      const downDone = completion('every Machine, instance and Node gone', () => ofSet().length === 0 && alive.size === 0 && nodes.store.list().length === 0, [machineEvents, nodeEvents, cloudEvents]);
      before = await probe();
      reconcilesBefore = await reconciles();
      t0 = performance.now();
      await api.patch(machineSetsRef, NS, SET, { spec: { replicas: 0 } }, { type: 'merge', subresource: 'scale' });
      const down = (await downDone) - t0;
      phaseCosts.push(await costSince(before, n));
      reconcileCounts.push(reconcilesSince(reconcilesBefore, await reconciles()));
      offInstances();
      offSteps();
      const downSteps = { ...lastOf(['Deleting', 'Drained']), 'instance terminated': Math.max(...instanceGone.values()) };
      return { up, down, upSteps, downSteps, costs: phaseCosts, reconciles: reconcileCounts };
    }

    // ---- rounds: a warm-up, then ROUNDS pairs ----
    for (let r = 0; r <= ROUNDS; r++) {
      const warmup = r === 0;
      const n = warmup ? WARMUP : COUNT;
      const label = warmup ? `warm-up (${n})` : `round ${r}/${ROUNDS}`;
      progress(`${label}: the cloud alone, ${n} instances`);
      const base = await cloudAlone(warmup ? 'w' : String(r), n);
      progress(`${label}: cloud alone up ${secs(base.up)} s, down ${secs(base.down)} s; the floor`);
      const least = await floor(warmup ? 'w' : String(r), n);
      progress(`${label}: floor up ${secs(least.up)} s (ratio ${(least.up / base.up).toFixed(2)}), down ${secs(least.down)} s (ratio ${(least.down / base.down).toFixed(2)}); starting the controllers`);
      await startControllers();
      progress(`${label}: controllers ready; scaling ${SET} 0 → ${n} → 0`);
      const ctl = await withControllers(n);
      await stopControllers();
      progress(`${label}: controllers up ${secs(ctl.up)} s (ratio ${(ctl.up / base.up).toFixed(2)}), down ${secs(ctl.down)} s (ratio ${(ctl.down / base.down).toFixed(2)})`);
      if (!warmup) rounds.push({ cloudUp: base.up, cloudDown: base.down, floorUp: least.up, floorDown: least.down, ...ctl });
      costs = { cloudUp: base.costs[0]!, cloudDown: base.costs[1]!, floorUp: least.costs[0]!, floorDown: least.costs[1]!, up: ctl.costs[0]!, down: ctl.costs[1]!, reconcilesUp: ctl.reconciles[0]!, reconcilesDown: ctl.reconciles[1]! };
    }

    // ---- figures ----
    const upRatios = rounds.map((x) => x.up / x.cloudUp);
    const downRatios = rounds.map((x) => x.down / x.cloudDown);
    const up = median(upRatios);
    const down = median(downRatios);
    const stepsLine = (pick: (x: Round) => Record<string, number>): string =>
      Object.keys(pick(rounds[0]!))
        .map((step) => `${step} ${secs(median(rounds.map((x) => pick(x)[step] ?? NaN)))} s`)
        .join(', ');
    result = [
      `${COUNT} machines of one MachineSet (${TYPE} in ${ZONE}), simulated runtime, no boot delay; machine-controller ${CONTROLLER_ARGS.join(' ') || '(defaults)'}; ${ROUNDS} rounds after a warm-up of ${WARMUP}; per round (s):`,
      `cloud alone, launch to ${COUNT} Nodes Ready: ${list(rounds.map((x) => x.cloudUp), secs)} (median ${secs(median(rounds.map((x) => x.cloudUp)))} s)`,
      `controllers, scale 0 → ${COUNT} to every Machine Running with a Ready Node: ${list(rounds.map((x) => x.up), secs)} (median ${secs(median(rounds.map((x) => x.up)))} s)`,
      `  the last Machine (median over rounds): ${stepsLine((x) => x.upSteps)}`,
      `  cost in the last round: cloud alone ${costs!.cloudUp}`,
      `    floor ${costs!.floorUp}`,
      `    controllers ${costs!.up}`,
      `  reconciles in the last round: ${costs!.reconcilesUp}`,
      `cloud alone, terminate to every instance terminated and Node deleted: ${list(rounds.map((x) => x.cloudDown), secs)} (median ${secs(median(rounds.map((x) => x.cloudDown)))} s)`,
      `controllers, scale ${COUNT} → 0 to every Machine, instance and Node gone: ${list(rounds.map((x) => x.down), secs)} (median ${secs(median(rounds.map((x) => x.down)))} s)`,
      `  the last Machine (median over rounds): ${stepsLine((x) => x.downSteps)}`,
      `  cost in the last round: cloud alone ${costs!.cloudDown}`,
      `    floor ${costs!.floorDown}`,
      `    controllers ${costs!.down}`,
      `  reconciles in the last round: ${costs!.reconcilesDown}`,
      `floor (the issue's writes for each Machine, by this process, no controllers): up ${list(rounds.map((x) => x.floorUp), secs)} (median ${secs(median(rounds.map((x) => x.floorUp)))} s), down ${list(rounds.map((x) => x.floorDown), secs)} (median ${secs(median(rounds.map((x) => x.floorDown)))} s)`,
      `floor ÷ cloud alone (the least any controllers could reach): up ${median(rounds.map((x) => x.floorUp / x.cloudUp)).toFixed(3)}, down ${median(rounds.map((x) => x.floorDown / x.cloudDown)).toFixed(3)}`,
      `controllers ÷ floor (what the controllers add): up ${median(rounds.map((x) => x.up / x.floorUp)).toFixed(3)}, down ${median(rounds.map((x) => x.down / x.floorDown)).toFixed(3)}`,
      `scale-up ratio (controllers ÷ cloud alone, per round): ${list(upRatios, (x) => x.toFixed(2))}; median ${up.toFixed(3)} (target < ${TARGET})`,
      `scale-down ratio (controllers ÷ cloud alone, per round): ${list(downRatios, (x) => x.toFixed(2))}; median ${down.toFixed(3)} (target < ${TARGET})`,
      `machines ratio (the larger of scale-up and scale-down, controllers ÷ cloud alone): ${Math.max(up, down).toFixed(3)} (target < ${TARGET})`,
    ];
  } catch (err) {
    console.log(`machines stopped: ${(err as Error).message}`);
  } finally {
    if (controllers) {
      await controllers.procs.stop(NODE_ARGS.length ? 60_000 : 5000);
      controllers.release();
    }
    stop.abort();
    await cloud?.close().catch(() => {});
    await host?.stop().catch(() => {});
    await cloudServer?.close().catch(() => {});
    await procs.stop(NODE_ARGS.length ? 60_000 : 5000);
    admin?.close();
    for (const c of kubeletClients.values()) c.close();
    rmSync(dir, { recursive: true, force: true });
    releaseExitHandlers();
  }
  for (const line of result ?? []) console.log(line);
}
