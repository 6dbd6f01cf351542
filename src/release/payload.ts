/**
 * Reading a release payload directory:
 *
 *   manifests/         the manifests, applied in lexical file order (.yaml, .yml, .json only)
 *   release-metadata   {"kind": "cincinnati-metadata-v0", "version": "<semver>", "previous": [...]}
 *   image-references   an image.openshift.io/v1 ImageStream named after the version whose
 *                      spec.tags[] map a component name to its image (from.name)
 *
 * Loading keeps the manifests of this cluster's profile (and drops those excluded for it, or
 * for another feature set), computes the version hash over them, and refuses the whole payload
 * — listing every file and document at fault — when anything cannot be read, as the CVO
 * refuses a payload that fails its integrity check. Overrides are not applied here: they
 * change at run time, so the caller filters with `filterOverrides` on each pass.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { overrideGroup, type ComponentOverride } from '../api/config/cluster-version.ts';
import { annotations, describeProblem, parseManifests, type ManifestProblem, type PayloadManifest } from './manifest.ts';
import { versionHash } from './version-hash.ts';

export const manifestsDir = 'manifests';
export const releaseMetadataFile = 'release-metadata';
export const imageReferencesFile = 'image-references';
export const releaseMetadataKind = 'cincinnati-metadata-v0';
export const defaultProfile = 'self-managed-high-availability';
/**
 * What a standalone cluster's CVO excludes: nothing. `exclude.release.openshift.io/<id>` drops a
 * manifest only for a CVO started with that id (a hosted control plane's CVO passes
 * `internal-openshift-hosted`, so the manifests a standalone cluster needs, the Machine API's
 * CRDs among them, are the ones annotated with it).
 */
export const defaultExclusions: readonly string[] = [];

export type Override = ComponentOverride;

export interface ReleaseMetadata {
  readonly kind: typeof releaseMetadataKind;
  readonly version: string;
  readonly previous: readonly string[];
  readonly next?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface InclusionOptions {
  /** The cluster profile (`include.release.openshift.io/<profile>: "true"` required). */
  readonly profile?: string;
  /** Identifiers whose `exclude.release.openshift.io/<identifier>: "true"` drops a manifest. */
  readonly exclude?: readonly string[];
  /** The cluster's feature set; empty is Default. Manifests listing other feature sets are dropped. */
  readonly featureSet?: string;
}

export interface LoadedPayload {
  readonly dir: string;
  /** The release as ClusterVersion records it: the payload's version and the image it came from. */
  readonly release: { readonly version: string; readonly image: string };
  readonly metadata: ReleaseMetadata;
  /** Component name → image reference, from image-references. */
  readonly images: Readonly<Record<string, string>>;
  /** The manifests this cluster applies, in payload order. */
  readonly manifests: readonly PayloadManifest[];
  /** The manifests left out, each with why. */
  readonly excluded: readonly { readonly manifest: PayloadManifest; readonly reason: string }[];
  readonly versionHash: string;
}

/** A payload the CVO must not apply; `problems` says what is wrong, file by file. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
  readonly reason = 'UpdatePayloadIntegrity';
  constructor(
    readonly dir: string,
    readonly problems: readonly string[],
  ) {
    super(`payload ${dir} is not valid: ${problems.join('; ')}`);
  }
}

const semver =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isSemver(version: string): boolean {
  return semver.test(version);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Why `manifest` is not part of this cluster, or undefined when it is. */
export function exclusionReason(manifest: Pick<PayloadManifest, 'annotations'>, opts: InclusionOptions = {}): string | undefined {
  const notes = manifest.annotations;
  if (Object.keys(notes).length === 0) return 'no annotations';
  for (const id of opts.exclude ?? defaultExclusions) {
    const key = annotations.excludePrefix + id;
    if (notes[key] === 'true') return `${key}=true`;
  }
  const sets = notes[annotations.featureSet];
  if (sets !== undefined) {
    const wanted = opts.featureSet || 'Default';
    if (!sets.split(',').includes(wanted)) return `${annotations.featureSet}=${sets} does not include ${wanted}`;
  }
  const key = annotations.includePrefix + (opts.profile ?? defaultProfile);
  const value = notes[key];
  if (value === undefined) return `${key} unset`;
  if (value !== 'true') return `unrecognized value ${key}=${value}`;
  return undefined;
}

/**
 * The override that names `manifest`; an override's namespace is ignored for a cluster-scoped
 * manifest, and its group is read as `overrideGroup` reads it (`apps/v1` names group `apps`).
 */
export function overrideFor(manifest: Pick<PayloadManifest, 'kind' | 'gvk' | 'namespace' | 'name'>, overrides: readonly Readonly<Override>[] | undefined): Readonly<Override> | undefined {
  return overrides?.find((o) => o.kind === manifest.kind && overrideGroup(o.group) === manifest.gvk.group && o.name === manifest.name && (manifest.namespace ? o.namespace === manifest.namespace : true));
}

/** The manifests the CVO manages: those without an unmanaged override. */
export function filterOverrides<M extends Pick<PayloadManifest, 'kind' | 'gvk' | 'namespace' | 'name'>>(manifests: readonly M[], overrides: readonly Readonly<Override>[] | undefined): M[] {
  if (!overrides?.length) return [...manifests];
  return manifests.filter((m) => !overrideFor(m, overrides)?.unmanaged);
}

/** Parses release-metadata; throws with the reason when it is not valid. */
export function parseReleaseMetadata(text: string): ReleaseMetadata {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${releaseMetadataFile}: not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) throw new Error(`${releaseMetadataFile}: not a JSON object`);
  if (doc.kind !== releaseMetadataKind) throw new Error(`${releaseMetadataFile}: unrecognized kind ${JSON.stringify(doc.kind)} (expected ${releaseMetadataKind})`);
  if (typeof doc.version !== 'string' || doc.version === '') throw new Error(`${releaseMetadataFile}: missing version`);
  if (!isSemver(doc.version)) throw new Error(`${releaseMetadataFile}: version ${JSON.stringify(doc.version)} is not a semantic version`);
  for (const field of ['previous', 'next'] as const) {
    if (doc[field] !== undefined && !isStringList(doc[field])) throw new Error(`${releaseMetadataFile}: ${field} must be a list of versions`);
  }
  if (doc.metadata !== undefined && !isObject(doc.metadata)) throw new Error(`${releaseMetadataFile}: metadata must be an object`);
  return {
    kind: releaseMetadataKind,
    version: doc.version,
    previous: (doc.previous as string[] | undefined) ?? [],
    ...(doc.next ? { next: doc.next as string[] } : {}),
    ...(doc.metadata ? { metadata: doc.metadata as Record<string, unknown> } : {}),
  };
}

/** Parses image-references (JSON or YAML ImageStream) into name → image; throws with the reason when it is not valid. */
export function parseImageReferences(text: string): { name: string; images: Record<string, string> } {
  const { manifests, problems } = parseManifests(text, imageReferencesFile);
  if (problems.length) throw new Error(problems.map(describeProblem).join('; '));
  if (manifests.length !== 1) throw new Error(`${imageReferencesFile}: expected one ImageStream, found ${manifests.length} documents`);
  const stream = manifests[0]!;
  if (stream.kind !== 'ImageStream' || stream.gvk.group !== 'image.openshift.io') throw new Error(`${imageReferencesFile}: is a ${stream.apiVersion} ${stream.kind}, not an image.openshift.io/v1 ImageStream`);
  const spec = isObject(stream.object.spec) ? stream.object.spec : {};
  const tags = spec.tags ?? [];
  if (!Array.isArray(tags)) throw new Error(`${imageReferencesFile}: spec.tags must be a list`);
  const images: Record<string, string> = {};
  tags.forEach((tag: unknown, i) => {
    const name = isObject(tag) ? tag.name : undefined;
    const from = isObject(tag) && isObject(tag.from) ? tag.from.name : undefined;
    if (typeof name !== 'string' || !name) throw new Error(`${imageReferencesFile}: spec.tags[${i}] has no name`);
    if (typeof from !== 'string' || !from) throw new Error(`${imageReferencesFile}: spec.tags[${i}] (${name}) has no from.name`);
    if (Object.hasOwn(images, name)) throw new Error(`${imageReferencesFile}: tag ${name} is listed twice`);
    images[name] = from;
  });
  return { name: stream.name, images };
}

/** The manifest files of a directory in the order the CVO applies them. */
export function manifestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Every manifest of a manifests directory, before inclusion filters. */
export function readManifests(dir: string): { manifests: PayloadManifest[]; problems: ManifestProblem[] } {
  const manifests: PayloadManifest[] = [];
  const problems: ManifestProblem[] = [];
  for (const file of manifestFiles(dir)) {
    const parsed = parseManifests(readFileSync(join(dir, file), 'utf8'), file);
    manifests.push(...parsed.manifests);
    problems.push(...parsed.problems);
  }
  return { manifests, problems };
}

/** Loads the payload at `dir`, released as `releaseImage`; throws PayloadError when it is not valid. */
export function loadPayloadDir(dir: string, releaseImage: string, opts: InclusionOptions = {}): LoadedPayload {
  const problems: string[] = [];
  const read = <T>(file: string, parse: (text: string) => T): T | undefined => {
    const path = join(dir, file);
    if (!existsSync(path)) {
      problems.push(`${file}: missing`);
      return undefined;
    }
    try {
      return parse(readFileSync(path, 'utf8'));
    } catch (err) {
      problems.push((err as Error).message);
      return undefined;
    }
  };
  const metadata = read(releaseMetadataFile, parseReleaseMetadata);
  const refs = read(imageReferencesFile, parseImageReferences);
  if (metadata && refs && refs.name !== metadata.version) {
    problems.push(`${imageReferencesFile}: ImageStream ${refs.name} does not match version ${metadata.version} of ${releaseMetadataFile}`);
  }
  const mdir = join(dir, manifestsDir);
  let all: PayloadManifest[] = [];
  if (!existsSync(mdir) || !statSync(mdir).isDirectory()) problems.push(`${manifestsDir}/: missing`);
  else {
    const parsed = readManifests(mdir);
    all = parsed.manifests;
    problems.push(...parsed.problems.map((p) => `${manifestsDir}/${describeProblem(p)}`));
  }
  if (problems.length || !metadata || !refs) throw new PayloadError(dir, problems);

  const manifests: PayloadManifest[] = [];
  const excluded: { manifest: PayloadManifest; reason: string }[] = [];
  for (const m of all) {
    const reason = exclusionReason(m, opts);
    if (reason) excluded.push({ manifest: m, reason });
    else manifests.push(m);
  }
  return {
    dir,
    release: { version: metadata.version, image: releaseImage },
    metadata,
    images: refs.images,
    manifests,
    excluded,
    versionHash: versionHash(manifests),
  };
}
