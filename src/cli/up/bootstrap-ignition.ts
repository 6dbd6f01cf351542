/**
 * The control plane as static pod manifests, the files only masters get at first boot beside
 * their pool's rendered config (machine-config.ts), as openshift-install renders the masters'
 * bootstrap: the kubelet runs them before any API server exists. They belong to the control
 * plane, not to the Machine Config Operator: no MachineConfig names them, so the daemon never
 * touches them.
 */
import { stringify } from 'yaml';
import { encodeDataUrl, type IgnitionFile } from '../../api/ignition/index.ts';
import { builtinImage } from '../components.ts';

export interface ControlPlaneSettings {
  readonly dataDir: string;
  readonly apiPort: number;
  /** `https://<block host>:<port>`: the load balancer. */
  readonly apiUrl: string;
  /** The kubeconfigs of the controller-manager and scheduler: client certificates of their own identities. */
  readonly controllerManagerKubeconfig: string;
  readonly schedulerKubeconfig: string;
  /** Addresses clients use to reach the API server, for its certificate. */
  readonly sans: readonly string[];
  readonly runApiServer: boolean;
  readonly leaseDurationSeconds: number;
  /** The controller-manager's `--node-monitor-grace-period` (default 40s). */
  readonly nodeMonitorGracePeriod?: string;
  /** The datacenter's address block: ClusterIPs for the API server, podCIDRs for the controller-manager. */
  readonly serviceCIDR: string;
  readonly podCIDR: string;
}

type Manifest = Record<string, unknown>;

function staticPod(name: string, args: string[], extra: Record<string, unknown> = {}): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'kube-system', labels: { app: name, component: name, tier: 'control-plane' } },
    spec: {
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name, image: builtinImage(name), args, ...extra }],
    },
  };
}

export function controlPlaneManifests(s: ControlPlaneSettings): Record<string, Manifest> {
  const out: Record<string, Manifest> = {};
  if (s.runApiServer) {
    out['kube-apiserver-pod.yaml'] = staticPod(
      'kube-apiserver',
      [
        `--data-dir=${s.dataDir}`,
        // The node's address is known to the kubelet, not to whoever renders this config: the
        // downward API hands it over and the kubelet expands $(HOST_IP) as Kubernetes does.
        '--bind-address=$(HOST_IP)',
        // The address the kubernetes Service's Endpoints list for this replica (the bind
        // address would do by default; said outright so a change of bind does not move it).
        '--advertise-address=$(HOST_IP)',
        `--secure-port=${s.apiPort}`,
        `--advertise-url=${s.apiUrl}`,
        `--service-cluster-ip-range=${s.serviceCIDR}`,
        '--tls-san=$(HOST_IP)',
        ...s.sans.map((san) => `--tls-san=${san}`),
      ],
      {
        env: [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }],
        readinessProbe: { httpGet: { scheme: 'HTTPS', path: '/readyz', port: s.apiPort }, periodSeconds: 2, failureThreshold: 3 },
      },
    );
  }
  const election = [`--leader-elect-lease-duration=${s.leaseDurationSeconds}s`];
  const grace = s.nodeMonitorGracePeriod ? [`--node-monitor-grace-period=${s.nodeMonitorGracePeriod}`] : [];
  // csrsigning issues with the cluster CA, the one the API server trusts client certificates by
  // (pki.ts writes ca.crt and ca.key), so a certificate it signs for a joining kubelet works at once.
  const signing = [`--cluster-signing-cert-file=${s.dataDir}/pki/ca.crt`, `--cluster-signing-key-file=${s.dataDir}/pki/ca.key`];
  out['kube-controller-manager-pod.yaml'] = staticPod('kube-controller-manager', [`--kubeconfig=${s.controllerManagerKubeconfig}`, `--cluster-cidr=${s.podCIDR}`, ...signing, ...election, ...grace]);
  out['kube-scheduler-pod.yaml'] = staticPod('kube-scheduler', [`--kubeconfig=${s.schedulerKubeconfig}`, ...election]);
  return out;
}

/** The static pod manifests as first-boot files under /etc/kubernetes/manifests. */
export function controlPlaneFiles(settings: ControlPlaneSettings): IgnitionFile[] {
  return Object.entries(controlPlaneManifests(settings)).map(([name, manifest]) => ({
    path: `/etc/kubernetes/manifests/${name}`,
    mode: 0o644,
    overwrite: true,
    contents: { source: encodeDataUrl(stringify(manifest)) },
  }));
}
