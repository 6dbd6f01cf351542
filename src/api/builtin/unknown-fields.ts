/**
 * Finds the fields of an object that its schema does not declare, for
 * `fieldValidation=Strict|Warn` on built-in kinds: kube-apiserver's strict decoder reports
 * them as `unknown field "spec.template.spec.containers[0].imagee"`, and so does this. Maps
 * (`additionalProperties`) accept any key, and free-form values (`x-kubernetes-preserve-unknown-fields`,
 * or a schema with neither properties nor additionalProperties) accept anything. Values of
 * the wrong JSON type are not this module's concern and are skipped.
 */
import type { JSONSchemaProps, SchemaResolver } from '../schema.ts';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Paths of the fields in `obj` that `schema` does not declare, in document order. */
export function findUnknownFields(obj: unknown, schema: JSONSchemaProps, resolve: SchemaResolver): string[] {
  const found: string[] = [];
  const walk = (value: unknown, node: JSONSchemaProps, path: string): void => {
    if (value === null || value === undefined) return;
    const s = resolve(node);
    if (Array.isArray(value)) {
      if (s.items) value.forEach((item, i) => walk(item, s.items!, `${path}[${i}]`));
      return;
    }
    if (!isPlainObject(value)) return;
    const props = s.properties;
    const extra = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    for (const [key, v] of Object.entries(value)) {
      const declared = props?.[key];
      if (declared) walk(v, declared, join(path, key));
      else if (typeof extra === 'object') walk(v, extra, join(path, key));
      else if (props && !preserve && extra !== true) found.push(join(path, key));
    }
  };
  walk(obj, schema, '');
  return found;
}
