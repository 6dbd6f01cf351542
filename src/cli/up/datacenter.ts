/**
 * The local datacenter behind `shipyard up` (ARCHITECTURE.md, "What `shipyard up` runs"): the
 * wiring of the parts that are not pods. The cloud boots instances; booting one calls into the
 * node host, which runs that node's kubelet; the masters' first-boot Ignition carries the
 * control plane as static pods, so the API server, controller-manager and scheduler come up
 * as pods the way an OpenShift install brings them up; the load balancer at 127.0.0.1 fronts
 * the API servers; the service proxy serves ClusterIPs; the reaper guarantees no pod process
 * outlives this one.
 *
 * `cloud/` and `node/` may not know each other: this file is where they meet.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { parseDuration } from '../../api/duration.ts';
import { ensureServingPki } from '../../apiserver/auth/pki.ts';
import { ensureTokenAuthenticator } from '../../apiserver/auth/tokens.ts';
import { writeKubeconfig } from '../../apiserver/auth/kubeconfig.ts';
import { ensureIdentityKubeconfig } from '../../apiserver/auth/identity-kubeconfig.ts';
import { bootsFromConfigServer, kubeletCredential } from './kubelet-credential.ts';
import { readKubeletUnit } from '../../node/kubelet/kubelet-unit.ts';
import { ensureKubeletApiToken } from '../../apiserver/handlers/kubelet-logs.ts';
import { createCloud, type Cloud } from '../../cloud/cloud.ts';
import { findInstanceType } from '../../cloud/catalog.ts';
import { startCloudServer, type CloudServer } from '../../cloud/server.ts';
import { startLoadBalancer, type LoadBalancer } from '../../cloud/load-balancer.ts';
import type { Instance } from '../../cloud/state.ts';
import { ApiClient } from '../../runtime/client.ts';
import { ClientConfig } from '../../runtime/kubeconfig.ts';
import { InformerFactory } from '../../runtime/informer-factory.ts';
import { createEventRecorder } from '../../runtime/events.ts';
import type { ImageStore } from '../../node/images.ts';
import { createProcessRuntime } from '../../node/runtimes/process.ts';
import { createSimulatedRuntime } from '../../node/runtimes/simulated.ts';
import { createNodeHost, type NodeHost } from '../../node/node-host.ts';
import { startServiceProxy } from '../../node/service-proxy/index.ts';
import { storeFor } from '../images.ts';
import { controlPlaneFiles } from './bootstrap-ignition.ts';
import { bootstrapManifests, renderBootstrap, type BootstrapApiServer } from './bootstrap-render.ts';
import { nodeIgnition, renderMachineConfigBootstrap, type MachineConfigBootstrap } from './machine-config.ts';
import type { LoadedPayload } from '../../release/payload.ts';
import { SERVER_PORT } from '../../operators/machine-config/operator/names.ts';
import { masterName, workerName, type ClusterSpec } from './cluster-spec.ts';
import type { NodeAction } from './control.ts';
import type { NodeRow } from './progress.ts';
import { startReaper, type Reaper } from './reaper.ts';
import { addressBlock } from './address-block.ts';

export interface DatacenterOptions {
  readonly dataDir: string;
  readonly spec: ClusterSpec;
  readonly resumed: boolean;
  readonly logger: Logger;
  /** Passed to the controller-manager (`--node-monitor-grace-period`), so tests can be quick. */
  readonly nodeMonitorGracePeriod?: string;
  readonly leaseDurationSeconds?: number;
  /** The release the cluster installs: its images name the OS the nodes' first configs are rendered for. */
  readonly release: LoadedPayload;
}

export interface Datacenter {
  readonly kubeconfigPath: string;
  readonly client: ApiClient;
  readonly cloud: Cloud;
  /** The cloud API's URL (`http://<block host>:<cloud port>`), for the machine controllers' credentials. */
  readonly cloudUrl: string;
  /** What the nodes booted from, for the install to create in the API (machine-config.ts). */
  readonly machineConfig: MachineConfigBootstrap;
  /** What `shipyard render` wrote for the cluster to hold (bootstrap-render.ts), for the install to create. */
  readonly bootstrapManifests: readonly KubernetesObject[];
  rows(): Promise<NodeRow[]>;
  /** True once every node is registered and Ready. */
  allReady(): Promise<boolean>;
  nodeAction(action: NodeAction, name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The role of a node `shipyard up` launches itself (it names them). */
function roleOf(name: string): 'master' | 'worker' {
  return name.startsWith('master-') ? 'master' : 'worker';
}

const controlPlaneLabels = ['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane'];

export async function startDatacenter(o: DatacenterOptions): Promise<Datacenter> {
  const { dataDir, spec, logger } = o;
  mkdirSync(dataDir, { recursive: true });
  // Leftovers of an earlier run are already gone: `shipyard up` kills them before its address check.
  const reaper: Reaper = await startReaper(dataDir);

  // The CA and admin credentials exist before anything runs: kubelets and the load balancer
  // need them, and the API server (a static pod) reuses them when it starts.
  const block = addressBlock(spec.block);
  const apiUrl = `https://${block.host}:${spec.apiPort}`;
  const pkiDir = join(dataDir, 'pki');
  const baseSans = [block.host, block.kubernetesIP, 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const pki = await ensureServingPki(pkiDir, { ipAddresses: baseSans.filter((s) => /^\d/.test(s)), dnsNames: baseSans.filter((s) => !/^\d/.test(s)) });
  if (pki.reissued) logger.info({ reason: pki.reissued }, 'serving certificate re-issued from the existing CA');
  const auth = ensureTokenAuthenticator(pkiDir);
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, { server: apiUrl, caCertPem: pki.caCertPem, token: auth.adminToken });
  const kubeConfig = new ClientConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  // Every part of the datacenter acts as an identity of its own, holding only what it needs
  // (src/apiserver/authz/bootstrap-policy.ts); the admin's credentials are the installer's.
  const identity = (file: string, user: string, groups: string[] = []) => ensureIdentityKubeconfig({ path: join(pkiDir, file), server: apiUrl, pkiDir, user, groups });
  const controllerManagerKubeconfig = await identity('kube-controller-manager.kubeconfig', 'system:kube-controller-manager');
  const schedulerKubeconfig = await identity('kube-scheduler.kubeconfig', 'system:kube-scheduler');
  const hostConfig = new ClientConfig();
  hostConfig.loadFromFile(await identity('node-host.kubeconfig', 'system:shipyard:node-host'));
  // Every node boots from its pool's rendered config, as the machine-config controller renders it.
  const machineConfig = renderMachineConfigBootstrap({ payload: o.release, rootCAPem: pki.caCertPem, serviceCIDR: block.serviceCIDR });

  const images: ImageStore = storeFor(dataDir);

  const stopController = new AbortController();
  const client = new ApiClient(kubeConfig, { userAgent: 'shipyard-datacenter', maxSockets: 64 });
  const hostClient = new ApiClient(hostConfig, { userAgent: 'shipyard-node-host', maxSockets: 64 });
  const informers = new InformerFactory({ client: hostClient, signal: stopController.signal, backoff: { initialMs: 200, maxMs: 5000 } });
  const recorder = createEventRecorder({ kubeConfig: hostConfig, component: 'kubelet', signal: stopController.signal });
  // Each kubelet's own writes and reads go out as `system:node:<name>`, so the Node authorizer
  // holds it to its own Node and to the Secrets and ConfigMaps of its own pods.
  const kubeletClients = new Map<string, ApiClient>();

  // Kube's kubelet renews its Lease every 10 s against the controller-manager's 40 s grace: four
  // renewals per grace period. A shorter --node-monitor-grace-period keeps that ratio, or a
  // healthy node whose renewal lands a moment late looks dead (at 10 s against 10 s it did,
  // every few periods).
  const graceMs = o.nodeMonitorGracePeriod ? parseDuration(o.nodeMonitorGracePeriod) : undefined;
  const nodeHost: NodeHost = createNodeHost({
    client: hostClient,
    ...(graceMs !== undefined && graceMs < 40_000 ? { timings: { leaseRenewMs: Math.max(500, Math.floor(graceMs / 4)) } } : {}),
    // Lease renewals on a thread of their own: this thread's pauses never make a node look dead.
    heartbeatThread: { kubeConfig: hostConfig },
    informers,
    logger: logger.child({ component: 'kubelet' }),
    recorder,
    // SHIPYARD_V8_OPTIMIZE given to `shipyard up` reaches every pod's process (cli/compiler-policy.ts).
    runtimes: [createProcessRuntime({ images, pidRegistry: reaper, env: { ...reaper.marker, ...(process.env.SHIPYARD_V8_OPTIMIZE ? { SHIPYARD_V8_OPTIMIZE: process.env.SHIPYARD_V8_OPTIMIZE } : {}) } }), createSimulatedRuntime()],
    caCert: pki.caCertPem,
    logServer: {
      tls: { cert: readFileSync(join(pkiDir, 'apiserver.crt'), 'utf8'), key: readFileSync(join(pkiDir, 'apiserver.key'), 'utf8') },
      token: ensureKubeletApiToken(pkiDir),
    },
  });

  // Nodes whose kubelet is getting its credential and starting, by name.
  const joining = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const cloud = await createCloud({
    dataDir,
    nodeCIDR: block.nodeCIDR,
    logger: logger.child({ component: 'cloud' }),
    hooks: {
      boot: async (instance: Readonly<Instance>) => {
        const nodeDir = join(dataDir, 'nodes', instance.name);
        const starting = startNode(instance, nodeDir);
        // A machine booted from the config server is running while its kubelet waits for its
        // certificate (kubelet-credential.ts), as a real one is; stopping it cancels the wait.
        if (!bootsFromConfigServer(join(nodeDir, 'root'))) await starting.done;
      },
      stop: async (instance: Readonly<Instance>) => {
        const j = joining.get(instance.name);
        j?.controller.abort();
        await j?.done;
        await nodeHost.removeNode(instance.name);
        kubeletClients.get(instance.name)?.close();
        kubeletClients.delete(instance.name);
      },
    },
  });

  /** Gets the node's kubelet its credential and starts it; a failure rejects `done` only for nodes the installer launched. */
  function startNode(instance: Readonly<Instance>, nodeDir: string): { done: Promise<void> } {
    const controller = new AbortController();
    const root = join(nodeDir, 'root');
    const done = (async () => {
      const kubeletKubeconfig = await kubeletCredential({ nodeName: instance.name, nodeRoot: root, apiUrl, pkiDir, logger: logger.child({ component: 'kubelet' }), signal: controller.signal });
      if (controller.signal.aborted) return;
      const type = findInstanceType(instance.type);
      const kubeletConfig = new ClientConfig();
      kubeletConfig.loadFromFile(kubeletKubeconfig);
      kubeletClients.get(instance.name)?.close();
      const kubeletClient = new ApiClient(kubeletConfig, { userAgent: `kubelet/${instance.name}`, maxSockets: 8 });
      kubeletClients.set(instance.name, kubeletClient);
      const kubelet = nodeHost.addNode({
        client: kubeletClient,
        leaseCredentials: readFileSync(kubeletKubeconfig, 'utf8'),
        nodeName: instance.name,
        nodeIP: instance.privateIP,
        nodeDir,
        // Roles, labels and registration taints come from the kubelet unit the node booted
        // with (01-<role>-kubelet), not from its name. OpenShift's machine-config node
        // controller drops the masters' NoSchedule taint when the Scheduler config makes
        // masters schedulable; here the datacenter knows that from its shape, so the kubelet
        // leaves the taint off when it registers.
        omitRegisterTaints: spec.mastersSchedulable ? ['node-role.kubernetes.io/master'] : [],
        zone: instance.zone,
        region: instance.region,
        instanceType: instance.type,
        providerID: instance.providerID,
        capacity: { cpu: String(type?.cpu ?? 4), memory: type?.memory ?? '16Gi', pods: String(type?.maxPods ?? 250) },
      });
      await kubelet.start();
    })();
    const entry = {
      controller,
      done: done.catch((err: unknown) => {
        if (controller.signal.aborted) return;
        if (!bootsFromConfigServer(root)) throw err;
        logger.error({ node: instance.name, err: (err as Error).message }, `the kubelet of node ${instance.name} did not start`);
      }).finally(() => {
        if (joining.get(instance.name) === entry) joining.delete(instance.name);
      }),
    };
    joining.set(instance.name, entry);
    return entry;
  }

  const lb: LoadBalancer = await startLoadBalancer({
    host: block.host,
    port: spec.apiPort,
    backends: [],
    healthCheck: { kind: 'https', path: '/readyz', ca: pki.caCertPem },
    intervalMs: 1000,
    logger: logger.child({ component: 'load-balancer' }),
  });
  // The machine-config server runs on every master (a hostNetwork DaemonSet); new machines
  // fetch their config through this address, as OpenShift's reach api-int:22623.
  const mcsLb: LoadBalancer = await startLoadBalancer({
    host: block.host,
    port: SERVER_PORT,
    backends: [],
    healthCheck: { kind: 'https', path: '/healthz', ca: pki.caCertPem },
    intervalMs: 2000,
    logger: logger.child({ component: 'mcs-load-balancer' }),
  });
  // A node's role is what its kubelet unit says (the pool's config it booted from), as the
  // kubelet itself reads it, so a master Machine added later is a backend too. Read once per
  // instance, when its root has the unit (first boot has run); the installer's tag stands in
  // before that.
  const roles = new Map<string, 'master' | 'worker'>();
  const instanceRole = (i: Readonly<Instance>): 'master' | 'worker' => {
    const known = roles.get(i.id);
    if (known) return known;
    const unit = readKubeletUnit(cloud.nodeRoot(i.name));
    const tagged = i.tags['shipyard.io/role'] === 'master' ? 'master' : 'worker';
    if (unit.state !== 'found') return tagged;
    const role = controlPlaneLabels.some((l) => l in unit.labels) ? 'master' : 'worker';
    roles.set(i.id, role);
    return role;
  };
  const syncBackends = (): void => {
    for (const i of cloud.list({ state: 'terminated' })) roles.delete(i.id);
    const masters = cloud.list().filter((i) => i.state !== 'terminated' && instanceRole(i) === 'master');
    // Every master's :6443, whether or not a replica runs there yet: one that does not fails
    // its /readyz check (or refuses the connection) and gets no traffic until it is ready.
    lb.setBackends(masters.map((i) => ({ host: i.privateIP, port: 6443 })));
    mcsLb.setBackends(masters.map((i) => ({ host: i.privateIP, port: SERVER_PORT })));
  };
  cloud.onChange(syncBackends);

  const cloudServer: CloudServer = await startCloudServer({ cloud, dataDir, host: block.host, port: spec.cloudPort, logger: logger.child({ component: 'cloud-api' }) });

  if (o.resumed) {
    syncBackends();
    await cloud.resume();
  } else {
    // The bootstrap API server runs on master-0 from render's output, outside the revision system.
    const bootstrapApiServer = renderBootstrap({ dataDir, apiUrl, block, apiPort: 6443 });
    for (let i = 0; i < spec.masters; i++) await launch(masterName(i), i === 0 ? bootstrapApiServer : undefined);
    for (let i = 0; i < spec.workers; i++) await launch(workerName(i));
  }

  async function launch(name: string, bootstrapApiServer?: BootstrapApiServer): Promise<void> {
    const existing = cloud.list({ name }).find((i) => i.state !== 'terminated');
    if (existing) return;
    const role = roleOf(name);
    const instance = await cloud.runInstance({
      name,
      type: role === 'master' ? 's.xlarge' : 's.large',
      tags: { 'shipyard.io/role': role },
      userData: nodeIgnition(
        machineConfig,
        role,
        role === 'master'
          ? controlPlaneFiles({
              dataDir,
              controllerManagerKubeconfig,
              schedulerKubeconfig,
              bootstrapApiServer,
              leaseDurationSeconds: o.leaseDurationSeconds ?? 137,
              nodeMonitorGracePeriod: o.nodeMonitorGracePeriod,
              podCIDR: block.podCIDR,
            })
          : [],
      ),
    });
    logger.debug({ instance: instance.id, name }, 'instance launched');
  }

  const proxy = startServiceProxy({ informers, logger: logger.child({ component: 'service-proxy' }), signal: stopController.signal });

  async function rows(): Promise<NodeRow[]> {
      const nodes = await client.list<{ metadata?: { name?: string }; status?: { conditions?: { type: string; status: string }[] } }>({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false }).catch(() => undefined);
      const byName = new Map((nodes?.items ?? []).map((n) => [n.metadata?.name ?? '', n]));
      return cloud
        .list()
        .filter((i) => i.state !== 'terminated')
        .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
        .map((i) => {
          const node = byName.get(i.name);
          const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
          return {
            name: i.name,
            role: instanceRole(i),
            ip: i.privateIP,
            instance: i.state,
            node: !node ? 'not registered' : ready?.status === 'True' ? 'Ready' : ready?.status === 'Unknown' ? 'Unknown' : 'NotReady',
          };
        });
  }

  return {
    kubeconfigPath,
    client,
    cloud,
    cloudUrl: cloudServer.url,
    machineConfig,
    bootstrapManifests: bootstrapManifests(dataDir),
    rows,
    async allReady() {
      const all = await rows();
      return all.length === spec.masters + spec.workers && all.every((r) => r.node === 'Ready');
    },
    async nodeAction(action, name) {
      const kubelet = nodeHost.get(name);
      if (!kubelet) throw new Error(`node "${name}" is not running in this datacenter`);
      if (action === 'stop-kubelet') await kubelet.stop();
      else if (action === 'start-kubelet') await kubelet.start();
      else await kubelet.reboot();
      return `node/${name}: ${action} done`;
    },
    async stop() {
      // No instance boots from here on (one booting now finishes first), so the node host's
      // stop sees every kubelet there will be.
      await cloud.close();
      // Kubelets still waiting for their certificate give up: none may start on a stopping host.
      const waiting = [...joining.values()];
      for (const j of waiting) j.controller.abort();
      await Promise.all(waiting.map((j) => j.done.catch(() => {})));
      // Pods stop while the service proxy still serves: a stopping operator reaches the API
      // server through the `kubernetes` Service to release its Lease.
      await nodeHost.stop();
      stopController.abort();
      await proxy.done;
      await cloudServer.close();
      await lb.close();
      await mcsLb.close();
      client.close();
      hostClient.close();
      for (const c of kubeletClients.values()) c.close();
      reaper.release();
    },
  };
}
