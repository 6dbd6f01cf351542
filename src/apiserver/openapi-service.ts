/**
 * Serves the OpenAPI documents for what the registry holds right now: the v3 root with a
 * content hash per group-version, each group-version's v3 document, and the v2 document.
 * Documents are built and serialized once per registry generation (a CRD change bumps it). The v2
 * document is served as JSON or, for kubectl's client-side validation, as gnostic protobuf,
 * chosen from the Accept header as kube-openapi's handler chooses.
 */
import { builtinComponents } from '../api/builtin/schemas.ts';
import type { Discovery } from './discovery/discovery.ts';
import { serializeDocument, type SerializedDocument } from './openapi/hash.ts';
import { builtinPatchTypes, customResourcePatchTypes, parseGroupVersionPath, type OpenApiResource } from './openapi/resources.ts';
import { buildOpenApiV2 } from './openapi/v2-document.ts';
import { encodeOpenApiV2 } from './openapi/v2-protobuf.ts';
import { buildOpenApiV3Document } from './openapi/v3-document.ts';
import { buildOpenApiV3Root } from './openapi/v3-root.ts';
import type { ResourceRegistry } from './registry/registry.ts';
import type { ResourceDefinition } from './registry/resource.ts';

function toOpenApiResource(d: ResourceDefinition): OpenApiResource | undefined {
  const schema = d.crd ? d.schema?.root ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } : d.openApiName;
  if (!schema) return undefined;
  return {
    group: d.group,
    version: d.version,
    kind: d.kind,
    listKind: d.listKind,
    resource: d.resource,
    namespaced: d.namespaced,
    subresources: { status: !!d.subresources.status, scale: !!d.subresources.scale, approval: !!d.subresources.approval },
    schema,
    patchTypes: d.strategicMerge ? builtinPatchTypes : customResourcePatchTypes,
  };
}

const v2Protobuf = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/**
 * What kube-openapi serves `/openapi/v2` as, in its order of preference, and the Content-Type it
 * answers with: the `@` form kubectl asks for is answered with the `.` form, because Go's
 * mime parser (which kubectl's client runs on the answer) refuses an `@` in a subtype.
 */
const v2MediaTypes: readonly (readonly [accepted: string, returned: string])[] = [
  ['application/json', 'application/json'],
  ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', v2Protobuf],
  [v2Protobuf, v2Protobuf],
];

/**
 * The Content-Type to serve `/openapi/v2` as, or undefined (406): for the first of the Accept
 * header's ranges, by quality and then specificity as goautoneg sorts them, that names one of ours.
 */
export function negotiateOpenApiV2(accept: string | undefined): string | undefined {
  const clauses = (accept?.trim() || '*/*')
    .split(',')
    .map((part, i) => {
      const [range = '', ...params] = part.split(';').map((x) => x.trim());
      const [type = '', subtype = ''] = range.split('/');
      const qParam = params.find((p) => p.startsWith('q='));
      return { type, subtype, q: qParam ? Number(qParam.slice(2)) : 1, i };
    })
    .filter((c) => c.type && c.subtype && c.q > 0)
    .sort((a, b) => b.q - a.q || Number(a.subtype === '*') - Number(b.subtype === '*') || Number(a.type === '*') - Number(b.type === '*') || a.i - b.i);
  for (const c of clauses) {
    const match = v2MediaTypes.find(([t]) => {
      const [type, subtype] = t.split('/');
      return (c.type === '*' || c.type === type) && (c.subtype === '*' || c.subtype === subtype);
    });
    if (match) return match[1];
  }
  return undefined;
}

export class OpenApiService {
  private generation = -1;
  private v3Docs = new Map<string, SerializedDocument>();
  private root = '';
  private v2Doc: string | undefined;
  private v2Proto: Buffer | undefined;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly discovery: Discovery,
  ) {}

  private resources(): OpenApiResource[] {
    return this.registry
      .all()
      .filter((d) => d.served)
      .map(toOpenApiResource)
      .filter((r): r is OpenApiResource => r !== undefined);
  }

  private refresh(): void {
    if (this.generation === this.registry.generation) return;
    this.generation = this.registry.generation;
    this.v3Docs.clear();
    this.v2Doc = undefined;
    this.v2Proto = undefined;
    const resources = this.resources();
    const components = builtinComponents();
    for (const path of this.discovery.groupVersionPaths()) {
      const gv = parseGroupVersionPath(path);
      if (gv) this.v3Docs.set(path, serializeDocument(buildOpenApiV3Document(gv, resources, components)));
    }
    this.root = JSON.stringify(buildOpenApiV3Root([...this.v3Docs.keys()], (gv) => this.v3Docs.get(gv)!.hash));
  }

  v3Root(): string {
    this.refresh();
    return this.root;
  }

  /** The document for `api/v1` or `apis/<g>/<v>`, or undefined. */
  v3(groupVersionPath: string): string | undefined {
    this.refresh();
    return this.v3Docs.get(groupVersionPath)?.body;
  }

  v2(): string {
    this.refresh();
    this.v2Doc ??= JSON.stringify(buildOpenApiV2(this.resources(), builtinComponents()));
    return this.v2Doc;
  }

  /** The v2 document in the form the Accept header asks for, or undefined when it names none of them. */
  v2For(accept: string | undefined): { body: string | Buffer; contentType: string } | undefined {
    const type = negotiateOpenApiV2(accept);
    if (type === undefined) return undefined;
    if (type === 'application/json') return { body: this.v2(), contentType: type };
    const json = this.v2();
    this.v2Proto ??= encodeOpenApiV2(JSON.parse(json) as Record<string, unknown>);
    return { body: this.v2Proto, contentType: type };
  }
}
