/**
 * The Swagger 2.0 document served at `/openapi/v2`, covering every served resource in one
 * document. kubectl 1.32 reads it (in protobuf, v2-protobuf.ts) to validate a `kind: List` on the
 * client, so it carries the same paths and schemas as the v3 documents in v2 form:
 * `#/definitions/…` references, body parameters, `x-kubernetes-group-version-kind` on each kind,
 * and no `oneOf`/`anyOf`/`not`/`nullable`, which v2 cannot express.
 */
import { componentsPrefix } from '../../api/builtin/special-types.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { prepareResources, referencedClosure } from './components.ts';
import { queryParams, resourceOperations, type OperationSpec, type QueryParam } from './operations.ts';
import type { OpenApiResource } from './resources.ts';
import { compareStrings } from '../../api/compare.ts';

export interface OpenApiV2Document {
  readonly swagger: '2.0';
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly definitions: Record<string, unknown>;
}

const definitionsPrefix = '#/definitions/';
const notInV2 = new Set(['oneOf', 'anyOf', 'not', 'nullable']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const schemaMaps = new Set(['properties', 'patternProperties', 'definitions']);
const subschemas = new Set(['items', 'additionalProperties', 'additionalItems', 'allOf']);

/**
 * A v3 schema in v2 form: references rewritten and constructs v2 lacks dropped. Only schema
 * keywords are converted; property names, `enum`, `default` and extensions are data and are
 * copied as they are (JSONSchemaProps itself has properties named `oneOf` and `nullable`).
 */
export function toV2Schema(schema: JSONSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema) as Array<[string, unknown]>) {
    if (notInV2.has(k)) continue;
    if (k === '$ref' && typeof v === 'string') out[k] = v.startsWith(componentsPrefix) ? definitionsPrefix + v.slice(componentsPrefix.length) : v;
    else if (schemaMaps.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, toV2Schema(sub as JSONSchemaProps)]));
    else if (subschemas.has(k) && Array.isArray(v)) out[k] = v.map((sub) => toV2Schema(sub as JSONSchemaProps));
    else if (subschemas.has(k) && isObject(v)) out[k] = toV2Schema(v as JSONSchemaProps);
    else out[k] = v;
  }
  return out;
}

const ref = (component: string) => ({ $ref: definitionsPrefix + component });
const responseText: Readonly<Record<string, string>> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

const pathParam = (name: 'namespace' | 'name') => ({
  name,
  in: 'path',
  required: true,
  type: 'string',
  uniqueItems: true,
  description: name === 'namespace' ? 'object name and auth scope, such as for teams and projects' : 'name of the object',
});
const queryParam = (p: QueryParam) => ({ name: p.name, in: 'query', type: p.type, uniqueItems: true, description: p.description });

function renderOperation(op: OperationSpec): Record<string, unknown> {
  const parameters: unknown[] = [];
  if (op.body) parameters.push({ name: 'body', in: 'body', required: true, schema: ref(op.body.component) });
  parameters.push(...op.query.map(queryParam));
  const responses: Record<string, unknown> = {};
  for (const [code, component] of Object.entries(op.responses)) responses[code] = { description: responseText[code] ?? 'OK', schema: ref(component) };
  responses['401'] = { description: 'Unauthorized' };
  return {
    tags: [op.tag],
    description: op.description,
    operationId: op.operationId,
    consumes: op.body ? [...op.body.mediaTypes] : ['*/*'],
    produces: ['application/json', 'application/yaml'],
    schemes: ['https'],
    ...(parameters.length ? { parameters } : {}),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': { group: op.gvk.group, version: op.gvk.version, kind: op.gvk.kind },
  };
}

export function buildOpenApiV2(allResources: readonly OpenApiResource[], components: Readonly<Record<string, JSONSchemaProps>>): OpenApiV2Document {
  const prepared = prepareResources(allResources, components);
  const paths: Record<string, Record<string, unknown>> = {};
  const roots = new Set<string>();
  allResources.forEach((r, i) => {
    const names = prepared.components[i]!;
    roots.add(names.kind).add(names.list);
    for (const op of resourceOperations(r, names)) {
      const item = (paths[op.path] ??= { parameters: [...op.pathParams.map(pathParam), queryParam(queryParams.pretty)] });
      item[op.method] = renderOperation(op);
      for (const c of [op.body?.component, ...Object.values(op.responses)]) if (c) roots.add(c);
    }
  });
  const schemas = referencedClosure(roots, (name) => prepared.extra[name] ?? components[name]);
  const definitions = Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, toV2Schema(s)]));
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => compareStrings(a, b))),
    definitions,
  };
}
