/**
 * Many kubelets in one process (the datacenter's nodes, or thousands of simulated ones), fed by
 * ONE pod informer and ONE node informer: each event goes to the kubelet of the pod's node.
 * A kubelet per watch would make the API server filter every pod event once per node.
 */
import type { Logger } from 'pino';
import type { V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { ApiClient } from '../runtime/client.ts';
import type { EventSink } from '../runtime/context.ts';
import type { InformerFactory } from '../runtime/informer-factory.ts';
import { resources } from '../runtime/resources.ts';
import type { DeepReadonly } from '../runtime/readonly.ts';
import type { ContainerRuntime } from './container-runtime.ts';
import { createKubelet, type Kubelet, type KubeletOptions, type KubeletTimings } from './kubelet/kubelet.ts';
import { startHeartbeatThread, type HeartbeatThreadOptions } from './heartbeat/heartbeat-thread.ts';
import type { NodeLeases, Renewal } from './heartbeat/lease-renewals.ts';

const BY_NODE = 'spec.nodeName';

export interface NodeHostOptions {
  client: ApiClient;
  /** Every kubelet's lease renewals and node status (see KubeletOptions.heartbeatClient). */
  heartbeatClient?: ApiClient;
  informers: InformerFactory;
  logger: Logger;
  recorder: EventSink;
  runtimes: ContainerRuntime[];
  caCert?: string;
  timings?: Partial<KubeletTimings>;
  /** Every Lease renewal's outcome (benchmarks). */
  onHeartbeat?: (r: Renewal) => void;
  logServer?: KubeletOptions['logServer'];
  /**
   * Renew every node's Lease on a thread of its own, with its own connections built from this
   * kubeconfig (see heartbeat/heartbeat-thread.ts). Without it each kubelet renews on this
   * thread through `heartbeatClient`.
   */
  heartbeatThread?: { kubeConfig: HeartbeatThreadOptions['kubeConfig']; maxSockets?: number };
}

export type AddNodeOptions = Omit<KubeletOptions, 'client' | 'heartbeatClient' | 'leases' | 'recorder' | 'logger' | 'runtimes' | 'caCert' | 'kubernetesService' | 'currentNode' | 'boundPods' | 'timings' | 'onHeartbeat' | 'logServer'> & {
  timings?: Partial<KubeletTimings>;
  /** This kubelet's own client (its `system:node:<name>` identity); the host's by default. */
  client?: ApiClient;
  /** The kubeconfig of that identity, serialised: its Lease is renewed under it too. */
  leaseCredentials?: string;
};

export interface NodeHost {
  addNode(o: AddNodeOptions): Kubelet;
  get(name: string): Kubelet | undefined;
  removeNode(name: string): Promise<void>;
  nodes(): string[];
  stop(): Promise<void>;
}

/** Informer objects are frozen; the kubelet only reads them, and the types say readonly. */
const mutable = <T>(o: DeepReadonly<T>): T => o as unknown as T;

export function createNodeHost(o: NodeHostOptions): NodeHost {
  const kubelets = new Map<string, Kubelet>();
  const pods = o.informers.informer<V1Pod>(resources.pods);
  pods.addIndexer(BY_NODE, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
  const nodes = o.informers.informer<V1Node>(resources.nodes);
  const services = o.informers.informer<V1Service>(resources.services, { namespace: 'default', fieldSelector: 'metadata.name=kubernetes' });

  const route = (p: DeepReadonly<V1Pod>, fn: (k: Kubelet, pod: V1Pod) => void): void => {
    const k = p.spec?.nodeName ? kubelets.get(p.spec.nodeName) : undefined;
    if (k) fn(k, mutable<V1Pod>(p));
  };
  pods.on('add', (p) => route(p, (k, pod) => k.podChanged(pod)));
  pods.on('update', (p) => route(p, (k, pod) => k.podChanged(pod)));
  pods.on('delete', (p) => route(p, (k, pod) => k.podDeleted(pod)));
  nodes.on('add', (n) => kubelets.get(n.metadata?.name ?? '')?.nodeChanged());
  nodes.on('update', (n) => kubelets.get(n.metadata?.name ?? '')?.nodeChanged());

  // A node whose renewals fail is said once, and again when they work: not 0.1 times a second per node.
  const failingLeases = new Set<string>();
  const leases: NodeLeases | undefined = o.heartbeatThread
    ? startHeartbeatThread({
        kubeConfig: o.heartbeatThread.kubeConfig,
        maxSockets: o.heartbeatThread.maxSockets,
        userAgent: 'kubelet-heartbeats',
        logger: o.logger,
        reportAll: o.onHeartbeat !== undefined,
        onRenewal: (r) => {
          o.onHeartbeat?.(r);
          if (!r.ok && !failingLeases.has(r.nodeName)) {
            failingLeases.add(r.nodeName);
            o.logger.warn({ node: r.nodeName, err: r.error }, 'node lease renewal failed; retrying each interval');
          } else if (r.ok && failingLeases.delete(r.nodeName)) {
            o.logger.info({ node: r.nodeName }, 'node lease renewed again');
          }
        },
      })
    : undefined;

  let stopped = false;
  const kubernetesService = (): { host: string; port: number } | undefined => {
    const svc = services.store.get('default/kubernetes');
    const ip = svc?.spec?.clusterIP;
    const port = svc?.spec?.ports?.find((p) => p.name === 'https')?.port ?? svc?.spec?.ports?.[0]?.port;
    return ip && port ? { host: ip, port } : undefined;
  };

  return {
    addNode(a) {
      // A node booting while the datacenter stops would start pods nobody stops.
      if (stopped) throw new Error(`node host is stopping; node ${a.nodeName} not added`);
      const existing = kubelets.get(a.nodeName);
      if (existing) return existing;
      const credentials = a.leaseCredentials;
      const nodeLeases: NodeLeases | undefined = leases && credentials ? { set: (lease) => leases.set({ ...lease, credentials }), delete: (name) => leases.delete(name), close: async () => {} } : leases;
      const k = createKubelet({
        ...a,
        client: a.client ?? o.client,
        heartbeatClient: o.heartbeatClient,
        recorder: o.recorder,
        logger: o.logger,
        runtimes: o.runtimes,
        caCert: o.caCert,
        timings: { ...(o.timings ?? {}), ...(a.timings ?? {}) },
        leases: nodeLeases,
        onHeartbeat: o.onHeartbeat,
        logServer: o.logServer,
        kubernetesService,
        currentNode: () => nodes.store.get(a.nodeName) as V1Node | undefined,
        boundPods: () => (pods.hasSynced() ? pods.store.byIndex(BY_NODE, a.nodeName).map((p) => mutable<V1Pod>(p)) : []),
      });
      kubelets.set(a.nodeName, k);
      return k;
    },
    get: (name) => kubelets.get(name),
    async removeNode(name) {
      const k = kubelets.get(name);
      if (!k) return;
      kubelets.delete(name);
      await k.shutdown();
    },
    nodes: () => [...kubelets.keys()],
    async stop() {
      stopped = true;
      const all = [...kubelets.values()];
      // Every node's regular pods before any node's static pods: the API server a pod on one
      // node talks to may be a static pod on another.
      await Promise.all(all.map((k) => k.stop()));
      await Promise.all(all.map((k) => k.haltPods('regular')));
      await Promise.all(all.map((k) => k.haltPods('static')));
      kubelets.clear();
      await leases?.close();
    },
  };
}
