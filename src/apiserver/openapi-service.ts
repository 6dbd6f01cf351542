/**
 * Serves the OpenAPI documents for what the registry holds right now: the v3 root with a
 * content hash per group-version, each group-version's v3 document, and the v2 document.
 * Documents are built and serialized once per registry generation (a CRD change bumps it).
 */
import { builtinComponents } from '../api/builtin/schemas.ts';
import type { Discovery } from './discovery/discovery.ts';
import { serializeDocument, type SerializedDocument } from './openapi/hash.ts';
import { builtinPatchTypes, customResourcePatchTypes, parseGroupVersionPath, type OpenApiResource } from './openapi/resources.ts';
import { buildOpenApiV2 } from './openapi/v2-document.ts';
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
    subresources: { status: !!d.subresources.status, scale: !!d.subresources.scale },
    schema,
    patchTypes: d.strategicMerge ? builtinPatchTypes : customResourcePatchTypes,
  };
}

export class OpenApiService {
  private generation = -1;
  private v3Docs = new Map<string, SerializedDocument>();
  private root = '';
  private v2Doc: string | undefined;

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
}
