/**
 * `shipyard release new|list|info`: custom release images in a data directory's image store,
 * the seed's bootstrap-phase workflow (`oc adm release new --from-release R <component>=<image>
 * --to-image REF`, then `OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE=REF openshift-install`, here
 * `shipyard up --release-image REF`). A release image is the CVO's program carrying its payload
 * at `/release-manifests`; a derived one carries a payload written under
 * `<data-dir>/releases/custom/`, and runs the replacement CVO when `cluster-version-operator`
 * is one of the images replaced (OpenShift builds the release image on the CVO's image).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeRef, type ImageRecord, type ImageStore } from '../node/images.ts';
import { deriveRelease, releaseProvenance } from '../release/derive.ts';
import { isSemver, loadPayloadDir, type LoadedPayload } from '../release/payload.ts';
import { storeFor } from './images.ts';
import { buildReleases, DEFAULT_RELEASE_VERSION, RELEASE_REPOSITORY, releaseImage, TEST_RELEASE_VERSION } from './up/install.ts';

const payloadPath = '/release-manifests';

/** A version names Shipyard's own release of it; anything else is an image reference. */
export function releaseRef(versionOrRef: string): string {
  return isSemver(versionOrRef) ? releaseImage(versionOrRef) : normalizeRef(versionOrRef);
}

const builtinReleases = (): string[] => [DEFAULT_RELEASE_VERSION, TEST_RELEASE_VERSION].map(releaseImage);

/**
 * The release image's record, building Shipyard's own releases first when one of them is
 * asked for before `shipyard up` ever built it (with the CVO interval the cluster was created with).
 */
function releaseRecord(dataDir: string, store: ImageStore, ref: string): ImageRecord & { payloadDir: string } {
  let record = store.resolve(ref);
  const built = (r: ImageRecord | undefined): boolean => !!r?.content?.[payloadPath] && existsSync(r.content[payloadPath]!);
  if (!built(record) && builtinReleases().includes(ref)) {
    const specFile = join(dataDir, 'cluster.json');
    const interval = existsSync(specFile) ? (JSON.parse(readFileSync(specFile, 'utf8')) as { cvoReconcileInterval?: string }).cvoReconcileInterval : undefined;
    buildReleases({ dataDir, images: store, reconcileInterval: interval });
    record = store.resolve(ref);
  }
  if (!record) throw new Error(`release image ${ref} is not in the local image store of ${dataDir} (\`shipyard release list\` shows the release images there)`);
  const payloadDir = record.content?.[payloadPath];
  if (!payloadDir) throw new Error(`${ref} is not a release image: it carries no ${payloadPath}`);
  if (!existsSync(payloadDir)) throw new Error(`release image ${ref}: its payload ${payloadDir} is gone`);
  return { ...record, payloadDir };
}

/** The payload of a release image in the store, as the cluster installing it reports it. */
export function loadReleaseImage(dataDir: string, ref: string): LoadedPayload {
  const normalized = releaseRef(ref);
  const record = releaseRecord(dataDir, storeFor(dataDir), normalized);
  return loadPayloadDir(record.payloadDir, normalized);
}

/** `a=b` pairs → a map; a name given twice, or a pair without `=`, is an error. */
export function parseImageArgs(args: readonly string[]): Record<string, string> {
  const images: Record<string, string> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0 || eq === arg.length - 1) throw new Error(`${JSON.stringify(arg)}: expected COMPONENT=IMAGE, e.g. config-operator=example.com/me/config-operator:dev`);
    const name = arg.slice(0, eq);
    if (Object.hasOwn(images, name)) throw new Error(`${name} is given twice`);
    images[name] = normalizeRef(arg.slice(eq + 1));
  }
  return images;
}

/** A directory name for a release image reference, so two custom releases never share a payload. */
const dirFor = (ref: string): string => ref.replace(/[^A-Za-z0-9._-]/g, '_');

export interface NewReleaseOptions {
  readonly dataDir: string;
  /** A version of Shipyard's own release, or a release image reference. */
  readonly from: string;
  /** `COMPONENT=IMAGE` arguments. */
  readonly images: readonly string[];
  readonly toImage: string;
  /** A new version for the result; default the source's, as `oc adm release new`. */
  readonly name?: string;
}

export function newRelease(o: NewReleaseOptions): string {
  const store = storeFor(o.dataDir);
  const images = parseImageArgs(o.images);
  if (Object.keys(images).length === 0) throw new Error('name at least one COMPONENT=IMAGE to replace');
  const to = normalizeRef(o.toImage);
  if (to.startsWith(`${RELEASE_REPOSITORY}:`) || store.resolve(to)?.builtin) throw new Error(`--to-image ${to} is a built-in image; choose another reference`);
  for (const image of Object.values(images)) {
    if (!store.resolve(image)) throw new Error(`image ${image} is not in the local image store of ${o.dataDir}; import it first: shipyard image import ${image} --entrypoint FILE --data-dir ${o.dataDir}`);
  }
  const fromRef = releaseRef(o.from);
  const source = releaseRecord(o.dataDir, store, fromRef);
  const out = join(o.dataDir, 'releases', 'custom', dirFor(to), 'release-manifests');
  const payload = deriveRelease({ source: source.payloadDir, fromRelease: fromRef, out, images, version: o.name, releaseImage: to });
  // The release image runs the CVO: the replacement's program when the CVO is replaced.
  const cvo = images['cluster-version-operator'] ? store.resolve(images['cluster-version-operator'])! : source;
  const record = store.import(to, { entrypoint: cvo.entrypoint, args: cvo.args, content: { [payloadPath]: out } });
  const replaced = Object.entries(images).sort(([a], [b]) => a.localeCompare(b));
  return [
    `Created release ${record.ref} (version ${payload.release.version}) from ${fromRef}:`,
    ...replaced.map(([name, image]) => `  ${name}=${image}`),
    `  payload: ${out}`,
    `Install a new cluster from it: shipyard up --release-image ${record.ref} --data-dir ${o.dataDir}`,
    '',
  ].join('\n');
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((v, c) => v.padEnd(widths[c]!)).join('   ').trimEnd()).join('\n') + '\n';
}

export function listReleases(dataDir: string): string {
  const rows = storeFor(dataDir)
    .list()
    .filter((i) => i.content?.[payloadPath])
    .map((i) => {
      const dir = i.content![payloadPath]!;
      try {
        const payload = loadPayloadDir(dir, i.ref);
        return [i.ref, payload.release.version, releaseProvenance(dir).fromRelease ?? '-', dir];
      } catch {
        return [i.ref, '?', '-', `${dir} (not readable; \`shipyard up\` rebuilds Shipyard's own)`];
      }
    });
  if (rows.length === 0) return 'No release images yet: `shipyard up` builds Shipyard\'s own, `shipyard release new` derives others.\n';
  return table([['IMAGE', 'VERSION', 'FROM RELEASE', 'PAYLOAD'], ...rows]);
}

export function releaseInfo(dataDir: string, versionOrRef: string): string {
  const ref = releaseRef(versionOrRef);
  const record = releaseRecord(dataDir, storeFor(dataDir), ref);
  const payload = loadPayloadDir(record.payloadDir, ref);
  const provenance = releaseProvenance(record.payloadDir);
  const overridden = new Set(provenance.overridden);
  return [
    `Name:      ${payload.release.version}`,
    `Image:     ${ref}`,
    `Digest:    ${record.digest}`,
    ...(provenance.fromRelease ? [`From:      ${provenance.fromRelease}`] : []),
    `Previous:  ${payload.metadata.previous.join(', ') || '-'}`,
    `Payload:   ${record.payloadDir} (${payload.manifests.length} manifests)`,
    '',
    `Images (${Object.keys(payload.images).length}):`,
    table([['NAME', 'IMAGE', ''], ...Object.entries(payload.images).sort(([a], [b]) => a.localeCompare(b)).map(([n, i]) => [`  ${n}`, i, overridden.has(n) ? '(replaced)' : ''])]),
  ].join('\n');
}
