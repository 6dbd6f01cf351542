/**
 * One payload file → its manifests. A file is a stream of YAML documents, or of JSON values
 * when it starts with `{` (the CVO's decoder decides by the content, not the file name). Each
 * manifest keeps where it came from (file and document index), its identity (GVK, namespace,
 * name), the run level and component its file name encodes, the release annotations that
 * change how it is applied, and `raw`: the document as the CVO hashes it (the JSON text as
 * written for a JSON document; for a YAML one, the compact JSON Go writes, keys sorted).
 *
 * A document that cannot be read, or lacks apiVersion, kind or metadata.name, is a problem
 * naming the file and the document, never a silently skipped manifest.
 */
import { parseAllDocuments } from 'yaml';
import { goJson } from '../api/go-json.ts';

export const annotations = {
  /** `include.release.openshift.io/<profile>: "true"` puts a manifest in that cluster profile. */
  includePrefix: 'include.release.openshift.io/',
  /** `exclude.release.openshift.io/<identifier>: "true"` drops it where that identifier is excluded. */
  excludePrefix: 'exclude.release.openshift.io/',
  featureSet: 'release.openshift.io/feature-set',
  createOnly: 'release.openshift.io/create-only',
  delete: 'release.openshift.io/delete',
} as const;

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface PayloadManifest {
  /** The file's base name, e.g. `0000_30_machine-api-operator_02_deployment.yaml`. */
  readonly file: string;
  /** Index of the document within the file, from 0 (empty documents count). */
  readonly index: number;
  readonly apiVersion: string;
  readonly kind: string;
  readonly gvk: GroupVersionKind;
  /** Absent for cluster-scoped objects. */
  readonly namespace?: string;
  readonly name: string;
  /** The run level digits of `0000_<runlevel>_<component>_…`, e.g. `30`; absent when the name does not follow the pattern. */
  readonly runLevel?: string;
  readonly component?: string;
  readonly annotations: Readonly<Record<string, string>>;
  /** `release.openshift.io/create-only: "true"`: created when missing, never updated. */
  readonly createOnly: boolean;
  /** `release.openshift.io/delete: "true"`: the object is to be removed from the cluster. */
  readonly delete: boolean;
  readonly object: Readonly<Record<string, unknown>>;
  /** The bytes the CVO feeds its manifest hash. */
  readonly raw: string;
}

/** A problem with one document (or the whole file when `index` is absent); messages count documents from 0, as `index` does. */
export interface ManifestProblem {
  readonly file: string;
  readonly index?: number;
  readonly message: string;
}

export function describeProblem(p: ManifestProblem): string {
  return p.index === undefined ? `${p.file}: ${p.message}` : `${p.file} document ${p.index}: ${p.message}`;
}

const fileNamePattern = /^0000_(\d+)_([^_]+)_/;

/** The run level and component a payload file name encodes, if it follows `0000_<runlevel>_<component>_…`. */
export function runLevelOf(file: string): { runLevel: string; component: string } | undefined {
  const m = fileNamePattern.exec(file);
  return m ? { runLevel: m[1]!, component: m[2]! } : undefined;
}

export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Document {
  readonly index: number;
  readonly value?: unknown;
  readonly raw?: string;
  readonly error?: string;
}

/** YAML 1.1 without timestamps, as Go's sigs.k8s.io/yaml reads manifests. */
function yamlDocuments(text: string): Document[] {
  const docs = parseAllDocuments(text, {
    version: '1.1',
    schema: 'yaml-1.1',
    customTags: (tags) => tags.filter((t) => (t as { tag?: string }).tag !== 'tag:yaml.org,2002:timestamp'),
    uniqueKeys: true,
  });
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((doc, index) => {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const pos = e.linePos?.[0];
      return { index, error: `invalid YAML${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${e.message.split('\n')[0]}` };
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    return value === null || value === undefined ? { index } : { index, value, raw: goJson(value) };
  });
}

/** Top-level JSON values in a stream, each with its exact text (the CVO hashes JSON documents as written). */
function jsonDocuments(text: string): Document[] {
  const docs: Document[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  for (skipSpace(); i < text.length; skipSpace()) {
    const index = docs.length;
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      } else if (depth === 0 && /\s/.test(c)) break;
    }
    const raw = text.slice(start, i);
    try {
      docs.push({ index, value: JSON.parse(raw), raw });
    } catch (err) {
      docs.push({ index, error: `invalid JSON: ${(err as Error).message}` });
      break;
    }
  }
  return docs;
}

/**
 * The manifests of one file, and the problems that keep any of them from being read. A
 * resource defined twice in the same file is a problem, as in the CVO.
 */
export function parseManifests(text: string, file: string): { manifests: PayloadManifest[]; problems: ManifestProblem[] } {
  const manifests: PayloadManifest[] = [];
  const problems: ManifestProblem[] = [];
  const docs = /^\s*\{/.test(text) ? jsonDocuments(text) : yamlDocuments(text);
  const seen = new Set<string>();
  for (const doc of docs) {
    if (doc.error) {
      problems.push({ file, index: doc.index, message: doc.error });
      continue;
    }
    if (doc.value === undefined) continue;
    const result = toManifest(doc.value, doc.raw!, file, doc.index);
    if ('message' in result) {
      problems.push(result);
      continue;
    }
    const id = JSON.stringify([result.gvk.group, result.kind, result.namespace ?? '', result.name]);
    if (seen.has(id)) {
      problems.push({ file, index: doc.index, message: `duplicate resource ${describeManifest({ ...result, file: undefined })}` });
      continue;
    }
    seen.add(id);
    manifests.push(result);
  }
  return { manifests, problems };
}

function toManifest(value: unknown, raw: string, file: string, index: number): PayloadManifest | ManifestProblem {
  const fail = (message: string): ManifestProblem => ({ file, index, message });
  if (!isObject(value)) return fail('not an object');
  const { apiVersion, kind } = value;
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const missing = [
    typeof apiVersion === 'string' && apiVersion ? undefined : 'apiVersion',
    typeof kind === 'string' && kind ? undefined : 'kind',
    typeof metadata.name === 'string' && metadata.name ? undefined : 'metadata.name',
  ].filter((m) => m !== undefined);
  if (missing.length) return fail(`missing ${missing.join(', ')}`);
  const rawAnnotations = metadata.annotations ?? {};
  if (!isObject(rawAnnotations) || Object.values(rawAnnotations).some((v) => typeof v !== 'string')) return fail('metadata.annotations must map strings to strings');
  const notes = rawAnnotations as Record<string, string>;
  const del = notes[annotations.delete];
  if (del !== undefined && del !== 'true') return fail(`invalid ${annotations.delete} value ${JSON.stringify(del)}: only "true" is allowed`);
  const { group, version } = parseGroupVersion(apiVersion as string);
  const level = runLevelOf(file);
  const namespace = typeof metadata.namespace === 'string' && metadata.namespace ? metadata.namespace : undefined;
  return {
    file,
    index,
    apiVersion: apiVersion as string,
    kind: kind as string,
    gvk: { group, version, kind: kind as string },
    ...(namespace ? { namespace } : {}),
    name: metadata.name as string,
    ...(level ? { runLevel: level.runLevel, component: level.component } : {}),
    annotations: notes,
    createOnly: notes[annotations.createOnly] === 'true',
    delete: del === 'true',
    object: value,
    raw,
  };
}

/** `Deployment.apps openshift-machine-api/machine-api-operator` (file 0000_30_…yaml). */
export function describeManifest(m: Pick<PayloadManifest, 'kind' | 'gvk' | 'namespace' | 'name'> & { file?: string }): string {
  const kind = m.gvk.group ? `${m.kind}.${m.gvk.group}` : m.kind;
  const id = m.namespace ? `${m.namespace}/${m.name}` : m.name;
  return `${kind} ${id}${m.file ? ` (${m.file})` : ''}`;
}
