/**
 * The control plane as static pod manifests, the files only masters get at first boot beside
 * their pool's rendered config (machine-config.ts), as openshift-install renders the masters'
 * bootstrap: the kubelet runs them before any API server exists. They belong to the control
 * plane, not to the Machine Config Operator: no MachineConfig names them, so the daemon never
 * touches them. The bootstrap API server (master-0 only) is what `shipyard render` wrote: its
 * static pod and the config file it reads (bootstrap-render.ts).
 */
import { stringify } from 'yaml';
import { encodeDataUrl, type IgnitionFile } from '../../api/ignition/index.ts';
import { bootstrapConfigFileName, bootstrapConfigHostDir, bootstrapPodFileName } from '../../operators/kube-apiserver/render/render.ts';
import { builtinImage } from '../components.ts';

export interface ControlPlaneSettings {
  readonly dataDir: string;
  /** The kubeconfigs of the controller-manager and scheduler: client certificates of their own identities. */
  readonly controllerManagerKubeconfig: string;
  readonly schedulerKubeconfig: string;
  /** The bootstrap API server as `shipyard render` wrote it (master-0 only): its static pod and its config file's text. */
  readonly bootstrapApiServer?: { readonly pod: Record<string, unknown>; readonly config: string };
  readonly leaseDurationSeconds: number;
  /** The controller-manager's `--node-monitor-grace-period` (default 40s). */
  readonly nodeMonitorGracePeriod?: string;
  /** The datacenter's address block's pod range, for the controller-manager's podCIDRs. */
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
  if (s.bootstrapApiServer) out[bootstrapPodFileName] = s.bootstrapApiServer.pod;
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
  const file = (path: string, text: string): IgnitionFile => ({ path, mode: 0o644, overwrite: true, contents: { source: encodeDataUrl(text) } });
  const files = Object.entries(controlPlaneManifests(settings)).map(([name, manifest]) => file(`/etc/kubernetes/manifests/${name}`, stringify(manifest)));
  // Its config beside the manifests, where the pod's hostPath volume finds it.
  if (settings.bootstrapApiServer) files.push(file(`${bootstrapConfigHostDir}/${bootstrapConfigFileName}`, settings.bootstrapApiServer.config));
  return files;
}
