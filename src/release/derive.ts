/**
 * Deriving a release from another (`oc adm release new --from-release R <tag>=<image> ...`):
 * the source payload with the named components' images replaced wherever its manifests name
 * them (Deployments, the images ConfigMaps the operators read their operands' images from,
 * anything else), and its image-references listing the new images. As `oc` does, the result
 * keeps the source's version, previous versions and metadata unless a new name is given, and
 * its image-references say where it came from: the ImageStream is annotated
 * `release.openshift.io/from-release: <source image>` and every replaced tag
 * `io.openshift.release.override: "true"`.
 *
 * A built payload names each component's image by the reference its image-references gives
 * (the build substituted them), so a replacement is a whole-reference substitution of that
 * text. Two components sharing one image cannot be told apart in the manifests, so replacing
 * only one of them is refused rather than guessed.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { substitute } from './build.ts';
import { describeProblem, parseManifests } from './manifest.ts';
import { imageReferencesFile, isSemver, loadPayloadDir, manifestFiles, manifestsDir, parseImageReferences, parseReleaseMetadata, PayloadError, releaseMetadataFile, type LoadedPayload } from './payload.ts';

/** On image-references: the release image a derived release was made from. */
export const annotationFromRelease = 'release.openshift.io/from-release';
/** On an image-references tag: its image was given by hand, not taken from the source. */
export const annotationOverride = 'io.openshift.release.override';

/** The parts of an image-references ImageStream this module reads and writes. */
interface ImageStreamDoc {
  metadata?: { name?: string; annotations?: Record<string, string> };
  spec?: { tags?: ImageStreamTag[] };
  [key: string]: unknown;
}
interface ImageStreamTag {
  name: string;
  annotations?: Record<string, string>;
  from?: { kind: string; name: string };
  [key: string]: unknown;
}

export interface DeriveOptions {
  /** The source payload directory (a release image's `/release-manifests`). */
  readonly source: string;
  /** The source's release image reference, recorded on the result. */
  readonly fromRelease: string;
  /** Payload directory to write (replaced if it exists). */
  readonly out: string;
  /** Component (image-references tag) → the image to use instead. */
  readonly images: Readonly<Record<string, string>>;
  /** A new version for the result (`oc`'s `--name`); default: the source's. */
  readonly version?: string;
  /** The release image the loaded result reports. */
  readonly releaseImage: string;
}

/**
 * The text substitutions that replace each named component's image: source reference → new
 * reference. Throws naming every unknown component (and listing the known ones), and any
 * component whose image another, unreplaced component shares.
 */
export function imageSubstitutions(sourceImages: Readonly<Record<string, string>>, overrides: Readonly<Record<string, string>>): Map<string, string> {
  const known = Object.keys(sourceImages).sort();
  const unknown = Object.keys(overrides).filter((name) => !Object.hasOwn(sourceImages, name));
  if (unknown.length) {
    // OpenShift's tags are often the repository's name (`cluster-kube-apiserver-operator`), not the operator's.
    const near = unknown.length === 1 ? known.filter((k) => k.endsWith(`-${unknown[0]}`) || k.startsWith(`${unknown[0]}-`)) : [];
    const hint = near.length === 1 ? ` (did you mean ${near[0]}?)` : '';
    throw new Error(`the release has no component ${unknown.sort().join(', ')}${hint}; its components are: ${known.join(', ')}`);
  }
  const substitutions = new Map<string, string>();
  for (const [name, image] of Object.entries(overrides)) {
    const old = sourceImages[name]!;
    const sharing = known.filter((other) => other !== name && sourceImages[other] === old && overrides[other] !== image);
    if (sharing.length) throw new Error(`${name} shares its image ${old} with ${sharing.join(', ')} in the release; give the same image for ${[name, ...sharing].join(' and ')}`);
    if (old !== image) substitutions.set(old, image);
  }
  return substitutions;
}

/** The ImageStream (as JSON) of the source's image-references, with the new images, name and annotations. */
export function derivedImageStream(sourceText: string, o: { version: string; fromRelease: string; images: Readonly<Record<string, string>> }): ImageStreamDoc {
  const { manifests, problems } = parseManifests(sourceText, imageReferencesFile);
  if (problems.length || manifests.length !== 1) throw new Error(problems.length ? problems.map(describeProblem).join('; ') : `${imageReferencesFile}: expected one ImageStream`);
  const stream = structuredClone(manifests[0]!.object) as ImageStreamDoc;
  stream.metadata = { ...stream.metadata, name: o.version, annotations: { ...stream.metadata?.annotations, [annotationFromRelease]: o.fromRelease } };
  const tags = stream.spec?.tags ?? [];
  stream.spec = {
    ...stream.spec,
    tags: tags.map((tag) => {
      if (!Object.hasOwn(o.images, tag.name)) return tag;
      // A replaced tag says nothing more of its old image: its annotations described that image.
      return { name: tag.name, annotations: { [annotationOverride]: 'true' }, from: { kind: 'DockerImage', name: o.images[tag.name] } };
    }),
  };
  return stream;
}

/** Writes the derived payload and returns it loaded; throws when the source, the names or the result are not valid. */
export function deriveRelease(o: DeriveOptions): LoadedPayload {
  if (o.version !== undefined && !isSemver(o.version)) throw new Error(`--name ${JSON.stringify(o.version)} is not a semantic version`);
  const refsText = readFileSync(join(o.source, imageReferencesFile), 'utf8');
  const metadata = parseReleaseMetadata(readFileSync(join(o.source, releaseMetadataFile), 'utf8'));
  const substitutions = imageSubstitutions(parseImageReferences(refsText).images, o.images);
  const version = o.version ?? metadata.version;
  if (version !== metadata.version) substitutions.set(metadata.version, version);

  const staging = join(dirname(o.out), `.${basename(o.out)}.derive-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const srcManifests = join(o.source, manifestsDir);
    mkdirSync(join(staging, manifestsDir), { recursive: true });
    for (const file of manifestFiles(srcManifests)) {
      writeFileSync(join(staging, manifestsDir, file), substitute(readFileSync(join(srcManifests, file), 'utf8'), substitutions));
    }
    writeFileSync(join(staging, releaseMetadataFile), JSON.stringify({ ...metadata, version }, null, 2) + '\n');
    writeFileSync(join(staging, imageReferencesFile), JSON.stringify(derivedImageStream(refsText, { version, fromRelease: o.fromRelease, images: o.images }), null, 2) + '\n');
    try {
      loadPayloadDir(staging, o.releaseImage);
    } catch (err) {
      if (err instanceof PayloadError) throw new PayloadError(o.source, err.problems);
      throw err;
    }
    rmSync(o.out, { recursive: true, force: true });
    mkdirSync(dirname(o.out), { recursive: true });
    renameSync(staging, o.out);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return loadPayloadDir(o.out, o.releaseImage);
}

export interface ReleaseProvenance {
  /** The release image it was derived from, when it was. */
  readonly fromRelease?: string;
  /** Components whose image was given by hand. */
  readonly overridden: readonly string[];
}

/** What a payload's image-references say of its origin (for `shipyard release info`). */
export function releaseProvenance(dir: string): ReleaseProvenance {
  const { manifests } = parseManifests(readFileSync(join(dir, imageReferencesFile), 'utf8'), imageReferencesFile);
  const stream = (manifests[0]?.object ?? {}) as ImageStreamDoc;
  const from = stream.metadata?.annotations?.[annotationFromRelease];
  const tags = stream.spec?.tags ?? [];
  return {
    ...(typeof from === 'string' ? { fromRelease: from } : {}),
    overridden: tags.filter((t) => t?.annotations?.[annotationOverride] === 'true').map((t) => String(t.name)).sort(),
  };
}
