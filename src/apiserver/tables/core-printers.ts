/**
 * Printers for the core/v1 kinds other than pods and events: nodes, namespaces, configmaps,
 * secrets, services, endpoints and serviceaccounts, with the columns and cell formats
 * kube-apiserver gives them (`Ready,SchedulingDisabled`, `80/TCP,443:30443/TCP`,
 * `127.128.0.1:80,127.128.0.2:80 + 3 more...`, `<none>` for empty values).
 */
import { formatLabels } from '../../api/label-selector.ts';
import { ageColumn, column, int, nameColumn, size, text, wide } from './columns.ts';
import { ageSince } from './human-duration.ts';
import type { PrintedObject, TableConvertor } from './types.ts';

const name = (o: PrintedObject): string => text(o.metadata?.name);
const age = (o: PrintedObject, now: number): string => ageSince(o.metadata?.creationTimestamp, now);

// --- nodes -------------------------------------------------------------------------------------

const rolePrefix = 'node-role.kubernetes.io/';

/** Roles from `node-role.kubernetes.io/<role>` keys and the older `kubernetes.io/role=<role>`, sorted. */
export function nodeRoles(labels: Record<string, string> | undefined): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(rolePrefix) && k.length > rolePrefix.length) roles.add(k.slice(rolePrefix.length));
    else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

/** `Ready`, `NotReady` or `Unknown` (no Ready condition), then `SchedulingDisabled` if cordoned. */
export function nodeStatus(node: PrintedObject): string {
  const conditions: PrintedObject[] = Array.isArray(node.status?.conditions) ? node.status.conditions : [];
  // The last Ready condition wins, as Kubernetes builds a map by type.
  const ready = conditions.filter((c) => c?.type === 'Ready').pop();
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: PrintedObject, type: string): string {
  const found = (node.status?.addresses ?? []).find((a: PrintedObject) => a?.type === type);
  return found ? text(found.address) : '<none>';
}

export const nodeTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Whether the node is ready, and whether it takes new pods.'),
    column('Roles', 'string', 'The node’s roles, from its node-role.kubernetes.io labels.'),
    ageColumn,
    column('Version', 'string', 'The kubelet version the node reports.'),
    wide('Internal-IP', 'string', 'The node’s first InternalIP address.'),
    wide('External-IP', 'string', 'The node’s first ExternalIP address.'),
    wide('OS-Image', 'string', 'The operating system image the node reports.'),
    wide('Kernel-Version', 'string', 'The kernel version the node reports.'),
    wide('Container-Runtime', 'string', 'The container runtime and version the node reports.'),
  ],
  cells(node, now) {
    const info = node.status?.nodeInfo ?? {};
    return [
      name(node),
      nodeStatus(node),
      nodeRoles(node.metadata?.labels).join(',') || '<none>',
      age(node, now),
      text(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      text(info.osImage) || '<unknown>',
      text(info.kernelVersion) || '<unknown>',
      text(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

// --- namespaces, configmaps, secrets, serviceaccounts --------------------------------------------

export const namespaceTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Status', 'string', 'The namespace’s phase: Active or Terminating.'), ageColumn],
  cells: (ns, now) => [name(ns), text(ns.status?.phase), age(ns, now)],
};

export const configMapTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Data', 'string', 'How many keys the config map holds (data and binaryData).'), ageColumn],
  cells: (cm, now) => [name(cm), size(cm.data) + size(cm.binaryData), age(cm, now)],
};

export const secretTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Type', 'string', 'The secret’s type.'), column('Data', 'string', 'How many keys the secret holds.'), ageColumn],
  cells(secret, now) {
    // stringData is write-only and folded into data on write; count its keys if a stored object still has them.
    const keys = new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})]);
    return [name(secret), text(secret.type), keys.size, age(secret, now)];
  },
};

export const serviceAccountTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Secrets', 'string', 'How many secrets the service account lists.'), ageColumn],
  cells: (sa, now) => [name(sa), Array.isArray(sa.secrets) ? sa.secrets.length : 0, age(sa, now)],
};

// --- services ----------------------------------------------------------------------------------

function loadBalancerAddresses(service: PrintedObject): string[] {
  const found = new Set<string>();
  for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
    if (text(ingress?.ip)) found.add(ingress.ip);
    else if (text(ingress?.hostname)) found.add(ingress.hostname);
  }
  return [...found].sort();
}

/** EXTERNAL-IP: external IPs, load-balancer addresses (`<pending>` until there are some), or the external name. */
export function serviceExternalIP(service: PrintedObject): string {
  const externalIPs: string[] = Array.isArray(service.spec?.externalIPs) ? service.spec.externalIPs : [];
  switch (service.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(service);
      if (externalIPs.length) return [...lb, ...externalIPs].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(service.spec?.externalName);
    default:
      return '<unknown>';
  }
}

/** `80/TCP,443:30443/TCP`: port, node port when there is one, protocol. */
export function servicePorts(ports: unknown): string {
  const list: PrintedObject[] = Array.isArray(ports) ? ports : [];
  return list.map((p) => (int(p?.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${text(p.protocol) || 'TCP'}` : `${int(p?.port)}/${text(p?.protocol) || 'TCP'}`)).join(',');
}

export const serviceTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Type', 'string', 'How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'string', 'The virtual IP the service answers on inside the cluster.'),
    column('External-IP', 'string', 'Where the service is reachable from outside the cluster.'),
    column('Port(s)', 'string', 'The service’s ports, with node ports and protocols.'),
    ageColumn,
    wide('Selector', 'string', 'The labels of the pods the service sends traffic to.'),
  ],
  cells(svc, now) {
    return [
      name(svc),
      text(svc.spec?.type),
      text(svc.spec?.clusterIP) || '<none>',
      serviceExternalIP(svc),
      servicePorts(svc.spec?.ports) || '<none>',
      age(svc, now),
      formatLabels(svc.spec?.selector),
    ];
  },
};

// --- endpoints ---------------------------------------------------------------------------------

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** The first three `ip:port` pairs, then ` + N more...`; `<none>` without subsets. */
export function formatEndpoints(endpoints: PrintedObject): string {
  const subsets: PrintedObject[] = Array.isArray(endpoints.subsets) ? endpoints.subsets : [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  const add = (entry: string): void => {
    if (list.length < max) list.push(entry);
    count++;
  };
  for (const subset of subsets) {
    const addresses: PrintedObject[] = Array.isArray(subset?.addresses) ? subset.addresses : [];
    const ports: PrintedObject[] = Array.isArray(subset?.ports) ? subset.ports : [];
    if (ports.length === 0) {
      // Headless services may have no ports.
      for (const a of addresses) add(text(a?.ip));
    } else {
      for (const p of ports) for (const a of addresses) add(hostPort(text(a?.ip), int(p?.port)));
    }
  }
  const joined = list.join(',');
  return count > max ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Endpoints', 'string', 'The addresses and ports that back the service.'), ageColumn],
  cells: (ep, now) => [name(ep), formatEndpoints(ep), age(ep, now)],
};
