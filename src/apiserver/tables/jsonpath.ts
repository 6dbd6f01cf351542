/**
 * Kubernetes JSONPath, the dialect of kubectl's `-o jsonpath` and of CRD
 * `additionalPrinterColumns`/`selectableFields`: `.spec.replicas`, `.metadata.labels.app`,
 * `['app.kubernetes.io/name']` (or `.app\.kubernetes\.io/name`), `[0]`, `[-1]`, `[1:3]`,
 * `[*]`, `.*`, `..name`, unions `[0,2]` and filters `[?(@.type=="Ready")]`. One expression,
 * optionally wrapped in `{}`. Evaluation treats missing keys as no result (kubectl's
 * `AllowMissingKeys`), and any evaluation error (an index out of range, comparing a string
 * with a number) yields no result, which is what the CRD table convertor shows as an empty cell.
 *
 * One deliberate difference: inside `['...']` the whole quoted text is one key, so
 * `['a.b']` reads the key `a.b` (Kubernetes would split it at the dot).
 */
import { goPrintValue } from './go-format.ts';

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

type FilterOperator = '==' | '!=' | '<' | '>' | '<=' | '>=';

type Operand = { readonly kind: 'path'; readonly nodes: readonly PathNode[] } | { readonly kind: 'literal'; readonly value: string | number | boolean };

type PathNode =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'recursive' }
  | { readonly kind: 'slice'; readonly start?: number; readonly end?: number; readonly step?: number; readonly index: boolean }
  | { readonly kind: 'filter'; readonly left: Operand; readonly operator?: FilterOperator; readonly right?: Operand }
  | { readonly kind: 'union'; readonly branches: readonly (readonly PathNode[])[] };

// ---------------------------------------------------------------------------------------------
// Parsing

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isTerminator = (c: string | undefined): boolean => c === undefined || isSpace(c) || '.,[]$@{}'.includes(c);
const isAlphaNumeric = (c: string | undefined): boolean => c !== undefined && /^[\p{L}\p{N}_]$/u.test(c);

/** Go's `%#U`: `U+0025 '%'`. */
function describeChar(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`;
}

const filterOperators: readonly FilterOperator[] = ['==', '!=', '<=', '>=', '<', '>'];

class PathParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parse(): PathNode[] {
    const nodes: PathNode[] = [];
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (isSpace(c) || c === '$' || c === '@') {
        this.pos++;
      } else if (this.text.startsWith('..', this.pos)) {
        if (nodes[nodes.length - 1]?.kind === 'recursive') throw new JsonPathError('invalid multiple recursive descent');
        this.pos += 2;
        nodes.push({ kind: 'recursive' });
        if (isAlphaNumeric(this.text[this.pos])) nodes.push(this.field());
      } else if (c === '.') {
        this.pos++;
        nodes.push(this.field());
      } else if (c === '[') {
        nodes.push(...this.bracket());
      } else if (c === '"' || c === "'") {
        throw new JsonPathError(`unexpected quoted string at position ${this.pos}`);
      } else if (isAlphaNumeric(c) || c === '+' || c === '-') {
        let word = '';
        while (!isTerminator(this.text[this.pos])) word += this.text[this.pos++];
        throw new JsonPathError(`unrecognized identifier ${word}`);
      } else {
        throw new JsonPathError(`unrecognized character in action: ${describeChar(c)}`);
      }
    }
    return nodes;
  }

  /** A field name up to the next terminator; `\x` is a literal `x` (so `\.` keeps a dot in the key). */
  private field(): PathNode {
    let name = '';
    let raw = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === '\\' && this.pos + 1 < this.text.length) {
        name += this.text[this.pos + 1];
        raw += c + this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (isTerminator(c)) break;
      name += c;
      raw += c;
      this.pos++;
    }
    return raw === '*' ? { kind: 'wildcard' } : { kind: 'field', name };
  }

  private bracket(): PathNode[] {
    if (this.text.startsWith('[?(', this.pos)) return [this.filter()];
    const start = this.pos + 1;
    let quote: string | undefined;
    let i = start;
    for (; i < this.text.length; i++) {
      const c = this.text[i]!;
      if (c === '\n') break;
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = undefined;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === ']') break;
    }
    if (i >= this.text.length || this.text[i] !== ']') throw new JsonPathError('unterminated array');
    this.pos = i + 1;
    return bracketContent(this.text.slice(start, i));
  }

  private filter(): PathNode {
    this.pos += 3;
    const start = this.pos;
    let quote: string | undefined;
    for (; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos]!;
      if (c === '\n') break;
      if (quote) {
        if (c === '\\') this.pos++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ')') break;
    }
    if (this.pos >= this.text.length || this.text[this.pos] !== ')') throw new JsonPathError('unterminated filter');
    const expr = this.text.slice(start, this.pos);
    this.pos++;
    if (this.text[this.pos] !== ']') throw new JsonPathError('unclosed array expect ]');
    this.pos++;
    return parseFilter(expr);
  }
}

function parseFilter(expr: string): PathNode {
  const m = /^([^!<>=]+)([!<>=~]+)(.+?)$/s.exec(expr);
  if (!m) return { kind: 'filter', left: parseOperand(expr) };
  const operator = filterOperators.find((op) => op === m[2]);
  if (!operator) throw new JsonPathError(`unrecognized filter operator ${m[2]}`);
  return { kind: 'filter', left: parseOperand(m[1]!), operator, right: parseOperand(m[3]!) };
}

function unquote(text: string): string {
  const q = text[0]!;
  const body = text.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      if (c === q) throw new JsonPathError(`unquote string ${text} error invalid syntax`);
      out += c;
      continue;
    }
    const n = body[++i];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '.': '.', '/': '/' };
    if (n === undefined || !Object.prototype.hasOwnProperty.call(simple, n)) throw new JsonPathError(`unquote string ${text} error invalid syntax`);
    out += simple[n];
  }
  return out;
}

/** The two sides of a filter: a path relative to the element, or a string, number or boolean. */
function parseOperand(text: string): Operand {
  const t = text.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) return { kind: 'literal', value: unquote(t) };
  if (t === 'true' || t === 'false') return { kind: 'literal', value: t === 'true' };
  if (/^[+-]?[\d.]+$/.test(t)) {
    const n = Number(t);
    if (Number.isNaN(n)) throw new JsonPathError(`cannot parse number ${t}`);
    return { kind: 'literal', value: n };
  }
  return { kind: 'path', nodes: new PathParser(t).parse() };
}

const slicePattern = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;

function bracketContent(inner: string): PathNode[] {
  const text = inner.trim() === '*' ? ':' : inner;
  const parts = splitOutsideQuotes(text);
  if (parts.length > 1) return [{ kind: 'union', branches: parts.map((p) => bracketContent(p.trim())) }];
  const quoted = /^(['"])(.*)\1$/s.exec(text.trim());
  if (quoted) return [{ kind: 'field', name: unquote(text.trim()) }];
  const m = slicePattern.exec(text);
  if (!m) throw new JsonPathError(`invalid array index ${text}`);
  const num = (s: string | undefined): number | undefined => (s === undefined || s === '' || s === ':' ? undefined : Number(s.replace(/^:/, '')));
  if (m[1] === '' && m[2] === undefined) throw new JsonPathError(`invalid array index ${text}`);
  return [{ kind: 'slice', start: num(m[1]), end: num(m[2]), step: num(m[3]), index: m[2] === undefined }];
}

function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ',') {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Parses a path (with or without the surrounding `{}`). Throws JsonPathError when it is malformed. */
function parsePath(path: string): PathNode[] {
  let text = path.trim();
  if (text.startsWith('{')) {
    if (!text.endsWith('}')) throw new JsonPathError('unclosed action');
    text = text.slice(1, -1);
  }
  return new PathParser(text).parse();
}

// ---------------------------------------------------------------------------------------------
// Evaluation

class EvalError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObject(v)) return Object.values(v);
  return [];
}

function sliceOf(list: unknown[], node: Extract<PathNode, { kind: 'slice' }>): unknown[] {
  const len = list.length;
  let start = node.start ?? 0;
  if (start < 0) start += len;
  let end: number;
  if (node.index) end = start + 1;
  else {
    end = node.end ?? len;
    if (end < 0) end += len;
  }
  if (end === start) return [];
  if (start >= len || start < 0) throw new EvalError(`array index out of bounds: index ${start}, length ${len}`);
  if (end > len || end < 0) throw new EvalError(`array index out of bounds: index ${end - 1}, length ${len}`);
  if (start > end) throw new EvalError(`starting index ${start} is greater than ending index ${end}`);
  const step = node.step ?? 1;
  if (step <= 0) throw new EvalError('step must be > 0');
  const out: unknown[] = [];
  for (let i = start; i < end; i += step) out.push(list[i]);
  return out;
}

type Kind = 'number' | 'string' | 'boolean';

function kindOf(v: unknown): Kind {
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return typeof v as Kind;
  throw new EvalError('invalid type for comparison');
}

function compare(left: unknown, operator: FilterOperator, right: unknown): boolean {
  const lk = kindOf(left);
  if (lk !== kindOf(right)) throw new EvalError('incompatible types for comparison');
  if (operator === '==') return left === right;
  if (operator === '!=') return left !== right;
  if (lk === 'boolean') throw new EvalError('invalid type for comparison');
  const l = left as number | string;
  const r = right as number | string;
  switch (operator) {
    case '<':
      return l < r;
    case '>':
      return l > r;
    case '<=':
      return l <= r;
    case '>=':
      return l >= r;
  }
}

function operandValues(element: unknown, operand: Operand): unknown[] {
  return operand.kind === 'literal' ? [operand.value] : evaluateNodes([element], operand.nodes);
}

function evaluateNode(input: unknown[], node: PathNode): unknown[] {
  const out: unknown[] = [];
  switch (node.kind) {
    case 'field':
      for (const v of input) if (isObject(v) && Object.prototype.hasOwnProperty.call(v, node.name)) out.push(v[node.name]);
      return out;
    case 'wildcard':
      for (const v of input) out.push(...children(v));
      return out;
    case 'recursive': {
      const visit = (v: unknown): void => {
        const kids = children(v);
        if (kids.length === 0) return;
        out.push(v);
        kids.forEach(visit);
      };
      input.forEach(visit);
      return out;
    }
    case 'slice':
      for (const v of input) {
        if (v === null || v === undefined) continue;
        if (!Array.isArray(v)) throw new EvalError(`${typeof v} is not array or slice`);
        out.push(...sliceOf(v, node));
      }
      return out;
    case 'union':
      for (const branch of node.branches) out.push(...evaluateNodes(input, branch));
      return out;
    case 'filter':
      for (const v of input) {
        if (!Array.isArray(v)) throw new EvalError(`${JSON.stringify(v)} is not array or slice and cannot be filtered`);
        for (const element of v) {
          if (!node.operator) {
            let found: unknown[] = [];
            try {
              found = operandValues(element, node.left);
            } catch {
              // As in Kubernetes, an existence test ignores errors on the element.
            }
            if (found.length > 0) out.push(element);
            continue;
          }
          const lefts = operandValues(element, node.left);
          if (lefts.length === 0) continue;
          if (lefts.length > 1) throw new EvalError('can only compare one element at a time');
          const rights = operandValues(element, node.right!);
          if (rights.length === 0) continue;
          if (rights.length > 1) throw new EvalError('can only compare one element at a time');
          if (compare(lefts[0], node.operator, rights[0])) out.push(element);
        }
      }
      return out;
  }
}

function evaluateNodes(input: unknown[], nodes: readonly PathNode[]): unknown[] {
  let current = input;
  for (const node of nodes) current = evaluateNode(current, node);
  return current;
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Parses `path` once and returns an evaluator. The evaluator returns every value the path
 * selects (a JSON `null` included), `[]` when nothing matches or evaluation fails.
 * Throws JsonPathError when the path itself is malformed.
 */
export function compileJsonPath(path: string): (obj: unknown) => unknown[] {
  const nodes = parsePath(path);
  return (obj) => {
    try {
      return evaluateNodes([obj], nodes);
    } catch (err) {
      if (err instanceof EvalError) return [];
      throw err;
    }
  };
}

/** Every value `path` selects in `obj`; see `compileJsonPath`. */
export function evaluateJsonPath(obj: unknown, path: string): unknown[] {
  return compileJsonPath(path)(obj);
}

/**
 * Checks a CRD printer-column or selectable-field path: non-empty, starting with `.` (a
 * "simple" path, as apiextensions requires), and parseable. Returns the problem, or undefined.
 */
export function validateJsonPath(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path[0] !== '.') return 'must be a simple json path starting with .';
  try {
    parsePath(path);
  } catch (err) {
    if (err instanceof JsonPathError) return `invalid JSONPath: ${err.message}`;
    throw err;
  }
  return undefined;
}

/** One result as kubectl's JSONPath output prints it: strings raw, maps and lists as JSON. */
export function formatJsonPathValue(value: unknown): string {
  return goPrintValue(value);
}

/** Several results as `{...}` output prints them: separated by single spaces. */
export function formatJsonPathResults(values: readonly unknown[]): string {
  return values.map(goPrintValue).join(' ');
}
