/**
 * Building a payload (what `oc adm release new` does for OpenShift): the source manifests refer
 * to each component's image by the reference its `image-references` lists for it (for Shipyard's
 * built-in components `shipyard.local/<name>:v0.1.0`) and to the release version as
 * `0.0.1-snapshot`; the build copies the manifests with both replaced — each image by the
 * reference the local image store gives that component, the version by the payload's — and
 * writes release-metadata and image-references for the payload. The store itself is the
 * caller's: the image map is a parameter, so this module stays free of the node and CLI code.
 *
 * A source is a directory with `manifests/` and `image-references` (an ImageStream whose
 * tags name the components the manifests use). The result is written beside `out` and renamed
 * into place only once it loads as a valid payload, so a failed build never leaves half a payload.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { imageReferencesFile, isSemver, loadPayloadDir, manifestFiles, manifestsDir, parseImageReferences, PayloadError, releaseMetadataFile, releaseMetadataKind, type InclusionOptions, type LoadedPayload } from './payload.ts';

/** The version placeholder in source manifests (ClusterOperator status.versions, operator env). */
export const snapshotVersion = '0.0.1-snapshot';

export interface BuildOptions {
  /** Source directory: `manifests/` and `image-references`. */
  readonly source: string;
  /** Payload directory to write (replaced if it exists). */
  readonly out: string;
  /** The payload's semantic version. */
  readonly version: string;
  /** Versions this payload may update from. */
  readonly previous?: readonly string[];
  /** Component name → the image reference to use for it (the local image store's). */
  readonly images: Readonly<Record<string, string>>;
  /** The release image the loaded result reports (default: the out directory). */
  readonly releaseImage?: string;
  readonly inclusion?: InclusionOptions;
}

/** Characters that may continue an image reference or version, so a match must not touch one. */
const referenceChar = /[A-Za-z0-9._\-/:@+]/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces whole occurrences of each key of `replacements` (never a prefix or suffix of a longer reference). */
export function substitute(text: string, replacements: ReadonlyMap<string, string>): string {
  const keys = [...replacements.keys()].filter((k) => k.length > 0).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const pattern = new RegExp(keys.map(escapeRegExp).join('|'), 'g');
  return text.replace(pattern, (match, offset: number) => {
    const before = offset > 0 ? text[offset - 1]! : '';
    const after = text[offset + match.length] ?? '';
    if ((before && referenceChar.test(before)) || (after && referenceChar.test(after))) return match;
    return replacements.get(match)!;
  });
}

function imageStream(version: string, images: Readonly<Record<string, string>>): unknown {
  return {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version },
    spec: {
      lookupPolicy: { local: false },
      tags: Object.keys(images)
        .sort()
        .map((name) => ({ name, from: { kind: 'DockerImage', name: images[name] } })),
    },
  };
}

/** Builds the payload and returns it loaded; throws when the source, the images or the result are not valid. */
export function buildPayload(opts: BuildOptions): LoadedPayload {
  if (!isSemver(opts.version)) throw new Error(`version ${JSON.stringify(opts.version)} is not a semantic version`);
  for (const p of opts.previous ?? []) if (!isSemver(p)) throw new Error(`previous version ${JSON.stringify(p)} is not a semantic version`);
  const sourceRefs = join(opts.source, imageReferencesFile);
  if (!existsSync(sourceRefs)) throw new Error(`${sourceRefs}: missing (it lists the images the manifests refer to)`);
  const placeholders = parseImageReferences(readFileSync(sourceRefs, 'utf8')).images;
  const missing = Object.keys(placeholders).filter((name) => !opts.images[name]);
  if (missing.length) throw new Error(`no image given for ${missing.join(', ')} (named in ${sourceRefs})`);

  const replacements = new Map<string, string>([[snapshotVersion, opts.version]]);
  for (const [name, placeholder] of Object.entries(placeholders)) {
    const previous = replacements.get(placeholder);
    if (previous !== undefined && previous !== opts.images[name]) throw new Error(`${sourceRefs}: ${placeholder} is listed for two components with different images`);
    replacements.set(placeholder, opts.images[name]!);
  }

  const staging = join(dirname(opts.out), `.${basename(opts.out)}.build-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const srcManifests = join(opts.source, manifestsDir);
    const outManifests = join(staging, manifestsDir);
    mkdirSync(outManifests, { recursive: true });
    for (const file of manifestFiles(srcManifests)) {
      writeFileSync(join(outManifests, file), substitute(readFileSync(join(srcManifests, file), 'utf8'), replacements));
    }
    const metadata = { kind: releaseMetadataKind, version: opts.version, previous: [...(opts.previous ?? [])] };
    writeFileSync(join(staging, releaseMetadataFile), JSON.stringify(metadata, null, 2) + '\n');
    writeFileSync(join(staging, imageReferencesFile), JSON.stringify(imageStream(opts.version, opts.images), null, 2) + '\n');
    try {
      loadPayloadDir(staging, opts.releaseImage ?? opts.out, opts.inclusion);
    } catch (err) {
      // The staging directory is gone by the time anyone reads this: name the source instead.
      if (err instanceof PayloadError) throw new PayloadError(opts.source, err.problems);
      throw err;
    }
    rmSync(opts.out, { recursive: true, force: true });
    mkdirSync(dirname(opts.out), { recursive: true });
    renameSync(staging, opts.out);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return loadPayloadDir(opts.out, opts.releaseImage ?? opts.out, opts.inclusion);
}
