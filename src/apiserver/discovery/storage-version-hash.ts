/**
 * `storageVersionHash` of a resource in the legacy discovery documents (`/api/v1`,
 * `/apis/<g>/<v>`): the first 8 bytes of the SHA-256 of `<group>/<version>/<kind>` of the version
 * the resource is stored in, base64-encoded, as kube-apiserver computes it. Clients (the storage
 * version migrator, garbage collectors) compare it to tell when stored objects need rewriting.
 */
import { createHash } from 'node:crypto';
import type { ResourceDefinition } from '../registry/resource.ts';

const cache = new Map<string, string>();

export function storageVersionHash(group: string, version: string, kind: string): string {
  const input = `${group}/${version}/${kind}`;
  let hash = cache.get(input);
  if (hash === undefined) cache.set(input, (hash = createHash('sha256').update(input).digest().subarray(0, 8).toString('base64')));
  return hash;
}

/**
 * The hash of a served resource, or undefined for one that stores nothing (a create-only review
 * API), which kube publishes without one. `storageVersion` is `v1` for the core group.
 */
export function storageVersionHashOf(def: Pick<ResourceDefinition, 'storageVersion' | 'kind'> & { readonly verbs?: readonly string[] }): string | undefined {
  if (def.verbs && !def.verbs.includes('get')) return undefined;
  const slash = def.storageVersion.lastIndexOf('/');
  return slash < 0 ? storageVersionHash('', def.storageVersion, def.kind) : storageVersionHash(def.storageVersion.slice(0, slash), def.storageVersion.slice(slash + 1), def.kind);
}
