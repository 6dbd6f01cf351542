/**
 * Wiring between the generic store and the rest of the server: built-in schemas on the
 * built-in definitions, the system namespaces, managedFields for non-apply writes,
 * ClusterIP allocation for Services, and pod graceful deletion.
 */
import { builtinResolver, builtinSchemaFor } from '../api/builtin/schemas.ts';
import { updateManagedFields } from './patch/managed-fields.ts';
import { fieldError } from '../api/field-errors.ts';
import { errors } from './errors.ts';
import type { ResourceRegistry } from './registry/registry.ts';
import { apiVersionOf, type KubeObject, type ResourceDefinition } from './registry/resource.ts';
import type { ObjectStore, StoreHooks } from './registry/store.ts';
import { DEFAULT_SERVICE_CIDR } from './controllers/kubernetes-service.ts';
import { addressAt, cidrContains, cidrSize } from '../api/cidr.ts';

export function attachBuiltinSchemas(defs: ResourceDefinition[]): ResourceDefinition[] {
  return defs.map((d) => {
    const found = builtinSchemaFor(d.group, d.version, d.kind);
    return found ? { ...d, schema: { root: found.schema, resolve: builtinResolver }, openApiName: found.name } : d;
  });
}

export { ensureSystemNamespaces, systemNamespaces } from './controllers/namespace-system.ts';

export const managedFieldsHook: NonNullable<StoreHooks['managedFields']> = (def, live, updated, ctx) => {
  if (ctx.applied) return updated.metadata?.managedFields;
  return updateManagedFields({
    live,
    updated,
    manager: ctx.manager,
    apiVersion: apiVersionOf(def),
    now: new Date(),
    subresource: ctx.subresource === 'status' ? 'status' : undefined,
    schema: def.schema?.root,
    resolve: def.schema?.resolve,
  });
};

/**
 * Service ClusterIPs come from the Service range, 127.64.0.0/16 unless the datacenter's address
 * block says otherwise (ARCHITECTURE.md, "Addresses"): loopback, so they are real. Its first
 * address is never handed out: it belongs to `default/kubernetes`, which in-cluster clients
 * find there even while it is being re-created; nor is its last.
 */
/** `--service-node-port-range`, inclusive at both ends (kube's default 30000-32767). */
export interface PortRange {
  readonly base: number;
  readonly size: number;
}

export const DEFAULT_NODE_PORT_RANGE: PortRange = { base: 30000, size: 2768 };

/**
 * A free slot of `count`, starting the search at a random one (so allocations spread out as
 * kube's random allocators do) and going round once: undefined when every slot is taken,
 * rather than searching forever.
 */
function freeSlot(count: number, free: (n: number) => boolean): number | undefined {
  const start = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const n = (start + i) % count;
    if (free(n)) return n;
  }
  return undefined;
}

function isKubernetesService(obj: KubeObject): boolean {
  return obj.metadata?.namespace === 'default' && obj.metadata?.name === 'kubernetes';
}

export function serviceAdmission(store: () => ObjectStore, serviceCIDR = DEFAULT_SERVICE_CIDR, nodePorts: PortRange = DEFAULT_NODE_PORT_RANGE): NonNullable<StoreHooks['admitCreate']> {
  const nodePortRange = `${nodePorts.base}-${nodePorts.base + nodePorts.size - 1}`;
  const kubernetesIP = addressAt(serviceCIDR, 1);
  // Slot n is the range's address n + 2.
  const slots = cidrSize(serviceCIDR) - 3;
  const clusterIpAt = (n: number): string => addressAt(serviceCIDR, n + 2);
  return async (def, obj) => {
    if (def.group !== '' || def.resource !== 'services') return;
    const spec = obj.spec ?? {};
    if (spec.type === 'ExternalName' || spec.clusterIP === 'None') {
      if (spec.clusterIP === 'None') spec.clusterIPs = ['None'];
      return;
    }
    const used = new Set<string>();
    for (const s of (await store().list(def, undefined)).items) if (s.spec?.clusterIP) used.add(s.spec.clusterIP);
    if (spec.clusterIP) {
      if (!cidrContains(serviceCIDR, spec.clusterIP)) {
        throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid('spec.clusterIP', spec.clusterIP, `provided IP is not in the valid range. The range of valid IPs is ${serviceCIDR}`)]);
      }
      if (spec.clusterIP === kubernetesIP && !isKubernetesService(obj)) {
        throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid('spec.clusterIP', spec.clusterIP, 'provided IP is reserved for the kubernetes Service in the default namespace')]);
      }
      if (used.has(spec.clusterIP)) throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid('spec.clusterIP', spec.clusterIP, 'provided IP is already allocated')]);
    } else {
      const ip = freeSlot(slots, (n) => !used.has(clusterIpAt(n)));
      if (ip === undefined) throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid('spec.clusterIP', '', `the range of valid IPs ${serviceCIDR} is full`)]);
      spec.clusterIP = clusterIpAt(ip);
    }
    spec.clusterIPs = [spec.clusterIP];
    spec.ipFamilies = ['IPv4'];
    spec.ipFamilyPolicy = 'SingleStack';
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
      const usedPorts = new Set<number>();
      for (const s of (await store().list(def, undefined)).items) for (const p of s.spec?.ports ?? []) if (p.nodePort) usedPorts.add(p.nodePort);
      for (const [i, p] of (spec.ports ?? []).entries()) {
        if (p.nodePort) {
          if (p.nodePort < nodePorts.base || p.nodePort >= nodePorts.base + nodePorts.size) {
            throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid(`spec.ports[${i}].nodePort`, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${nodePortRange}`)]);
          }
          continue;
        }
        const slot = freeSlot(nodePorts.size, (n) => !usedPorts.has(nodePorts.base + n));
        if (slot === undefined) throw errors.invalid('Service', '', obj.metadata?.name ?? '', [fieldError.invalid(`spec.ports[${i}].nodePort`, '', `the range of valid ports ${nodePortRange} is full`)]);
        usedPorts.add(nodePorts.base + slot);
        p.nodePort = nodePorts.base + slot;
      }
    }
    obj.spec = spec;
  };
}

/**
 * A pod bound to an existing node is deleted gracefully (its kubelet finishes the deletion);
 * a pod that never reached a node, or whose node is gone, is deleted at once, as kube-apiserver does.
 */
export function gracefulDeletionHook(store: () => ObjectStore, registry: ResourceRegistry): NonNullable<StoreHooks['gracefulDeletionSeconds']> {
  return async (def, obj, requested) => {
    if (def.group !== '' || def.resource !== 'pods') return 0;
    if (requested === 0) return 0;
    const phase = obj.status?.phase;
    if (!obj.spec?.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    const nodeDef = registry.lookup('', 'v1', 'nodes')!;
    const node = await store().getRaw(nodeDef, undefined, obj.spec.nodeName);
    if (!node) return 0;
    const grace = requested ?? obj.spec?.terminationGracePeriodSeconds ?? 30;
    return Math.max(0, grace);
  };
}
