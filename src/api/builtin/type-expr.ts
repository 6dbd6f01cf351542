/**
 * The type strings of @kubernetes/client-node's generated models, parsed. Every model class
 * carries a static `attributeTypeMap` of `{name, baseName, type, format}`, where `type` is a
 * TypeScript-ish expression: a primitive (`string`, `number`, `boolean`, `any`, `object`), a
 * value class the serializer knows (`Date`, `IntOrString`, `V1MicroTime`), `Array<T>`,
 * `{ [key: string]: T; }`, or another model's class name.
 */

export interface ModelAttribute {
  /** Property name on the TypeScript class (`_continue`, `x_kubernetes_list_type`). */
  readonly name: string;
  /** Property name on the wire (`continue`, `x-kubernetes-list-type`). */
  readonly baseName: string;
  readonly type: string;
  /** OpenAPI format: `int32`, `int64`, `double`, `byte`, `date-time`, `date-time-micro`, `int-or-string` or empty. */
  readonly format: string;
}

export interface ModelClass {
  readonly attributeTypeMap: readonly ModelAttribute[];
}

export type TypeExpr =
  | { readonly kind: 'primitive'; readonly name: 'string' | 'number' | 'boolean' | 'any' | 'object' }
  | { readonly kind: 'special'; readonly name: 'Date' | 'IntOrString' | 'V1MicroTime' }
  | { readonly kind: 'array'; readonly of: TypeExpr }
  | { readonly kind: 'map'; readonly of: TypeExpr }
  | { readonly kind: 'model'; readonly name: string };

const primitives = new Set(['string', 'number', 'boolean', 'any', 'object']);
const specials = new Set(['Date', 'IntOrString', 'V1MicroTime']);

export function parseTypeExpr(type: string): TypeExpr {
  const t = type.trim();
  const array = /^Array<(.+)>$/.exec(t);
  if (array) return { kind: 'array', of: parseTypeExpr(array[1]!) };
  const map = /^\{\s*\[key: string\]:\s*(.+?);?\s*\}$/.exec(t);
  if (map) return { kind: 'map', of: parseTypeExpr(map[1]!) };
  if (primitives.has(t)) return { kind: 'primitive', name: t as 'string' };
  if (specials.has(t)) return { kind: 'special', name: t as 'Date' };
  if (/^[A-Z]\w*$/.test(t)) return { kind: 'model', name: t };
  throw new Error(`unrecognised client-node type expression: ${type}`);
}

/** The model class named by a type expression, if any (through arrays and maps). */
export function modelOf(t: TypeExpr): string | undefined {
  if (t.kind === 'model') return t.name;
  if (t.kind === 'array' || t.kind === 'map') return modelOf(t.of);
  return undefined;
}
