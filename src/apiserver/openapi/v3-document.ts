/**
 * The OpenAPI 3.0 document of one group-version, served at `/openapi/v3/api/v1` and
 * `/openapi/v3/apis/<group>/<version>`: the paths of its resources with kube's operation
 * extensions (kubectl finds a kind's PATCH operation by `x-kubernetes-group-version-kind` and
 * checks it lists `fieldValidation` before sending `fieldValidation=Strict`), and the
 * component schemas of its kinds plus everything they reference (`kubectl explain`, and the
 * patch metadata `kubectl apply` and `edit` compute strategic merge patches from).
 */
import { componentRef } from '../../api/builtin/special-types.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { collectRefs, prepareResources, referencedClosure } from './components.ts';
import { resourceOperations, queryParams, type OperationSpec, type QueryParam } from './operations.ts';
import type { GroupVersion, OpenApiResource } from './resources.ts';
import { compareStrings } from '../../api/compare.ts';

export interface OpenApiV3Document {
  readonly openapi: '3.0.0';
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: { readonly schemas: Record<string, JSONSchemaProps> };
}

const responseText: Readonly<Record<string, string>> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
const responseMediaTypes = ['application/json', 'application/yaml'];

const pathParam = (name: 'namespace' | 'name') => ({
  name,
  in: 'path',
  required: true,
  description: name === 'namespace' ? 'object name and auth scope, such as for teams and projects' : 'name of the object',
  schema: { type: 'string', uniqueItems: true },
});

const queryParam = (p: QueryParam) => ({ name: p.name, in: 'query', description: p.description, schema: { type: p.type, uniqueItems: true } });

function renderOperation(op: OperationSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.query.length) out['parameters'] = op.query.map(queryParam);
  if (op.body) {
    const schema = componentRef(op.body.component);
    out['requestBody'] = { content: Object.fromEntries(op.body.mediaTypes.map((m) => [m, { schema }])), required: true };
  }
  const responses: Record<string, unknown> = {};
  for (const [code, component] of Object.entries(op.responses)) {
    const schema = componentRef(component);
    responses[code] = { description: responseText[code] ?? 'OK', content: Object.fromEntries(responseMediaTypes.map((m) => [m, { schema }])) };
  }
  responses['401'] = { description: 'Unauthorized' };
  out['responses'] = responses;
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = { group: op.gvk.group, version: op.gvk.version, kind: op.gvk.kind };
  return out;
}

/**
 * `resources` may hold every served resource; only those of `gv` are documented.
 * `components` must hold every schema a built-in resource names (`builtinComponents()`).
 */
export function buildOpenApiV3Document(gv: GroupVersion, resources: readonly OpenApiResource[], components: Readonly<Record<string, JSONSchemaProps>>): OpenApiV3Document {
  const mine = resources.filter((r) => r.group === gv.group && r.version === gv.version);
  const prepared = prepareResources(mine, components);
  const paths: Record<string, Record<string, unknown>> = {};
  const roots = new Set<string>();
  mine.forEach((r, i) => {
    const names = prepared.components[i]!;
    roots.add(names.kind).add(names.list);
    for (const op of resourceOperations(r, names)) {
      const item = (paths[op.path] ??= { parameters: [...op.pathParams.map(pathParam), queryParam(queryParams.pretty)] });
      item[op.method] = renderOperation(op);
    }
  });
  collectRefs(paths, roots);
  const schemas = referencedClosure(roots, (name) => prepared.extra[name] ?? components[name]);
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => compareStrings(a, b)));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths: sortedPaths,
    components: { schemas },
  };
}
