/**
 * Builders for CRD schemas that carry their TypeScript type: each builder returns the
 * `JSONSchemaProps` node the CRD serves together with a type parameter that only the compiler
 * sees, so one declaration per kind yields both the `openAPIV3Schema` and the type (read it
 * with `Infer<typeof x>`). The builders cover what structural CRD schemas use — objects with
 * required fields, lists with their list types, string maps, enums, nullable values and
 * preserved unknown fields — and nothing else, so a schema written here is one the API
 * server's structural checks accept.
 */
import type { JSONSchemaProps } from '../schema.ts';

declare const typeOnly: unique symbol;

/** A schema node whose values have type `T` (`T` exists for the compiler only). */
export interface Schema<T> {
  readonly json: JSONSchemaProps;
  readonly [typeOnly]?: T;
}

/** A property that the object's `required` list names, so its type is not optional either. */
export interface RequiredProperty<T> {
  readonly requiredSchema: Schema<T>;
}

export type Property = Schema<unknown> | RequiredProperty<unknown>;

export type Infer<S> = S extends Schema<infer T> ? T : never;

type PropertyType<P> = P extends RequiredProperty<infer T> ? T : P extends Schema<infer T> ? T : never;
type RequiredKeys<P> = { [K in keyof P]: P[K] extends RequiredProperty<unknown> ? K : never }[keyof P];
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The value type of an object schema: required properties as declared, the others optional. */
export type ObjectOf<P extends Record<string, Property>> = Flatten<
  { [K in RequiredKeys<P>]: PropertyType<P[K]> } & { [K in Exclude<keyof P, RequiredKeys<P>>]?: PropertyType<P[K]> }
>;

export type Validation = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

interface Common {
  readonly description?: string;
  /** CEL rules (`x-kubernetes-validations`) on this node. */
  readonly rules?: readonly Validation[];
}

interface StringOptions extends Common {
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly default?: string;
}

interface NumberOptions extends Common {
  readonly format?: 'int32' | 'int64' | 'float' | 'double';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: number;
}

interface ArrayOptions extends Common {
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: readonly unknown[];
}

interface ObjectOptions extends Common {
  readonly default?: Record<string, unknown>;
  /** `atomic`: the object is replaced as a whole by apply and merges (a label selector, an object reference). */
  readonly mapType?: 'atomic' | 'granular';
  /** The object is a whole Kubernetes object (apiVersion, kind, metadata), as an embedded Infrastructure. */
  readonly embeddedResource?: boolean;
}

function node<T>(json: JSONSchemaProps, opts: Common = {}): Schema<T> {
  const out: JSONSchemaProps = { ...json };
  if (opts.description) out.description = opts.description;
  if (opts.rules?.length) out['x-kubernetes-validations'] = opts.rules.map((r) => ({ ...r }));
  return { json: out };
}

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export const s = {
  string(opts: StringOptions = {}): Schema<string> {
    const { format, pattern, minLength, maxLength } = opts;
    return node({ type: 'string', ...defined({ format, pattern, minLength, maxLength, default: opts.default }) }, opts);
  },

  /**
   * A string the schema leaves open but whose known values the type lists, as Go's named
   * string types do (OpenShift's condition `status` and history `state` carry no enum).
   */
  stringOf<T extends string>(opts: StringOptions = {}): Schema<T> {
    return s.string(opts) as Schema<T>;
  },

  /** An RFC 3339 timestamp (metav1.Time). */
  time(opts: Common = {}): Schema<string> {
    return node({ type: 'string', format: 'date-time' }, opts);
  },

  /** A string restricted to `values`; the type is their union. */
  enum<const V extends readonly string[]>(values: V, opts: Common & { readonly default?: V[number] } = {}): Schema<V[number]> {
    return node({ type: 'string', enum: [...values], ...defined({ default: opts.default }) }, opts);
  },

  integer(opts: NumberOptions = {}): Schema<number> {
    const { format, minimum, maximum } = opts;
    return node({ type: 'integer', ...defined({ format, minimum, maximum, default: opts.default }) }, opts);
  },

  number(opts: NumberOptions = {}): Schema<number> {
    const { format, minimum, maximum } = opts;
    return node({ type: 'number', ...defined({ format, minimum, maximum, default: opts.default }) }, opts);
  },

  boolean(opts: Common & { readonly default?: boolean } = {}): Schema<boolean> {
    return node({ type: 'boolean', ...defined({ default: opts.default }) }, opts);
  },

  array<T>(items: Schema<T>, opts: ArrayOptions = {}): Schema<T[]> {
    const json: JSONSchemaProps = { type: 'array', items: items.json };
    if (opts.listType) json['x-kubernetes-list-type'] = opts.listType;
    if (opts.listMapKeys) json['x-kubernetes-list-map-keys'] = [...opts.listMapKeys];
    if (opts.minItems !== undefined) json.minItems = opts.minItems;
    if (opts.maxItems !== undefined) json.maxItems = opts.maxItems;
    if (opts.default !== undefined) json.default = structuredClone(opts.default);
    return node(json, opts);
  },

  /** A map with string keys (`map[string]T` in Go). */
  map<T>(values: Schema<T>, opts: Common = {}): Schema<Record<string, T>> {
    return node({ type: 'object', additionalProperties: values.json }, opts);
  },

  /** An object; wrap a property in `required()` to list it in `required` and make it non-optional in the type. */
  object<P extends Record<string, Property>>(properties: P, opts: ObjectOptions = {}): Schema<ObjectOf<P>> {
    const props: Record<string, JSONSchemaProps> = {};
    const required: string[] = [];
    for (const [name, p] of Object.entries(properties)) {
      if ('requiredSchema' in p) {
        props[name] = p.requiredSchema.json;
        required.push(name);
      } else {
        props[name] = p.json;
      }
    }
    const json: JSONSchemaProps = { type: 'object' };
    if (Object.keys(props).length) json.properties = props;
    if (required.length) json.required = required;
    if (opts.default !== undefined) json.default = structuredClone(opts.default);
    if (opts.mapType) json['x-kubernetes-map-type'] = opts.mapType;
    if (opts.embeddedResource) json['x-kubernetes-embedded-resource'] = true;
    return node(json, opts);
  },

  /** An integer or a string such as `"10%"` (intstr.IntOrString); `pattern` applies to strings only. */
  intOrString(opts: Common & { readonly pattern?: string; readonly default?: number | string } = {}): Schema<number | string> {
    const { pattern } = opts;
    return node({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, ...defined({ pattern, default: opts.default }) }, opts);
  },

  /** Any JSON object, kept as sent (a RawExtension). */
  unknownObject(opts: Common = {}): Schema<Record<string, unknown>> {
    return node({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, opts);
  },

  /** The same schema, allowing an explicit `null`. */
  nullable<T>(schema: Schema<T>): Schema<T | null> {
    return { json: { ...schema.json, nullable: true } };
  },

  /** The same schema with another description. */
  describe<T>(schema: Schema<T>, description: string): Schema<T> {
    return { json: { ...schema.json, description } };
  },
};

export function required<T>(schema: Schema<T>): RequiredProperty<T> {
  return { requiredSchema: schema };
}
