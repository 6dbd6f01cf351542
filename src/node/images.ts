/**
 * The local image store (`<dataDir>/images/index.json`): an image reference → the program a
 * process pod of that image runs. `shipyard image import` may write it while the datacenter
 * runs, so every read checks whether the file changed instead of trusting a cached copy.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { compareStrings } from '../api/compare.ts';
import { writeFileAtomic } from '../api/files.ts';

export interface ImageRecord {
  readonly ref: string;
  readonly entrypoint: string;
  readonly args: readonly string[];
  /**
   * Flags node runs a JavaScript entrypoint with, as an image's `ENTRYPOINT ["node", "--flag",
   * "app.js"]` would: the built-in images of controllers run without V8's compilers
   * (cli/compiler-policy.ts). Absent for other entrypoints.
   */
  readonly nodeArgs?: readonly string[];
  /**
   * Files the image carries besides its program: container path → host directory. A release
   * image carries its payload at `/release-manifests`, as OpenShift's does.
   */
  readonly content?: Readonly<Record<string, string>>;
  readonly importedAt: string;
  readonly digest: string;
  readonly builtin: boolean;
}

export interface ImageStore {
  list(): ImageRecord[];
  resolve(ref: string): ImageRecord | undefined;
  import(ref: string, opts: { entrypoint: string; args?: readonly string[]; nodeArgs?: readonly string[]; builtin?: boolean; content?: Readonly<Record<string, string>> }): ImageRecord;
  remove(ref: string): boolean;
}

const REF = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Tag defaults to `latest`, as Docker's reference parser does; a digest reference stays as given. */
export function normalizeRef(ref: string): string {
  const r = ref.trim();
  if (!REF.test(r)) throw new Error(`image reference "${ref}" is not valid (expected e.g. example.com/team/app:1.0)`);
  if (r.includes('@')) return r;
  const lastSlash = r.lastIndexOf('/');
  return r.slice(lastSlash + 1).includes(':') ? r : `${r}:latest`;
}

function digestOf(file: string, content: Readonly<Record<string, string>> | undefined): string {
  const hash = createHash('sha256').update(readFileSync(file));
  // Content is referenced, not copied: the digest covers where it lives, so a re-import elsewhere is a new image.
  if (content && Object.keys(content).length) hash.update(JSON.stringify(Object.entries(content).sort()));
  return `sha256:${hash.digest('hex')}`;
}

function checkContent(ref: string, content: Readonly<Record<string, string>> | undefined): void {
  for (const [path, dir] of Object.entries(content ?? {})) {
    if (!isAbsolute(path) || path === '/') throw new Error(`image ${ref}: content path "${path}" must be an absolute path below /`);
    if (!isAbsolute(dir) || !existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`image ${ref}: content ${path}=${dir} is not a directory`);
  }
}

export function openImageStore(dir: string): ImageStore {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.json');
  let cache: { mtimeMs: number; size: number; images: ImageRecord[] } | undefined;

  const read = (): ImageRecord[] => {
    if (!existsSync(file)) return [];
    const st = statSync(file);
    if (cache && cache.mtimeMs === st.mtimeMs && cache.size === st.size) return cache.images;
    let images: ImageRecord[];
    try {
      images = (JSON.parse(readFileSync(file, 'utf8')) as { images: ImageRecord[] }).images ?? [];
    } catch (err) {
      throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
    }
    cache = { mtimeMs: st.mtimeMs, size: st.size, images };
    return images;
  };
  const write = (images: ImageRecord[]): void => {
    writeFileAtomic(file, JSON.stringify({ images }, null, 2) + '\n');
    cache = undefined;
  };

  return {
    list: () => [...read()].sort((a, b) => compareStrings(a.ref, b.ref)),
    resolve(ref) {
      let wanted: string;
      try {
        wanted = normalizeRef(ref);
      } catch {
        return undefined;
      }
      const images = read();
      const at = wanted.indexOf('@');
      if (at >= 0) return images.find((i) => i.ref === wanted || i.digest === wanted.slice(at + 1));
      return images.find((i) => i.ref === wanted);
    },
    import(ref, opts) {
      const normalized = normalizeRef(ref);
      if (!isAbsolute(opts.entrypoint)) throw new Error(`image ${normalized}: entrypoint "${opts.entrypoint}" must be an absolute path`);
      if (!existsSync(opts.entrypoint) || !statSync(opts.entrypoint).isFile()) throw new Error(`image ${normalized}: entrypoint ${opts.entrypoint} is not a file`);
      checkContent(normalized, opts.content);
      const record: ImageRecord = {
        ref: normalized,
        entrypoint: opts.entrypoint,
        args: [...(opts.args ?? [])],
        ...(opts.nodeArgs?.length ? { nodeArgs: [...opts.nodeArgs] } : {}),
        ...(opts.content && Object.keys(opts.content).length ? { content: { ...opts.content } } : {}),
        importedAt: new Date().toISOString(),
        digest: digestOf(opts.entrypoint, opts.content),
        builtin: opts.builtin ?? false,
      };
      const images = read().filter((i) => i.ref !== normalized);
      const existing = read().find((i) => i.ref === normalized);
      // Re-registering an unchanged built-in image on every start must not rewrite the file.
      const same = (a: ImageRecord): boolean =>
        a.digest === record.digest && a.entrypoint === record.entrypoint && a.builtin === record.builtin && JSON.stringify(a.args) === JSON.stringify(record.args) && JSON.stringify(a.nodeArgs ?? []) === JSON.stringify(record.nodeArgs ?? []);
      if (existing && same(existing)) return existing;
      write([...images, record]);
      return record;
    },
    remove(ref) {
      const normalized = normalizeRef(ref);
      const images = read();
      if (!images.some((i) => i.ref === normalized)) return false;
      write(images.filter((i) => i.ref !== normalized));
      return true;
    },
  };
}
