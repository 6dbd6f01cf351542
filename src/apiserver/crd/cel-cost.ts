/**
 * Kubernetes' static cost limits for a CRD's validation rules, checked when the CRD is
 * written: each rule's estimated worst-case cost (cel/cost-estimate.ts), times the number of
 * times it can run in one object (its cardinality: the product of the `maxItems` and
 * `maxProperties` above it, or what a 3 MiB request could hold), must stay under 10^7, and
 * all of a schema's rules and messageExpressions together under 10^8. The declared types the
 * estimate runs on are derived from the schema as Kubernetes derives them (SchemaDeclType).
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { type DeclType, estimateCost } from './cel/cost-estimate.ts';
import type { CompiledExpression } from './cel/compile.ts';
import { escapeCelName } from './cel-values.ts';

/** Kubernetes' per-expression limit on the estimated cost (StaticEstimatedCostLimit). */
export const staticEstimatedCostLimit = 10_000_000;
/** Kubernetes' limit on the estimated cost of all of a CRD version's rules (StaticEstimatedCRDCostLimit). */
export const staticEstimatedCRDCostLimit = 100_000_000;

const maxRequestSizeBytes = 3 * 1024 * 1024;
const maxDurationSizeJSON = 32;
const maxDatetimeSizeJSON = 32;
const dateSizeJSON = 12;
const minDurationSizeJSON = 3;
const minDatetimeSizeJSON = 21;

/** The fewest bytes a value of the schema takes in JSON (required properties without defaults included). */
function minSizeJSON(s: JSONSchemaProps | undefined): number {
  switch (s?.type) {
    case 'boolean':
      return 4;
    case 'number':
    case 'integer':
      return 1;
    case 'string':
      return s.format === 'duration' ? minDurationSizeJSON : s.format === 'date' ? dateSizeJSON : s.format === 'date-time' ? minDatetimeSizeJSON : 2;
    case 'array':
      return 2;
    case 'object': {
      let size = 2;
      for (const name of s.required ?? []) {
        const prop = s.properties?.[name];
        if (prop && prop.default === undefined) size += name.length + minSizeJSON(prop) + 4;
      }
      return size;
    }
    default:
      return 1;
  }
}

function maxStringLength(s: JSONSchemaProps): number {
  if (s['x-kubernetes-int-or-string']) return maxRequestSizeBytes - 2;
  switch (s.format) {
    case 'duration':
      return maxDurationSizeJSON;
    case 'date':
      return dateSizeJSON;
    case 'date-time':
      return maxDatetimeSizeJSON;
    default:
      return maxRequestSizeBytes - 2;
  }
}

const simple = (kind: DeclType['kind'], maxElements = 0, minSerializedSize = 1): DeclType => ({ kind, maxElements, minSerializedSize });
const stringType = simple('string', maxRequestSizeBytes - 2, 2);

/** apiVersion, kind and metadata.name/generateName are always there at a resource root. */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const str: JSONSchemaProps = { type: 'string' };
  return { ...s, properties: { ...s.properties, kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } } } };
}

const declTypes = new WeakMap<JSONSchemaProps, { root?: DeclType | null; node?: DeclType | null }>();

/** The schema's CEL type as Kubernetes declares it (SchemaDeclType); undefined where CEL cannot see the value. */
export function declTypeOf(schema: JSONSchemaProps | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  let memo = declTypes.get(schema);
  if (!memo) declTypes.set(schema, (memo = {}));
  const slot = isResourceRoot ? 'root' : 'node';
  if (memo[slot] === undefined) memo[slot] = convert(schema, isResourceRoot) ?? null;
  return memo[slot] ?? undefined;
}

function convert(schema: JSONSchemaProps, isResourceRoot: boolean): DeclType | undefined {
  if (schema['x-kubernetes-int-or-string']) return simple('dyn', maxRequestSizeBytes - 2);
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      const items = declTypeOf(s.items, s.items?.['x-kubernetes-embedded-resource'] === true);
      if (!items) return undefined;
      const maxItems = s.maxItems !== undefined ? Math.max(0, s.maxItems) : Math.floor((maxRequestSizeBytes - 2) / (minSizeJSON(s.items) + 1));
      return { kind: 'list', maxElements: maxItems, minSerializedSize: 2, elem: items };
    }
    case 'object': {
      const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      if (ap) {
        const values = declTypeOf(ap, ap['x-kubernetes-embedded-resource'] === true);
        if (!values) return undefined;
        const maxProperties = s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : Math.floor((maxRequestSizeBytes - 2) / (minSizeJSON(ap) + 6));
        return { kind: 'map', maxElements: maxProperties, minSerializedSize: 2, elem: values };
      }
      const fields = new Map<string, DeclType>();
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = declTypeOf(prop, prop?.['x-kubernetes-embedded-resource'] === true);
        const celName = escapeCelName(name);
        if (t && celName !== undefined) fields.set(celName, t);
      }
      return { kind: 'object', maxElements: 0, minSerializedSize: minSizeJSON(s), fields };
    }
    case 'string': {
      if (s.format === 'byte') return simple('bytes', s.maxLength !== undefined ? Math.max(0, s.maxLength) : maxStringLength(s), 2);
      if (s.format === 'duration') return simple('duration', maxStringLength(s), minDurationSizeJSON);
      if (s.format === 'date' || s.format === 'date-time') return simple('timestamp', maxStringLength(s), minSizeJSON(s));
      // maxLength counts code points; Kubernetes sizes strings in bytes, up to 4 per code point.
      return simple('string', s.maxLength !== undefined ? Math.max(0, s.maxLength) * 4 : maxStringLength(s), 2);
    }
    case 'boolean':
      return simple('bool', 0, 4);
    case 'number':
      return simple('double');
    case 'integer':
      return simple('int');
    default:
      return undefined;
  }
}

/**
 * The factor by which a node multiplies how often its children occur: a list's `maxItems`, a
 * map's `maxProperties`, 1 for an object's properties; undefined when unbounded.
 */
export function childCardinality(parent: number | undefined, schema: JSONSchemaProps): number | undefined {
  if (parent === undefined) return undefined;
  if (schema.type === 'array') return schema.maxItems === undefined ? undefined : parent * Math.max(0, schema.maxItems);
  if (schema.type === 'object' && schema.additionalProperties !== undefined) return schema.maxProperties === undefined ? undefined : parent * Math.max(0, schema.maxProperties);
  return parent;
}

/** How often a node can occur under unbounded lists or maps: as many of its smallest form as fit in a request. */
function estimatedCardinality(schema: JSONSchemaProps): number {
  return Math.floor(maxRequestSizeBytes / (minSizeJSON(schema) + 1));
}

/** A rule's estimated worst-case cost times how often it can run. */
export function ruleCost(expr: CompiledExpression, schema: JSONSchemaProps, isResourceRoot: boolean, cardinality: number | undefined): number {
  const t = declTypeOf(schema, isResourceRoot);
  const cost = estimateCost(expr.ast, { self: t, oldSelf: t }, 'self');
  return Math.min(2 ** 64, cost * (cardinality ?? estimatedCardinality(schema)));
}

/** A messageExpression's estimated cost (Kubernetes does not multiply it by the cardinality). */
export function messageExpressionCost(expr: CompiledExpression, schema: JSONSchemaProps, isResourceRoot: boolean): number {
  const t = declTypeOf(schema, isResourceRoot);
  return estimateCost(expr.ast, { self: t, oldSelf: t }, 'self');
}

/** Kubernetes' wording of an estimate over a limit (getCostErrorMessage). */
export function costErrorMessage(what: string, cost: number, limit: number): string {
  const f = cost / limit;
  const by = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${by} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The estimated cost of all of one schema's rules, and the four most expensive (of at least 1% of the limit). */
export class TotalCost {
  total = 0;
  private readonly mostExpensive: Array<{ path: string; cost: number }> = [];

  observe(path: string, cost: number): void {
    this.total = Math.min(2 ** 64, this.total + cost);
    if (cost < staticEstimatedCRDCostLimit / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.splice(4);
  }

  /** The errors when the total is over the limit: each big contributor, then the total at `root`. */
  errors(root: string): FieldError[] {
    if (this.total <= staticEstimatedCRDCostLimit) return [];
    return [
      ...this.mostExpensive.map((e) => fieldError.forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
      fieldError.forbidden(root, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', this.total, staticEstimatedCRDCostLimit)),
    ];
  }
}
