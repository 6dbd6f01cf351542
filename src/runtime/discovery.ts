/**
 * What the API serves, from discovery: for a kind named by apiVersion (an ownerReference, a
 * manifest), where it lives; and which resources can be listed, watched and deleted (what a
 * garbage collector watches: CustomResources count as soon as their CRD is served). Events are
 * left out of the latter, as kube-controller-manager leaves them out: they are many,
 * short-lived, and nobody owns them.
 */
import type { ApiClient } from './client.ts';
import type { ResourceRef } from './resources.ts';

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

interface ApiResourceList {
  groupVersion: string;
  resources?: ApiResource[];
}

const ignored = new Set(['/events', 'events.k8s.io/events']);

export interface DiscoveredResources {
  /** Every list/watch/delete-able resource but events, preferred version per group. */
  readonly collectable: readonly ResourceRef[];
  /** Looks a kind up by the apiVersion an ownerReference carries (any served version). */
  byKind(apiVersion: string, kind: string): ResourceRef | undefined;
}

function collectable(r: ApiResource): boolean {
  const verbs = new Set(r.verbs ?? []);
  return !r.name.includes('/') && verbs.has('list') && verbs.has('watch') && verbs.has('delete');
}

export async function discoverResources(client: ApiClient, signal?: AbortSignal): Promise<DiscoveredResources> {
  const lists: Array<{ list: ApiResourceList; preferred: boolean }> = [];
  lists.push({ list: await client.request<ApiResourceList>('GET', '/api/v1', { signal }), preferred: true });
  const groups = await client.request<{ groups?: Array<{ name: string; versions: Array<{ groupVersion: string }>; preferredVersion?: { groupVersion: string } }> }>('GET', '/apis', { signal });
  for (const g of groups.groups ?? []) {
    const preferred = g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion;
    for (const v of g.versions) {
      // A group version can vanish between the two requests (a CRD deleted): skip it, the next rediscovery settles it.
      const list = await client.request<ApiResourceList>('GET', `/apis/${v.groupVersion}`, { signal }).catch(() => undefined);
      if (list) lists.push({ list, preferred: v.groupVersion === preferred });
    }
  }
  const refs: ResourceRef[] = [];
  const kinds = new Map<string, ResourceRef>();
  for (const { list, preferred } of lists) {
    const [group, version] = list.groupVersion.includes('/') ? (list.groupVersion.split('/') as [string, string]) : ['', list.groupVersion];
    for (const r of list.resources ?? []) {
      if (r.name.includes('/')) continue;
      const ref: ResourceRef = { group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced };
      kinds.set(`${list.groupVersion}|${r.kind}`, ref);
      if (preferred && collectable(r) && !ignored.has(`${group}/${r.name}`)) refs.push(ref);
    }
  }
  return { collectable: refs, byKind: (apiVersion, kind) => kinds.get(`${apiVersion}|${kind}`) };
}
