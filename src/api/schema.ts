/**
 * The OpenAPI v3 schema shape used everywhere in Shipyard: CRD `openAPIV3Schema`
 * (JSONSchemaProps), the built-in kinds' schemas, the documents served at `/openapi/v3`,
 * and the patch metadata that strategic merge patch and server-side apply read
 * (`x-kubernetes-patch-merge-key`, `x-kubernetes-list-type`, ...).
 */

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  multipleOf?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  /** Only in served OpenAPI documents, never in CRD schemas. */
  $ref?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'granular' | 'atomic';
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }>;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
}

/**
 * Dereferences a schema node: returns the target of its `$ref` (served documents use
 * `#/components/schemas/<name>` references, since some kinds are recursive), or the node itself.
 */
export type SchemaResolver = (schema: JSONSchemaProps) => JSONSchemaProps;

/** A resolver for schemas without references. */
export const noRefs: SchemaResolver = (schema) => schema;
