/**
 * OpenShift's `openshift.io/RestrictedEndpointsAdmission`: an Endpoints (or EndpointSlice)
 * whose addresses fall in a restricted CIDR (the cluster's pod and service networks, as the
 * kube-apiserver operator observes them) may only be written by someone allowed to
 * `create endpoints/restricted`, so an ordinary user cannot point a Service at another
 * tenant's pods or at a ClusterIP. An update that leaves the addresses as they were passes, so
 * a label change never needs the permission; the server's own writes (no user) pass too.
 */
import { isDeepStrictEqual } from 'node:util';
import { cidrContains } from '../../api/cidr.ts';
import { errors } from '../errors.ts';
import type { KubeObject, RequestUser, ResourceDefinition } from '../registry/resource.ts';
import type { Authorizer } from './authorizer.ts';

export const restrictedEndpointsPluginName = 'openshift.io/RestrictedEndpointsAdmission';

export interface RestrictedEndpointsAdmission {
  admit(def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, ctx: { user?: RequestUser; subresource?: string }): void;
}

type Addressed = { ip?: unknown; addresses?: unknown };

/** Every address an Endpoints' subsets or an EndpointSlice's endpoints list. */
function addressesOf(def: ResourceDefinition, obj: KubeObject): string[] {
  const out: string[] = [];
  if (def.group === '') {
    for (const subset of (obj as { subsets?: { addresses?: Addressed[]; notReadyAddresses?: Addressed[] }[] }).subsets ?? []) {
      for (const a of [...(subset.addresses ?? []), ...(subset.notReadyAddresses ?? [])]) if (typeof a.ip === 'string') out.push(a.ip);
    }
  } else {
    for (const e of (obj as { endpoints?: Addressed[] }).endpoints ?? []) for (const a of Array.isArray(e.addresses) ? e.addresses : []) if (typeof a === 'string') out.push(a);
  }
  return out;
}

function isEndpoints(def: ResourceDefinition): boolean {
  return (def.group === '' && def.resource === 'endpoints') || (def.group === 'discovery.k8s.io' && def.resource === 'endpointslices');
}

export function createRestrictedEndpointsAdmission(restrictedCIDRs: readonly string[], authorizer: Authorizer): RestrictedEndpointsAdmission {
  return {
    admit(def, obj, old, ctx) {
      if (!ctx.user || ctx.subresource || !isEndpoints(def) || restrictedCIDRs.length === 0) return;
      const addresses = addressesOf(def, obj);
      if (old && isDeepStrictEqual(addresses, addressesOf(def, old))) return;
      const restricted = addresses.find((ip) => restrictedCIDRs.some((cidr) => cidrContains(cidr, ip)));
      if (restricted === undefined) return;
      const namespace = obj.metadata?.namespace ?? '';
      const allowed = authorizer.authorize({ kind: 'resource', user: { ...ctx.user, uid: ctx.user.uid ?? '' }, verb: 'create', namespace, apiGroup: '', resource: 'endpoints', subresource: 'restricted', name: '' }).allowed;
      if (!allowed) throw errors.forbidden({ group: def.group, resource: def.resource }, obj.metadata?.name ?? '', `endpoint address ${restricted} is not allowed`);
    },
  };
}
