/**
 * Test support for the kubelet: a real API server, and one real kubelet in a node host with
 * the process and simulated runtimes and an image store in a temporary directory, wired the
 * way `shipyard up` wires them (src/cli/up/datacenter.ts) but with timings short enough for a
 * test to see leases renew, back-offs grow and reboots finish in seconds. Nothing here is a
 * stand-in: the kubelet reaches the server only through its client, as it does in a cluster.
 * Not a test file itself.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig, type CoreV1Event, type V1Container, type V1Node, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { createNodeHost, type NodeHost } from '../../src/node/node-host.ts';
import { openImageStore, type ImageStore } from '../../src/node/images.ts';
import type { Kubelet, KubeletTimings } from '../../src/node/kubelet/kubelet.ts';
import type { ContainerRuntime } from '../../src/node/container-runtime.ts';
import { createProcessRuntime } from '../../src/node/runtimes/process.ts';
import { createSimulatedRuntime } from '../../src/node/runtimes/simulated.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createEventRecorder } from '../../src/runtime/events.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until as untilWithin, type UntilOptions } from '../support/until.ts';

/**
 * `until` with a 30 s default deadline: node tests wait on real processes, whose start a busy
 * machine slows most. Node tests import everything they need from here.
 */
export function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, options: number | UntilOptions = {}): Promise<T> {
  return untilWithin(what, probe, typeof options === 'number' ? options : { timeoutMs: 30_000, ...options });
}

export const APP_IMAGE = 'example.test/node-app:1';
const appEntrypoint = fileURLToPath(new URL('./fixtures/node-app.mjs', import.meta.url));

export const fastTimings: Partial<KubeletTimings> = {
  leaseRenewMs: 300,
  statusCheckMs: 300,
  staticPodPollMs: 150,
  volumeRefreshMs: 5_000,
  backoffInitialMs: 300,
  backoffMaxMs: 2_400,
  registerRetryMs: 200,
};

export interface NodeUnderTest {
  readonly ts: TestServer;
  readonly client: ApiClient;
  readonly host: NodeHost;
  readonly kubelet: Kubelet;
  readonly nodeName: string;
  readonly nodeIP: string;
  /** The node directory; its filesystem is `<nodeDir>/root`. */
  readonly nodeDir: string;
  /** A scratch directory of the test's own (pid files, probe markers). */
  readonly scratch: string;
  readonly images: ImageStore;
  /** Process groups the process runtime started and has not seen exit. */
  readonly liveGroups: ReadonlySet<number>;
  pod(name: string, namespace?: string): Promise<V1Pod | undefined>;
  node(): Promise<V1Node>;
  /** Events about one object, oldest first. */
  events(name: string, namespace?: string): Promise<CoreV1Event[]>;
  stop(): Promise<void>;
}

export interface NodeOptions {
  readonly nodeName: string;
  readonly nodeIP: string;
  /** Set on the Node once it registers: no node IPAM controller runs in these tests. */
  readonly podCIDR?: string;
  readonly timings?: Partial<KubeletTimings>;
  /** Runs before the kubelet starts (e.g. to write kubelet.conf or a static pod manifest). */
  readonly prepare?: (nodeDir: string) => void;
  /** Server to share with another node; started here otherwise. */
  readonly server?: TestServer;
  /** Runtimes tried before the process and simulated ones (a test's own seam, e.g. a start it holds back). */
  readonly runtimes?: readonly ContainerRuntime[];
  /** The roles the host gives the node (default worker); `[]` leaves them to the kubelet unit in its root. */
  readonly roles?: readonly string[];
  /** Taint keys of the kubelet unit's `--register-with-taints` the kubelet leaves off. */
  readonly omitRegisterTaints?: readonly string[];
  /**
   * The kubeconfig the kubelet acts with, made after `prepare` (by a TLS bootstrap in the node
   * root, say): its own identity, as in a datacenter. Without it the kubelet uses the admin's.
   */
  readonly credentials?: (nodeDir: string) => Promise<string>;
}

export async function startNode(o: NodeOptions): Promise<NodeUnderTest> {
  const ts = o.server ?? (await startTestServer());
  const base = mkdtempSync(join(tmpdir(), 'shipyard-kubelet-'));
  const nodeDir = join(base, 'node');
  const scratch = join(base, 'scratch');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(ts.server.kubeconfigPath);
  const client = new ApiClient(kubeConfig, { userAgent: `kubelet-test/${o.nodeName}` });
  const stop = new AbortController();
  const informers = new InformerFactory({ client, signal: stop.signal, backoff: { initialMs: 100, maxMs: 1000 } });
  const images = openImageStore(join(base, 'images'));
  images.import(APP_IMAGE, { entrypoint: appEntrypoint });
  const liveGroups = new Set<number>();
  const logger = pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' });
  const host = createNodeHost({
    client,
    informers,
    logger,
    recorder: createEventRecorder({ kubeConfig, component: 'kubelet', host: o.nodeName, signal: stop.signal, retryDelayMs: 100 }),
    runtimes: [...(o.runtimes ?? []), createProcessRuntime({ images, pidRegistry: { add: (g) => liveGroups.add(g), remove: (g) => liveGroups.delete(g) } }), createSimulatedRuntime({ startDelayMs: 0 })],
    timings: { ...fastTimings, ...(o.timings ?? {}) },
    caCert: ts.server.caCertPem,
  });
  o.prepare?.(nodeDir);
  let kubeletClient: ApiClient | undefined;
  let stopping: Promise<void> | undefined;
  // Each step runs even if the one before it threw: a host that failed to stop must not leave
  // its processes, its informers or the server running. Calling it again waits for the first call.
  const stopAll = (): Promise<void> =>
    (stopping ??= (async () => {
      try {
        try {
          // Pods still running get their grace period; tests keep those short.
          await host.stop();
        } finally {
          // Whatever a failed test left running must not outlive the run.
          for (const g of liveGroups) {
            try {
              process.kill(-g, 'SIGKILL');
            } catch {
              // Already gone.
            }
          }
          stop.abort();
          try {
            await informers.done();
          } finally {
            client.close();
            kubeletClient?.close();
            if (!o.server) await ts.stop();
          }
        }
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    })());
  let kubelet: Kubelet;
  try {
    if (o.credentials) {
      const own = new ClientConfig();
      own.loadFromFile(await o.credentials(nodeDir));
      kubeletClient = new ApiClient(own, { userAgent: `kubelet/${o.nodeName}` });
    }
    kubelet = host.addNode({
      nodeName: o.nodeName,
      nodeIP: o.nodeIP,
      nodeDir,
      roles: o.roles ?? ['worker'],
      omitRegisterTaints: o.omitRegisterTaints,
      ...(kubeletClient ? { client: kubeletClient } : {}),
      zone: 'zone-a',
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    });
  } catch (err) {
    await stopAll().catch(() => {});
    throw err;
  }
  const node = async (): Promise<V1Node> => client.get<V1Node>(resources.nodes, undefined, o.nodeName);
  try {
    await kubelet.start();
    if (o.podCIDR) {
      await until('the Node to register', () => node().catch(() => undefined));
      await client.patch(resources.nodes, undefined, o.nodeName, { spec: { podCIDR: o.podCIDR, podCIDRs: [o.podCIDR] } }, { type: 'merge' });
    }
  } catch (err) {
    // The caller gets no stop() to call: take down what was started, and its directory, here.
    await stopAll().catch(() => {});
    throw err;
  }
  return {
    ts,
    client,
    host,
    kubelet,
    nodeName: o.nodeName,
    nodeIP: o.nodeIP,
    nodeDir,
    scratch,
    images,
    liveGroups,
    pod: (name, namespace = 'default') => client.get<V1Pod>(resources.pods, namespace, name).catch(() => undefined),
    node,
    async events(name, namespace = 'default') {
      const list = await client.list<CoreV1Event>(resources.events, namespace);
      return list.items.filter((e) => e.involvedObject?.name === name).sort((a, b) => String(a.firstTimestamp ?? a.eventTime).localeCompare(String(b.firstTimestamp ?? b.eventTime)));
    },
    stop: stopAll,
  };
}

/** A pod bound to `nodeName` at create time (no scheduler runs in these tests). */
export function boundPod(name: string, nodeName: string, spec: { containers: V1Container[]; restartPolicy?: string; terminationGracePeriodSeconds?: number; labels?: Record<string, string> }): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...(spec.labels ? { labels: spec.labels } : {}) },
    // No service-account token: these tests are about the kubelet, not token issuance (and no
    // controller creates the default ServiceAccount here).
    spec: { nodeName, automountServiceAccountToken: false, containers: spec.containers, restartPolicy: spec.restartPolicy ?? 'Always', terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 1 },
  };
}

/** A container of the test image; POD_IP comes from the downward API, as a real pod would get it. */
export function appContainer(name: string, args: string[], extra: Partial<V1Container> = {}): V1Container {
  return {
    name,
    image: APP_IMAGE,
    args,
    ...extra,
    env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, ...(extra.env ?? [])],
  };
}

export const containerStatus = (pod: V1Pod | undefined, name: string) => pod?.status?.containerStatuses?.find((c) => c.name === name);

export const condition = (pod: V1Pod | undefined, type: string): string | undefined => pod?.status?.conditions?.find((c) => c.type === type)?.status;

/**
 * The pid a container wrote to `file`, once it is all there: a process writing it truncates the
 * file first, and a read in between sees nothing (which Number() would take for pid 0).
 */
export function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True when no process has this pid (a zombie counts as gone: it has exited). */
export function pidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}
