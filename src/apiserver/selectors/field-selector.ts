/**
 * Field selectors: the `fieldSelector` query string (`spec.nodeName=n1,status.phase!=Failed`)
 * and the matcher it compiles to for one resource. Only `=`, `==` and `!=` exist, terms are
 * ANDed, and a value may escape `\`, `,` and `=` with a backslash, exactly as Kubernetes'
 * `fields.ParseSelector` reads them. Each resource supports a fixed set of fields (see
 * `field-accessors.ts`); naming any other is a 400 `field label not supported: <field>`.
 */
import { errors } from '../errors.ts';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** Reads one selectable field from an object; `undefined` is compared as the empty string. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FieldAccessor = (obj: any) => string | undefined;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FieldMatcher = (obj: any) => boolean;

/** Splits on commas that are not escaped; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// `==` is tried before `=` so that `a==b` does not leave `=b` as the value.
const operators: readonly FieldOperator[] = ['!=', '==', '='];

/** The first operator in the term splits it; the field part has no escaping. */
function splitTerm(term: string): FieldRequirement | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of operators) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Undoes `escapeFieldValue`; an unknown escape or a bare `,`/`=` is an error, worded as Kubernetes words it. */
export function unescapeFieldValue(raw: string): string {
  if (!/[\\,=]/.test(raw)) return raw;
  let out = '';
  let escaped = false;
  for (const c of raw) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, which gives its code point.
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (escaped) throw errors.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes `\`, `,` and `=` so that any string can be a field selector value. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses a `fieldSelector` query string. Terms come back sorted as Kubernetes sorts them
 * (so the first bad term reported is the same one); empty terms are skipped, and an empty
 * selector has no requirements. Throws a 400 ApiError on a malformed selector.
 */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const r = splitTerm(term);
    if (!r) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    out.push({ ...r, value: unescapeFieldValue(r.value) });
  }
  return out;
}

/** The requirements printed back in query-string form (`a=b,c!=d`), values escaped. */
export function fieldRequirementsToString(requirements: readonly FieldRequirement[]): string {
  return requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
}

/** The value the selector pins `field` to (`metadata.name=web` → `web`), if it does. */
export function fieldExactMatch(requirements: readonly FieldRequirement[], field: string): string | undefined {
  return requirements.find((r) => r.field === field && r.operator !== '!=')?.value;
}

/** Checks every field against `supported`, then builds the matcher from their accessors. */
export function compileFieldRequirements(requirements: readonly FieldRequirement[], supported: Readonly<Record<string, FieldAccessor>>): FieldMatcher {
  const compiled = requirements.map((r) => {
    if (!Object.prototype.hasOwnProperty.call(supported, r.field)) throw errors.badRequest(`field label not supported: ${r.field}`);
    return { accessor: supported[r.field]!, negate: r.operator === '!=', value: r.value };
  });
  return (obj) => compiled.every((c) => ((c.accessor(obj) ?? '') === c.value) !== c.negate);
}

/** Parses a `fieldSelector` and compiles it against the fields a resource supports. */
export function compileFieldSelector(selector: string, supported: Readonly<Record<string, FieldAccessor>>): FieldMatcher {
  return compileFieldRequirements(parseFieldSelector(selector), supported);
}

export {
  certificateSigningRequestFieldAccessors,
  commonFieldAccessors,
  eventFieldAccessors,
  namespaceFieldAccessors,
  nodeFieldAccessors,
  podFieldAccessors,
  replicaSetFieldAccessors,
  secretFieldAccessors,
  selectableFieldAccessors,
} from './field-accessors.ts';
