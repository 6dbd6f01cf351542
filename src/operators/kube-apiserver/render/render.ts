/**
 * `render`'s pure core (issue 17, item 6; upstream's `cluster-kube-apiserver-operator render`):
 * from the install configuration, the assets that start a cluster's first API server outside
 * the revision system, which the operator's revision 1 then replaces.
 *
 * - `manifests/`: what the cluster must hold for the operator to observe the same facts: the
 *   Endpoints `kube-system/host-etcd` naming the store (storage observer), the ConfigMap
 *   `kube-system/cluster-config-v1` with the install configuration (network observer), and the
 *   operand's namespace (the bootstrap pod's mirror lives there, as upstream's does).
 * - the bootstrap config: the operator's own observers run over those manifests in memory, and
 *   the result is merged over the operator's default layer and checked by the same code as the
 *   target-config controller's, so the bootstrap server and revision 1 differ only in what the
 *   operator observes that render cannot know (the internal registry's hostname).
 * - `bootstrap-manifests/kube-apiserver-pod.yaml`: the static pod `bootstrap-kube-apiserver`,
 *   Shipyard's `kube-apiserver` reading that config from a hostPath, with the per-node flags of
 *   every revision's pod. Its file name is the revisions' (the installer's revision 1 replaces
 *   it); its pod name is not, so the installer never takes it for a revision's mirror pod.
 */
import type { V1ConfigMap, V1Endpoints } from '@kubernetes/client-node';
import { addressAt } from '../../../api/cidr.ts';
import { kubeAPIServerNamespace } from '../../../api/operator/index.ts';
import { ObjectCache } from '../../../runtime/cache.ts';
import { observeConfig } from '../../../runtime/config-observer.ts';
import type { SparseConfig } from '../../../runtime/sparse-config.ts';
import type { Image } from '../../../api/config/image.ts';
import { kubeAPIServerConfigObservers } from '../configobserver/observers.ts';
import { clusterConfig } from '../configobserver/network.ts';
import { hostEtcd, sqliteStoreAnnotation } from '../configobserver/storage.ts';
import { operandVerbosity, renderConfig } from '../targetconfig/render.ts';
import { installConfigFile, RenderInputError, type RenderInputs } from './inputs.ts';

/** Where the bootstrap config lives on the node, where the pod sees it, and its file name (upstream's). */
export const bootstrapConfigHostDir = '/etc/kubernetes/bootstrap-configs';
export const bootstrapConfigMountDir = '/etc/kubernetes/config';
export const bootstrapConfigFileName = 'kube-apiserver-config.yaml';
/** The static pod's manifest file: the same name as every revision's, so revision 1 replaces it. */
export const bootstrapPodFileName = 'kube-apiserver-pod.yaml';
export const bootstrapPodName = 'bootstrap-kube-apiserver';

export interface RenderOptions {
  /** The operand's image: Shipyard's `kube-apiserver` component. */
  readonly image: string;
  /** The port every replica serves on, on its node's address (6443). */
  readonly securePort: number;
}

type Manifest = Record<string, unknown>;

export interface BootstrapAssets {
  /** The bootstrap KubeAPIServerConfig (`--config-output-file`). */
  readonly config: SparseConfig;
  /** File name → static pod manifest (`bootstrap-manifests/`). */
  readonly bootstrapManifests: Readonly<Record<string, Manifest>>;
  /** File name → object the cluster must hold (`manifests/`), in the order to create them. */
  readonly manifests: Readonly<Record<string, Manifest>>;
}

function clusterManifests(inputs: RenderInputs): { namespace: Manifest; hostEtcd: V1Endpoints; clusterConfig: V1ConfigMap } {
  return {
    namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: kubeAPIServerNamespace, labels: { 'openshift.io/run-level': '0' } } },
    // No subsets: the store is a directory, not members; the endpoints controller leaves an
    // Endpoints it does not manage alone.
    hostEtcd: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: hostEtcd.name, namespace: hostEtcd.namespace, annotations: { [sqliteStoreAnnotation]: inputs.storeDir } } },
    clusterConfig: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: clusterConfig.name, namespace: clusterConfig.namespace }, data: { [clusterConfig.key]: inputs.installConfig } },
  };
}

/** What the operator's observers make of the manifests, as its first sync will. */
function observeBootstrap(m: ReturnType<typeof clusterManifests>): SparseConfig {
  const endpoints = new ObjectCache<V1Endpoints>();
  endpoints.upsert(m.hostEtcd);
  const configMaps = new ObjectCache<V1ConfigMap>();
  configMaps.upsert(m.clusterConfig);
  const observed = observeConfig({
    observers: kubeAPIServerConfigObservers,
    listers: { endpoints, configMaps, images: new ObjectCache<Image>() },
    recorder: { event: () => {} },
    existing: {},
    shuffle: (items) => [...items],
  });
  if (observed.errors.length || !observed.config) throw new RenderInputError(`${installConfigFile}: ${observed.errors.join('; ')}`);
  return observed.config;
}

/** Names clients reach the servers by: the load balancer's host, the `kubernetes` Service. */
function servingNames(inputs: RenderInputs, servicesSubnet: string): string[] {
  const firstServiceNetwork = servicesSubnet.split(',')[0]!;
  return [new URL(inputs.apiServerURL).hostname, addressAt(firstServiceNetwork, 1), 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
}

function bootstrapPod(inputs: RenderInputs, config: SparseConfig, o: RenderOptions): Manifest {
  const grace = Number(config.gracefulTerminationDuration);
  const sans = servingNames(inputs, String(config.servicesSubnet));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: bootstrapPodName,
      // The operand's namespace, as upstream's bootstrap pod: its mirror sits beside the revisions'.
      namespace: kubeAPIServerNamespace,
      labels: { 'openshift.io/control-plane': 'true', 'openshift.io/component': 'api' },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      tolerations: [{ operator: 'Exists' }],
      terminationGracePeriodSeconds: Number.isInteger(grace) && grace > 0 ? grace : 70,
      containers: [
        {
          name: 'kube-apiserver',
          image: o.image,
          args: [
            `--config=${bootstrapConfigMountDir}/${bootstrapConfigFileName}`,
            `--v=${operandVerbosity(undefined)}`,
            // The per-node flags, as every revision's pod has them: the kubelet expands $(HOST_IP).
            '--bind-address=$(HOST_IP)',
            '--advertise-address=$(HOST_IP)',
            `--secure-port=${o.securePort}`,
            `--advertise-url=${inputs.apiServerURL}`,
            '--tls-san=$(HOST_IP)',
            ...sans.map((san) => `--tls-san=${san}`),
          ],
          env: [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }],
          readinessProbe: { httpGet: { scheme: 'HTTPS', path: '/readyz', port: o.securePort }, periodSeconds: 2, failureThreshold: 3 },
          // No volume for the store: its URL names the storage every replica shares, as an
          // etcd member's URL does, and the server uses it as it is.
          volumeMounts: [{ name: 'config', mountPath: bootstrapConfigMountDir, readOnly: true }],
        },
      ],
      volumes: [{ name: 'config', hostPath: { path: bootstrapConfigHostDir } }],
    },
  };
}

/** Throws RenderInputError naming the input and field that make the assets impossible. */
export function renderBootstrapAssets(inputs: RenderInputs, o: RenderOptions): BootstrapAssets {
  const m = clusterManifests(inputs);
  const rendered = renderConfig({ observedConfig: observeBootstrap(m) });
  if (!rendered.ok) throw new RenderInputError(`${installConfigFile}: the bootstrap config is invalid:\n${rendered.message}`);
  return {
    config: rendered.config,
    bootstrapManifests: { [bootstrapPodFileName]: bootstrapPod(inputs, rendered.config, o) },
    manifests: {
      '00_openshift-kube-apiserver-ns.yaml': m.namespace,
      'host-etcd-endpoints.yaml': m.hostEtcd as Manifest,
      'cluster-config-v1-configmap.yaml': m.clusterConfig as Manifest,
    },
  };
}
