/**
 * Discovery documents built from the resource registry: the legacy forms (`/api`,
 * `/apis`, `/api/v1`, `/apis/{g}/{v}`: APIVersions, APIGroupList, APIResourceList, where
 * subresources appear as `pods/eviction`) and aggregated discovery (apidiscovery.k8s.io/v2
 * APIGroupDiscoveryList). Documents are rebuilt only when the registry changes.
 */
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceDefinition } from '../registry/resource.ts';
import { storageVersionHashOf } from './storage-version-hash.ts';
import { compareKubeVersions } from './versions.ts';
import { compareStrings } from '../../api/compare.ts';

export const aggregatedContentType = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
export const aggregatedContentTypeBeta = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

const resourceVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface SubresourceInfo {
  name: string;
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

function subresourcesOf(def: ResourceDefinition): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  const s = def.subresources;
  const self = { group: def.group, version: def.version, kind: def.kind };
  if (s.approval) out.push({ name: 'approval', ...self, verbs: ['get', 'patch', 'update'] });
  if (s.binding) out.push({ name: 'binding', group: '', version: 'v1', kind: 'Binding', verbs: ['create'] });
  if (s.eviction) out.push({ name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  if (s.finalize) out.push({ name: 'finalize', ...self, verbs: ['update'] });
  if (s.log) out.push({ name: 'log', ...self, kind: 'Pod', verbs: ['get'] });
  if (s.scale) out.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  if (s.status) out.push({ name: 'status', ...self, verbs: ['get', 'patch', 'update'] });
  if (s.token) out.push({ name: 'token', group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
  return out;
}

function withStorageVersionHash(d: ResourceDefinition): { storageVersionHash?: string } {
  const hash = storageVersionHashOf(d);
  return hash === undefined ? {} : { storageVersionHash: hash };
}

interface GroupVersions {
  name: string;
  versions: string[];
}

export class Discovery {
  private cachedGen = -1;
  private groups: GroupVersions[] = [];
  private byGv = new Map<string, ResourceDefinition[]>();
  private aggregatedCache = new Map<string, string>();

  constructor(private readonly registry: ResourceRegistry) {}

  private refresh(): void {
    if (this.cachedGen === this.registry.generation) return;
    this.cachedGen = this.registry.generation;
    this.aggregatedCache.clear();
    this.byGv.clear();
    const versions = new Map<string, Set<string>>();
    for (const d of this.registry.all()) {
      if (!d.served) continue;
      const gv = `${d.group}/${d.version}`;
      const list = this.byGv.get(gv) ?? [];
      list.push(d);
      this.byGv.set(gv, list);
      const set = versions.get(d.group) ?? new Set<string>();
      set.add(d.version);
      versions.set(d.group, set);
    }
    for (const list of this.byGv.values()) list.sort((a, b) => compareStrings(a.resource, b.resource));
    const order = ['', 'apps', 'events.k8s.io', 'autoscaling', 'batch', 'policy', 'coordination.k8s.io', 'apiextensions.k8s.io'];
    this.groups = [...versions.entries()]
      .map(([name, vs]) => ({ name, versions: [...vs].sort(compareKubeVersions) }))
      .sort((a, b) => {
        const ia = order.indexOf(a.name);
        const ib = order.indexOf(b.name);
        if (ia >= 0 || ib >= 0) return (ia < 0 ? 1000 : ia) - (ib < 0 ? 1000 : ib);
        return compareStrings(a.name, b.name);
      });
  }

  hasGroupVersion(group: string, version: string): boolean {
    this.refresh();
    return this.byGv.has(`${group}/${version}`);
  }

  hasGroup(group: string): boolean {
    this.refresh();
    return this.groups.some((g) => g.name === group);
  }

  /** Every served group-version as `api/v1` or `apis/<g>/<v>` (the OpenAPI v3 root's keys). */
  groupVersionPaths(): string[] {
    this.refresh();
    return this.groups.flatMap((g) => g.versions.map((v) => (g.name ? `apis/${g.name}/${v}` : `api/${v}`)));
  }

  resourcesOf(group: string, version: string): ResourceDefinition[] {
    this.refresh();
    return this.byGv.get(`${group}/${version}`) ?? [];
  }

  apiVersions(serverAddress: string): object {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  }

  private apiGroup(g: GroupVersions): object {
    const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
    return { name: g.name, versions, preferredVersion: versions[0] };
  }

  apiGroupList(): object {
    this.refresh();
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups.filter((g) => g.name).map((g) => this.apiGroup(g)) };
  }

  apiGroupDoc(group: string): object | undefined {
    this.refresh();
    const g = this.groups.find((x) => x.name === group);
    return g && group ? { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(g) } : undefined;
  }

  apiResourceList(group: string, version: string): object | undefined {
    this.refresh();
    const defs = this.byGv.get(`${group}/${version}`);
    if (!defs) return undefined;
    const resources: object[] = [];
    for (const d of defs) {
      resources.push({
        name: d.resource,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: d.verbs ?? resourceVerbs,
        ...(d.shortNames.length ? { shortNames: d.shortNames } : {}),
        ...(d.categories.length ? { categories: d.categories } : {}),
        ...withStorageVersionHash(d),
      });
      for (const s of subresourcesOf(d)) {
        const foreign = s.group !== d.group || s.version !== d.version;
        resources.push({ name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced, ...(foreign ? { group: s.group, version: s.version } : {}), kind: s.kind, verbs: s.verbs });
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
  }

  /** The aggregated document for `/api` (legacy) or `/apis`, serialized once per registry generation. */
  aggregated(legacy: boolean, version: 'v2' | 'v2beta1'): string {
    this.refresh();
    const cacheKey = `${legacy}/${version}`;
    const hit = this.aggregatedCache.get(cacheKey);
    if (hit) return hit;
    const items = this.groups
      .filter((g) => (legacy ? g.name === '' : g.name !== ''))
      .map((g) => ({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({
          version: v,
          freshness: 'Current',
          resources: (this.byGv.get(`${g.name}/${v}`) ?? []).map((d) => ({
            resource: d.resource,
            responseKind: { group: d.group, version: d.version, kind: d.kind },
            scope: d.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: d.singular,
            verbs: d.verbs ?? resourceVerbs,
            ...(d.shortNames.length ? { shortNames: d.shortNames } : {}),
            ...(d.categories.length ? { categories: d.categories } : {}),
            ...(subresourcesOf(d).length
              ? { subresources: subresourcesOf(d).map((s) => ({ subresource: s.name, responseKind: { group: s.group, version: s.version, kind: s.kind }, verbs: s.verbs })) }
              : {}),
          })),
        })),
      }));
    const text = JSON.stringify({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items });
    this.aggregatedCache.set(cacheKey, text);
    return text;
  }
}

/** Whether the client asked for aggregated discovery, and which version. */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (!p.includes('as=APIGroupDiscoveryList') || !p.includes('g=apidiscovery.k8s.io')) continue;
    if (p.includes('v=v2beta1')) return 'v2beta1';
    if (p.includes('v=v2')) return 'v2';
  }
  return undefined;
}
