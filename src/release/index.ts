/**
 * The release payload: reading it (manifests, release-metadata, image-references, inclusion and
 * override filters, version hash), planning a sync pass over it, and building one.
 */
export * from './manifest.ts';
export * from './payload.ts';
export * from './task-graph.ts';
export * from './version-hash.ts';
export * from './build.ts';
export * from './derive.ts';
export { goJson } from '../api/go-json.ts';
