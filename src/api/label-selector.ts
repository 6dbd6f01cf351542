/**
 * Label selectors, in both forms the API uses, for every component: the query string
 * (`app=web,tier in (a,b),!canary`) that list and watch requests carry in `?labelSelector=`,
 * and the structured `metav1.LabelSelector` (`{matchLabels, matchExpressions}`) that
 * Deployments, ReplicaSets, DaemonSets, PodDisruptionBudgets and pod affinity terms embed.
 * Both become the same list of requirements, so they match, validate and print alike.
 *
 * The null/empty rule is Kubernetes': a missing structured selector selects nothing, an empty
 * one (`{}`) selects everything, and an empty query string selects everything. Parse errors
 * are worded as kube-apiserver words them (`unable to parse requirement: ...`,
 * `found 'x', expected: ...`), because clients and people compare them with what a real
 * cluster says; the API server turns them into 400s.
 */
import { childPath, fieldError } from './field-errors.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';

/** Kubernetes' `selection.Operator` values. */
export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and free of duplicates for `in`/`notin`; one value for `=`, `==`, `!=`, `gt`, `lt`; none otherwise. */
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>> | undefined | null;
export type LabelMatcher = (labels: Labels) => boolean;

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | null;
}

/** The structured selector of workload specs (`metav1.LabelSelector`). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: readonly LabelSelectorRequirement[] | null;
}

// ---------------------------------------------------------------------------------------------
// Requirements: construction with validation, matching, printing.

/** Go's `%q` for the ASCII strings selectors hold. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/** `[a, b]` as an aggregate of several field errors prints (duplicates dropped), or the one message. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** The error message Kubernetes gives for a bad label key at `field` (`<nil>` when the parser has no path). */
function keyError(key: string, field: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `${field}: Invalid value: ${quote(key)}: ${errs.join('; ')}` : undefined;
}

function goStringList(values: readonly string[]): string {
  return `[]string{${values.map(quote).join(', ')}}`;
}

const integerPattern = /^[+-]?\d+$/;

/**
 * Builds a requirement, checking what `labels.NewRequirement` checks: the key, the number of
 * values the operator takes, and each value. Errors name `key` and `values` under `path`
 * (bare when there is none, as the query-string parser reports them). Returns the error
 * message instead of throwing.
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[], path = ''): LabelRequirement | { error: string } {
  const keyPath = childPath(path, 'key');
  const valuesPath = childPath(path, 'values');
  const errs: string[] = [];
  const bad = keyError(key, keyPath);
  if (bad) errs.push(bad);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`${valuesPath}: Invalid value: ${goStringList(values)}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`${valuesPath}: Invalid value: ${goStringList(values)}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`${valuesPath}: Invalid value: ${goStringList(values)}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`${valuesPath}: Invalid value: ${goStringList(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (!integerPattern.test(v)) errs.push(`${valuesPath}[${i}]: Invalid value: ${quote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(`${valuesPath}[${i}][${key}]: Invalid value: ${quote(v)}: ${valueErrs.join('; ')}`);
  });
  if (errs.length) return { error: aggregate(errs) };
  return { key, operator, values: [...values] };
}

/** An own property only: `constructor` or `toString` is a label key like any other, not something every object has. */
function has(labels: Labels, key: string): labels is Readonly<Record<string, string>> {
  return !!labels && Object.prototype.hasOwnProperty.call(labels, key);
}

export function matchesRequirement(r: LabelRequirement, labels: Labels): boolean {
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has(labels, r.key) && r.values.includes(labels[r.key]!);
    case 'notin':
    case '!=':
      return !has(labels, r.key) || !r.values.includes(labels[r.key]!);
    case 'exists':
      return has(labels, r.key);
    case '!':
      return !has(labels, r.key);
    case 'gt':
    case 'lt': {
      if (!has(labels, r.key) || r.values.length !== 1) return false;
      const actual = labels[r.key]!;
      const wanted = r.values[0]!;
      if (!integerPattern.test(actual) || !integerPattern.test(wanted)) return false;
      const a = BigInt(actual);
      const b = BigInt(wanted);
      return r.operator === 'gt' ? a > b : a < b;
    }
  }
}

export function matchesRequirements(requirements: readonly LabelRequirement[], labels: Labels): boolean {
  return requirements.every((r) => matchesRequirement(r, labels));
}

/** Every label of `set` is on `labels` with the same value (`labels.SelectorFromSet`); an empty set matches everything. */
export function matchesLabelSet(set: Labels, labels: Labels): boolean {
  for (const [k, v] of Object.entries(set ?? {})) if (!has(labels, k) || labels[k] !== v) return false;
  return true;
}

const operatorText: Record<LabelOperator, string> = { '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<', exists: '', '!': '' };

/** One requirement as `Requirement.String()` prints it: `!key`, `key`, `key=v`, `key in (a,b)`. */
export function requirementToString(r: LabelRequirement): string {
  if (r.operator === '!') return `!${r.key}`;
  if (r.operator === 'exists') return r.key;
  const values = [...r.values].sort().join(',');
  const body = r.operator === 'in' || r.operator === 'notin' ? `(${values})` : values;
  return `${r.key}${operatorText[r.operator]}${body}`;
}

/** Requirements sorted by key and joined with commas, as `Selector.String()` prints them. */
export function requirementsToString(requirements: readonly LabelRequirement[]): string {
  return sortByKey(requirements).map(requirementToString).join(',');
}

function sortByKey(requirements: readonly LabelRequirement[]): LabelRequirement[] {
  return [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// The query-string grammar: a lexer and a recursive-descent parser.

type Token = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';

interface Scanned {
  readonly tok: Token;
  readonly lit: string;
}

const keywords = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

function lex(input: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isWhitespace(input[pos]!)) pos++;
    if (pos >= input.length) {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    if (isSpecial(input[pos]!)) {
      // The longest run of special characters that is still an operator (`!=`, `==`).
      let buffer = '';
      let last: Scanned | undefined;
      while (pos < input.length && isSpecial(input[pos]!)) {
        buffer += input[pos];
        const tok = keywords.get(buffer);
        if (tok) last = { tok, lit: buffer };
        else if (last) break;
        pos++;
      }
      out.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let word = '';
    while (pos < input.length && !isSpecial(input[pos]!) && !isWhitespace(input[pos]!)) word += input[pos++];
    out.push({ tok: keywords.get(word) ?? 'id', lit: word });
  }
}

/** A malformed `labelSelector` string; the message is kube-apiserver's, word for word. */
export class LabelSelectorParseError extends Error {
  override name = 'LabelSelectorParseError';
}

/**
 * Where values are expected, the keywords `in` and `notin` are plain identifiers
 * (`x in (in,notin)` is valid), exactly as in Kubernetes' parser.
 */
class Parser {
  private position = 0;

  constructor(private readonly items: Scanned[]) {}

  private peek(values: boolean): Scanned {
    const s = this.items[this.position]!;
    return values && (s.tok === 'in' || s.tok === 'notin') ? { tok: 'id', lit: s.lit } : s;
  }

  private next(values: boolean): Scanned {
    const s = this.peek(values);
    if (this.position < this.items.length - 1) this.position++;
    return s;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === 'eos') return requirements;
      if (tok !== 'id' && tok !== '!') throw new LabelSelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.requirement());
      } catch (err) {
        if (err instanceof LabelSelectorParseError) throw new LabelSelectorParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const after = this.next(true);
      if (after.tok === 'eos') return requirements;
      if (after.tok !== ',') throw new LabelSelectorParseError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek(true);
      if (following.tok !== 'id' && following.tok !== '!') throw new LabelSelectorParseError(`found '${following.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let { tok, lit } = this.next(true);
    let operator: LabelOperator | undefined;
    if (tok === '!') {
      operator = '!';
      ({ tok, lit } = this.next(true));
    }
    if (tok !== 'id') throw new LabelSelectorParseError(`found '${lit}', expected: identifier`);
    const bad = keyError(lit, '<nil>');
    if (bad) throw new LabelSelectorParseError(bad);
    const key = lit;
    const ahead = this.peek(true).tok;
    if (operator !== '!' && (ahead === 'eos' || ahead === ',')) operator = 'exists';
    if (operator === '!' || operator === 'exists') return this.build(key, operator, []);

    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : this.exactValue();
    return this.build(key, op, values);
  }

  private build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const r = newRequirement(key, operator, values);
    if ('error' in r) throw new LabelSelectorParseError(r.error);
    return r;
  }

  private operator(): LabelOperator {
    const { tok, lit } = this.next(false);
    const ops: Partial<Record<Token, LabelOperator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
    const op = ops[tok];
    if (!op) throw new LabelSelectorParseError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    return op;
  }

  private valueSet(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new LabelSelectorParseError(`found '${open.lit}' expected: '('`);
    const first = this.peek(true);
    if (first.tok === ')') {
      this.next(true);
      return [''];
    }
    if (first.tok !== 'id' && first.tok !== ',') throw new LabelSelectorParseError(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values = this.identifierList();
    // Kubernetes reports the token that opened the list here, not the one it found.
    if (this.next(true).tok !== ')') throw new LabelSelectorParseError(`found '${first.lit}', expected: ')'`);
    return [...values].sort();
  }

  /** A possibly empty, comma-separated list of possibly empty identifiers: `a,,b`, `,a`, `a,`. */
  private identifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.next(true);
      if (tok === 'id') {
        values.add(lit);
        const ahead = this.peek(true);
        if (ahead.tok === ',') continue;
        if (ahead.tok === ')') return values;
        throw new LabelSelectorParseError(`found '${ahead.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        if (values.size === 0) values.add('');
        const ahead = this.peek(true).tok;
        if (ahead === ')') {
          values.add('');
          return values;
        }
        if (ahead === ',') {
          this.next(true);
          values.add('');
        }
        continue;
      }
      throw new LabelSelectorParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private exactValue(): string[] {
    const ahead = this.peek(true).tok;
    if (ahead === 'eos' || ahead === ',') return [''];
    const { tok, lit } = this.next(true);
    if (tok === 'id') return [lit];
    throw new LabelSelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses a `labelSelector` query string into requirements sorted by key.
 * An empty (or all-blank) selector has no requirements and matches everything.
 * Throws a LabelSelectorParseError on a malformed selector.
 */
export function parseLabelRequirements(selector: string): LabelRequirement[] {
  return sortByKey(new Parser(lex(selector)).parse());
}

// ---------------------------------------------------------------------------------------------
// Structured selectors (`metav1.LabelSelector`).

/** The operators a structured selector may use, in the order Kubernetes lists them. */
export const labelSelectorOperators: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

const structuredOperators = new Map<string, LabelOperator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

/** What a structured selector selects: nothing (it is missing), the objects meeting every requirement (none for `{}`), or it is invalid. */
export type LabelSelectorRequirements =
  | { readonly kind: 'nothing' }
  | { readonly kind: 'requirements'; readonly requirements: readonly LabelRequirement[] }
  | { readonly kind: 'invalid'; readonly error: string };

/**
 * The requirements of a structured selector, validated as `LabelSelectorAsSelector` does
 * (label keys and values, operators, how many values each takes), stopping at the first
 * problem. Errors name the field under `path`, e.g.
 * `spec.selector.matchExpressions[0].operator: Unsupported value: "Foo": supported values: ...`.
 */
export function labelSelectorRequirements(selector: LabelSelector | null | undefined, path = ''): LabelSelectorRequirements {
  if (!selector) return { kind: 'nothing' };
  const out: LabelRequirement[] = [];
  const labelsPath = childPath(path, 'matchLabels');
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) return { kind: 'invalid', error: fieldError.invalid(labelsPath, key, keyErrs.join('; ')).message };
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) return { kind: 'invalid', error: fieldError.invalid(labelsPath, value, valueErrs.join('; ')).message };
    out.push({ key, operator: '=', values: [value] });
  }
  const expressions = selector.matchExpressions ?? [];
  for (let i = 0; i < expressions.length; i++) {
    const expr = expressions[i]!;
    const exprPath = childPath(childPath(path, 'matchExpressions'), i);
    const op = structuredOperators.get(expr.operator);
    if (!op) return { kind: 'invalid', error: fieldError.notSupported(childPath(exprPath, 'operator'), expr.operator, labelSelectorOperators).message };
    const r = newRequirement(expr.key, op, [...(expr.values ?? [])], exprPath);
    if ('error' in r) return { kind: 'invalid', error: r.error };
    out.push(r);
  }
  return { kind: 'requirements', requirements: sortByKey(out) };
}

export const selectsNothing: LabelMatcher = () => false;
const selectsEverything: LabelMatcher = () => true;

/** A structured selector compiled to a predicate, or why it is invalid. Either property may be read directly. */
export type CompiledLabelSelector = { readonly matches: LabelMatcher; readonly error?: undefined } | { readonly matches?: undefined; readonly error: string };

/**
 * Compiles a structured selector once, for matching many objects: a missing selector matches
 * nothing, `{}` everything. An invalid selector has no matcher, so each caller decides what
 * that means for it (a workload controller stops; the scheduler's affinity terms select nothing).
 */
export function compileLabelSelector(selector: LabelSelector | null | undefined, path = ''): CompiledLabelSelector {
  const converted = labelSelectorRequirements(selector, path);
  switch (converted.kind) {
    case 'nothing':
      return { matches: selectsNothing };
    case 'invalid':
      return { error: converted.error };
    case 'requirements': {
      const { requirements } = converted;
      if (requirements.length === 0) return { matches: selectsEverything };
      return { matches: (labels) => matchesRequirements(requirements, labels) };
    }
  }
}

/**
 * Whether `labels` satisfy a structured selector (PodDisruptionBudget, ReplicaSet, ...).
 * A missing selector matches nothing, an empty one everything, an invalid one nothing.
 */
export function matchLabelSelector(selector: LabelSelector | null | undefined, labels: Labels): boolean {
  return compileLabelSelector(selector).matches?.(labels) ?? false;
}

/** `{}` (no requirements at all, but present) selects every object in the namespace: kube refuses to act on it for Deployments. */
export function isEmptySelector(selector: LabelSelector | null | undefined): boolean {
  return !!selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/**
 * A structured selector in query-string form (`app=web,tier in (a,b)`), as `scale.status.selector`
 * and `kubectl` print it. Empty or missing selectors print as `''`; entries with an unknown
 * operator are left out rather than failing (validation rejects them before they are stored).
 */
export function labelSelectorToString(selector: LabelSelector | null | undefined): string {
  if (!selector) return '';
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) out.push({ key, operator: '=', values: [value] });
  for (const expr of selector.matchExpressions ?? []) {
    const op = structuredOperators.get(expr.operator);
    if (op) out.push({ key: expr.key, operator: op, values: op === 'exists' || op === '!' ? [] : [...new Set(expr.values ?? [])] });
  }
  return requirementsToString(out);
}

/** `metav1.FormatLabelSelector`: the selector string, `<none>` when it is empty, `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  const converted = labelSelectorRequirements(selector);
  if (converted.kind === 'invalid') return '<error>';
  const text = converted.kind === 'nothing' ? '' : requirementsToString(converted.requirements);
  return text || '<none>';
}

/** `labels.FormatLabels`: `k=v` pairs sorted by key, or `<none>`. */
export function formatLabels(labels: Labels): string {
  const text = Object.keys(labels ?? {})
    .sort()
    .map((k) => `${k}=${labels![k]}`)
    .join(',');
  return text || '<none>';
}
