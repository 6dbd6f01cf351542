/**
 * The Node a kubelet registers and the status it reports: labels Kubernetes tooling reads
 * (roles, hostname, zone, instance type), addresses, capacity and allocatable, conditions and
 * version information. Only the kubelet's own fields are written, so taints and conditions
 * set by others (the node lifecycle controller, `kubectl cordon`) survive.
 */
import type { V1Node, V1NodeCondition, V1Taint } from '@kubernetes/client-node';
import { quantityMilliValue } from '../../api/quantity.ts';
import { formatTimestamp } from '../../api/time.ts';
import type { KubeletConfig } from './kubelet-config.ts';

export interface NodeIdentity {
  readonly nodeName: string;
  readonly nodeIP: string;
  readonly roles: readonly string[];
  readonly taints: readonly V1Taint[];
  readonly zone?: string;
  readonly region?: string;
  readonly instanceType?: string;
  readonly providerID?: string;
  readonly capacity: { readonly cpu: string; readonly memory: string; readonly pods: string };
  readonly labels?: Readonly<Record<string, string>>;
  readonly kubeletPort: number;
}

export const KUBELET_VERSION = 'v1.32.0+shipyard';

export function nodeLabels(id: NodeIdentity): Record<string, string> {
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': id.nodeName,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
    ...(id.labels ?? {}),
  };
  for (const r of id.roles) labels[`node-role.kubernetes.io/${r}`] = '';
  if (id.zone) labels['topology.kubernetes.io/zone'] = id.zone;
  if (id.region) labels['topology.kubernetes.io/region'] = id.region;
  if (id.instanceType) labels['node.kubernetes.io/instance-type'] = id.instanceType;
  return labels;
}

function allocatable(id: NodeIdentity, cfg: KubeletConfig): Record<string, string> {
  const cpu = Math.max(0, quantityMilliValue(id.capacity.cpu) - cfg.reservedCpuMilli);
  const mem = Math.max(0, Math.floor(quantityMilliValue(id.capacity.memory) / 1000 - cfg.reservedMemory));
  return { cpu: `${cpu}m`, memory: `${Math.floor(mem / 1024)}Ki`, pods: String(cfg.maxPods), 'ephemeral-storage': '100Gi' };
}

export function nodeStatus(id: NodeIdentity, cfg: KubeletConfig, ready: { ok: boolean; reason: string; message: string }, bootID: string, previous?: V1Node): V1Node['status'] {
  const t = formatTimestamp();
  const cond = (type: string, status: string, reason: string, message: string): V1NodeCondition => {
    const old = previous?.status?.conditions?.find((c) => c.type === type);
    return { type, status, reason, message, lastHeartbeatTime: t as never, lastTransitionTime: (old?.status === status ? old.lastTransitionTime : t) as never };
  };
  return {
    addresses: [
      { type: 'InternalIP', address: id.nodeIP },
      { type: 'Hostname', address: id.nodeName },
    ],
    capacity: { cpu: id.capacity.cpu, memory: id.capacity.memory, pods: String(cfg.maxPods), 'ephemeral-storage': '100Gi' },
    allocatable: allocatable(id, cfg),
    conditions: [
      cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', ready.ok ? 'True' : 'False', ready.reason, ready.message),
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: id.kubeletPort } },
    nodeInfo: {
      machineID: id.nodeName,
      systemUUID: id.providerID ?? id.nodeName,
      bootID,
      kernelVersion: process.version,
      osImage: 'Shipyard hollow node',
      containerRuntimeVersion: 'shipyard://0.1.0',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** The Node as it registers, in the boot `bootID`: the status it posts later names the same boot. */
export function newNode(id: NodeIdentity, cfg: KubeletConfig, bootID: string): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: id.nodeName, labels: nodeLabels(id), annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
    spec: { ...(id.providerID ? { providerID: id.providerID } : {}), ...(id.taints.length ? { taints: [...id.taints] } : {}) },
    status: nodeStatus(id, cfg, { ok: true, reason: 'KubeletReady', message: 'kubelet is posting ready status' }, bootID),
  };
}
