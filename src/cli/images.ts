/**
 * `shipyard image list|import`: the local image store of a data directory. An imported image
 * is a program the process runtime runs for every pod that names it, so a custom build of a
 * component (or any script) runs on the nodes as a real process.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openImageStore, type ImageStore } from '../node/images.ts';
import { builtinImage, builtinImageOptions, componentNames } from './components.ts';

/** The data directory's image store, the built-in images registered. */
export function storeFor(dataDir: string): ImageStore {
  const store = openImageStore(join(dataDir, 'images'));
  // The built-in images exist from the first command on, not only after `shipyard up` ran once.
  for (const name of componentNames()) store.import(builtinImage(name), builtinImageOptions(name));
  return store;
}

export function listImages(dataDir: string): string {
  const rows = storeFor(dataDir)
    .list()
    .map((i) => [i.ref, i.digest.slice(0, 19), i.builtin ? 'built-in' : 'imported', i.entrypoint]);
  const header = ['IMAGE', 'DIGEST', 'SOURCE', 'ENTRYPOINT'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  return [header, ...rows].map((r) => r.map((v, c) => v.padEnd(widths[c]!)).join('   ').trimEnd()).join('\n') + '\n';
}

export function importImage(dataDir: string, ref: string, entrypoint: string, content: Readonly<Record<string, string>> = {}): string {
  if (!existsSync(entrypoint) || !statSync(entrypoint).isFile()) throw new Error(`--entrypoint ${entrypoint}: no such file`);
  const record = storeFor(dataDir).import(ref, { entrypoint, content });
  return `imported ${record.ref} (${record.digest}) → ${record.entrypoint}\n`;
}
