/**
 * Field paths as apimachinery's `field.Path` prints them: `.child` for struct fields,
 * `[key]` for map keys (`properties[spec]`), `[0]` for list indexes. The CRD validators
 * name schema nodes with these (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
 */
import { childPath } from '../../api/field-errors.ts';

/** `parent.name`, or `name` at the root. */
export function child(parent: string, ...names: string[]): string {
  let path = parent;
  for (const name of names) path = childPath(path, name);
  return path;
}

/** `parent[key]`: a map key, as `field.Path.Key` prints it. */
export function key(parent: string, mapKey: string): string {
  return `${parent}[${mapKey}]`;
}

/** `parent[i]`. */
export function index(parent: string, i: number): string {
  return childPath(parent, i);
}
