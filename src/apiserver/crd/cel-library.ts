/**
 * The CEL environment CRD validation rules (`x-kubernetes-validations`) are compiled and run
 * in: `self` and `oldSelf` as dynamic values, optional types, and the parts of Kubernetes' CEL
 * libraries that @marcbachmann/cel-js lacks and CRDs use: RE2 regular expressions for
 * `matches` (Go's dialect, which CRD authors write, not JavaScript's), `find`/`findAll`,
 * string `charAt`/`replace`/`reverse`, list `isSorted`/`sum`/`min`/`max`/`indexOf`/
 * `lastIndexOf`, `url`/`isURL` and the quantity library.
 *
 * Evaluation is metered, because a rule runs on objects anyone with write access sends: each
 * expression node evaluated costs 1, plus a tenth of the length of any string or list it
 * yields (Kubernetes charges traversals at that rate), and a wall-clock deadline backs the
 * count up. Exceeding a limit stops the expression however deep inside a comprehension it is.
 * cel-js has no cost hook, so the meter sits on its evaluator's `run`, through which every
 * node but the root is evaluated (see `installMeter`); cel-js is pinned to ~8.0 for that.
 */
import { Environment, EvaluationError } from '@marcbachmann/cel-js';
import { parseQuantity, QuantityError } from '../../api/quantity.ts';
import { compileGoRegExp } from './go-regexp.ts';

/** Kubernetes' per-expression limit (PerCallLimit). */
export const perCallCostLimit = 1_000_000;
/** Kubernetes' budget for all the rules of one request (RuntimeCELCostBudget). */
export const perRequestCostBudget = 10_000_000;
/** A backstop to the cost count: no request spends longer than this evaluating rules. */
export const perRequestTimeLimitMs = 2_000;

function fail(message: string): never {
  throw new EvaluationError(message);
}

// ---------------------------------------------------------------------------------------------
// Regular expressions

const regexpCache = new Map<string, RegExp>();

function goRegExp(pattern: string): RegExp {
  let re = regexpCache.get(pattern);
  if (re) return re;
  try {
    re = compileGoRegExp(pattern);
  } catch (e) {
    fail(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
  // Patterns come from rules (a handful per CRD) and sometimes from data: keep the cache bounded.
  if (regexpCache.size >= 1000) regexpCache.clear();
  regexpCache.set(pattern, re);
  return re;
}

function matches(s: string, pattern: string): boolean {
  const re = goRegExp(pattern);
  re.lastIndex = 0;
  return re.test(s);
}

function findAll(s: string, pattern: string, limit: bigint = -1n): string[] {
  const src = goRegExp(pattern);
  const re = new RegExp(src.source, src.flags.includes('g') ? src.flags : `${src.flags}g`);
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of s.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lists

type Comparable = bigint | number | string | boolean | Date;

function compareValues(a: unknown, b: unknown): number {
  const num = (x: unknown) => typeof x === 'bigint' || typeof x === 'number';
  if (num(a) && num(b)) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  return fail(`no such overload: comparison of ${typeName(a)} and ${typeName(b)}`);
}

function typeName(x: unknown): string {
  if (typeof x === 'bigint') return 'int';
  if (typeof x === 'number') return 'double';
  if (typeof x === 'string') return 'string';
  if (typeof x === 'boolean') return 'bool';
  if (Array.isArray(x)) return 'list';
  if (x instanceof Date) return 'timestamp';
  return x === null ? 'null_type' : 'map';
}

function isSorted(list: unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareValues(list[i - 1], list[i]) > 0) return false;
  return true;
}

function sum(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  if (list.every((x) => typeof x === 'bigint')) return (list as bigint[]).reduce((a, b) => a + b, 0n);
  if (list.every((x) => typeof x === 'number')) return (list as number[]).reduce((a, b) => a + b, 0);
  return fail('no such overload: sum of a list of mixed or non-numeric values');
}

function extreme(list: unknown[], sign: 1 | -1, name: string): unknown {
  if (list.length === 0) fail(`${name} called on empty list`);
  let best = list[0] as Comparable;
  for (const x of list) if (compareValues(x, best) * sign > 0) best = x as Comparable;
  return best;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a == b;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

function indexOf(list: unknown[], x: unknown, last: boolean): bigint {
  if (last) {
    for (let i = list.length - 1; i >= 0; i--) if (deepEqual(list[i], x)) return BigInt(i);
  } else {
    for (let i = 0; i < list.length; i++) if (deepEqual(list[i], x)) return BigInt(i);
  }
  return -1n;
}

// ---------------------------------------------------------------------------------------------
// Strings

function charAt(s: string, i: bigint): string {
  const chars = [...s];
  if (i < 0n || i > BigInt(chars.length)) fail(`index out of range: ${i}`);
  return chars[Number(i)] ?? '';
}

function replace(s: string, from: string, to: string, n: bigint = -1n): string {
  if (n === 0n) return s;
  if (n < 0n) return s.split(from).join(to);
  let out = '';
  let rest = s;
  for (let done = 0n; done < n; done++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    if (from === '') {
      out += rest.slice(0, 1);
      rest = rest.slice(1);
    }
  }
  return out + rest;
}

// ---------------------------------------------------------------------------------------------
// URLs (Kubernetes' url library: an absolute URI or an absolute path, as Go's ParseRequestURI reads them)

class KubeURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly escapedPath: string,
    readonly query: string,
  ) {}
}

function parseUrl(s: string): KubeURL | undefined {
  if (s.startsWith('/')) {
    if (s.startsWith('//')) return undefined;
    try {
      const u = new URL(s, 'http://placeholder');
      return new KubeURL('', '', '', '', u.pathname, u.search.slice(1));
    } catch {
      return undefined;
    }
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) return undefined;
  try {
    const u = new URL(s);
    const hostname = u.hostname.startsWith('[') && u.hostname.endsWith(']') ? u.hostname.slice(1, -1) : u.hostname;
    return new KubeURL(u.protocol.slice(0, -1), u.host, hostname, u.port, u.pathname, u.search.slice(1));
  } catch {
    return undefined;
  }
}

function url(s: string): KubeURL {
  return parseUrl(s) ?? fail(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
}

function queryMap(u: KubeURL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(u.query)) (out[k] ??= []).push(v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Quantities (Kubernetes' quantity library), exact: a value is num/den in BigInt.

class KubeQuantity {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}

  static parse(s: string): KubeQuantity {
    if (s.trim() !== s || s === '') fail(`quantity ${JSON.stringify(s)}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    let q;
    try {
      q = parseQuantity(s);
    } catch (e) {
      if (e instanceof QuantityError) fail(e.message);
      throw e;
    }
    const sign = q.negative ? -1n : 1n;
    const num = sign * q.digits * 2n ** BigInt(Math.max(q.exp2, 0)) * 10n ** BigInt(Math.max(q.exp10, 0));
    const den = 2n ** BigInt(Math.max(-q.exp2, 0)) * 10n ** BigInt(Math.max(-q.exp10, 0));
    return new KubeQuantity(num, den);
  }

  compare(o: KubeQuantity): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  add(o: KubeQuantity, sign: bigint): KubeQuantity {
    return new KubeQuantity(this.num * o.den + sign * o.num * this.den, this.den * o.den);
  }

  isInteger(): boolean {
    return this.num % this.den === 0n && this.asBig() >= -(2n ** 63n) && this.asBig() < 2n ** 63n;
  }

  asBig(): bigint {
    return this.num / this.den;
  }
}

function isQuantity(s: string): boolean {
  try {
    KubeQuantity.parse(s);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// The environment

/** Renamed so the RE2 overloads can stand in for cel-js's own `matches`, which cannot be replaced. */
const matchesName = 'kubeMatches';

function createEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true }).registerVariable('self', 'dyn').registerVariable('oldSelf', 'dyn');
  env
    .registerFunction(`string.${matchesName}(string): bool`, (s: string, p: string) => matches(s, p))
    .registerFunction(`${matchesName}(string, string): bool`, (s: string, p: string) => matches(s, p))
    .registerFunction('string.find(string): string', (s: string, p: string) => findAll(s, p, 1n)[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p))
    .registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => findAll(s, p, n))
    .registerFunction('string.charAt(int): string', charAt)
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b))
    .registerFunction('string.replace(string, string, int): string', replace)
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    .registerFunction('list.isSorted(): bool', isSorted)
    .registerFunction('list.sum(): dyn', sum)
    .registerFunction('list.min(): dyn', (l: unknown[]) => extreme(l, -1, 'min'))
    .registerFunction('list.max(): dyn', (l: unknown[]) => extreme(l, 1, 'max'))
    .registerFunction('list.indexOf(dyn): int', (l: unknown[], x: unknown) => indexOf(l, x, false))
    .registerFunction('list.lastIndexOf(dyn): int', (l: unknown[], x: unknown) => indexOf(l, x, true));
  env
    .registerType('kubernetes.URL', KubeURL)
    .registerFunction('url(string): kubernetes.URL', url)
    .registerFunction('isURL(string): bool', (s: string) => parseUrl(s) !== undefined)
    .registerFunction('kubernetes.URL.getScheme(): string', (u: KubeURL) => u.scheme)
    .registerFunction('kubernetes.URL.getHost(): string', (u: KubeURL) => u.host)
    .registerFunction('kubernetes.URL.getHostname(): string', (u: KubeURL) => u.hostname)
    .registerFunction('kubernetes.URL.getPort(): string', (u: KubeURL) => u.port)
    .registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeURL) => u.escapedPath)
    .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', queryMap);
  const Q = 'kubernetes.Quantity';
  env
    .registerType(Q, KubeQuantity)
    .registerFunction(`quantity(string): ${Q}`, (s: string) => KubeQuantity.parse(s))
    .registerFunction('isQuantity(string): bool', isQuantity)
    .registerFunction(`${Q}.isInteger(): bool`, (q: KubeQuantity) => q.isInteger())
    .registerFunction(`${Q}.asInteger(): int`, (q: KubeQuantity) => (q.isInteger() ? q.asBig() : fail('cannot convert value to integer')))
    .registerFunction(`${Q}.asApproximateFloat(): double`, (q: KubeQuantity) => Number(q.num) / Number(q.den))
    .registerFunction(`${Q}.sign(): int`, (q: KubeQuantity) => BigInt(q.compare(new KubeQuantity(0n, 1n))))
    .registerFunction(`${Q}.add(${Q}): ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.add(o, 1n))
    .registerFunction(`${Q}.add(int): ${Q}`, (q: KubeQuantity, n: bigint) => q.add(new KubeQuantity(n, 1n), 1n))
    .registerFunction(`${Q}.sub(${Q}): ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.add(o, -1n))
    .registerFunction(`${Q}.sub(int): ${Q}`, (q: KubeQuantity, n: bigint) => q.add(new KubeQuantity(n, 1n), -1n))
    .registerFunction(`${Q}.isLessThan(${Q}): bool`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) < 0)
    .registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) > 0)
    .registerFunction(`${Q}.compareTo(${Q}): int`, (q: KubeQuantity, o: KubeQuantity) => BigInt(q.compare(o)))
    .registerOperator(`${Q} == ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) === 0);
  return env;
}

// ---------------------------------------------------------------------------------------------
// Metering

interface ActiveMeter {
  /** Cost units this expression may still spend (the smaller of its own limit and what the request has left). */
  left: number;
  steps: number;
  readonly deadline: number;
  tripped: boolean;
}

let active: ActiveMeter | undefined;
// One preallocated error: it may be thrown at every node of a long comprehension while it unwinds.
const tripped = new Error('CEL evaluation cost limit exceeded');

interface CelEvaluator {
  run(ast: { evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown }, ctx: unknown): unknown;
}

function meteredRun(this: CelEvaluator, ast: { evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown }, ctx: unknown): unknown {
  const m = active;
  if (m === undefined) return ast.evaluate(this, ast, ctx);
  if (m.tripped || --m.left < 0 || ((++m.steps & 1023) === 0 && performance.now() > m.deadline)) {
    m.tripped = true;
    throw tripped;
  }
  const r = ast.evaluate(this, ast, ctx);
  if (typeof r === 'string' || Array.isArray(r)) m.left -= r.length / 10;
  return r;
}

/**
 * Puts the meter on the environment's evaluator. cel-js hands its evaluator to the root
 * node's `evaluate`; a probe expression whose root is replaced catches it, and `run`, the
 * method every other node goes through, is replaced on that instance only.
 */
function installMeter(env: Environment): void {
  const probe = env.parse('true');
  let evaluator: CelEvaluator | undefined;
  (probe.ast as unknown as { evaluate: (ev: CelEvaluator) => boolean }).evaluate = (ev) => {
    evaluator = ev;
    return true;
  };
  probe();
  if (!evaluator || typeof evaluator.run !== 'function') throw new Error('cel-js: cannot meter CEL evaluation (the evaluator was not reachable); check the pinned cel-js version');
  (evaluator as { run: typeof meteredRun }).run = meteredRun;
}

const env = createEnvironment();
installMeter(env);

// ---------------------------------------------------------------------------------------------
// Compiling and evaluating

type Program = ReturnType<Environment['parse']>;

export interface CompiledExpression {
  readonly source: string;
  /** Whether the expression reads `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  readonly program: Program;
}

export type CompileResult = { readonly ok: true; readonly expression: CompiledExpression } | { readonly ok: false; readonly error: string };

/** Where an error points, as `<input>:line:column` (1-based). */
function location(source: string, offset: number | undefined): string {
  if (offset === undefined) return '<input>';
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `<input>:${line}:${column}`;
}

function describe(source: string, e: unknown): string {
  const err = e as { summary?: string; message?: string; range?: { start: number } };
  return `ERROR: ${location(source, err.range?.start)}: ${err.summary ?? err.message ?? String(e)}`;
}

interface AstLike {
  op: string;
  args: unknown;
}

function isAst(x: unknown): x is AstLike {
  return typeof x === 'object' && x !== null && typeof (x as AstLike).op === 'string' && 'args' in x;
}

/** Walks the parsed tree (before type checking, which hangs registry objects on the nodes). */
function walk(node: unknown, visit: (n: AstLike) => void, seen = new Set<unknown>()): void {
  if (Array.isArray(node)) {
    for (const x of node) walk(x, visit, seen);
    return;
  }
  if (!isAst(node) || seen.has(node)) return;
  seen.add(node);
  visit(node);
  walk(node.args, visit, seen);
}

const compiled = new Map<string, CompileResult>();

/**
 * Compiles a rule (`kind` rule: must yield a bool) or a messageExpression (must yield a
 * string), once per distinct source: CRDs share the result.
 */
export function compileExpression(source: string, kind: 'rule' | 'message'): CompileResult {
  const key = `${kind}\u0000${source}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const result = compileUncached(source, kind);
  if (compiled.size >= 10_000) compiled.clear();
  compiled.set(key, result);
  return result;
}

function compileUncached(source: string, kind: 'rule' | 'message'): CompileResult {
  const prefix = kind === 'rule' ? 'compilation failed' : 'messageExpression compilation failed';
  let program: Program;
  try {
    program = env.parse(source);
  } catch (e) {
    return { ok: false, error: `${prefix}: ${describe(source, e)}` };
  }
  let usesOldSelf = false;
  walk(program.ast, (n) => {
    if (n.op === 'id' && n.args === 'oldSelf') usesOldSelf = true;
    if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(n.args) && n.args[0] === 'matches') n.args[0] = matchesName;
  });
  const checked = program.check();
  if (!checked.valid) return { ok: false, error: `${prefix}: ${describe(source, checked.error)}` };
  const want = kind === 'rule' ? 'bool' : 'string';
  if (checked.type !== want && checked.type !== 'dyn') {
    return { ok: false, error: kind === 'rule' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  }
  return { ok: true, expression: { source, usesOldSelf, program } };
}

/** What one validation pass (one request) may still spend. */
export interface CelBudget {
  remaining: number;
  readonly deadline: number;
}

export function newBudget(now = performance.now()): CelBudget {
  return { remaining: perRequestCostBudget, deadline: now + perRequestTimeLimitMs };
}

export type EvalResult =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'error'; readonly message: string }
  /** `call`: this expression hit the per-expression limit; `budget`: the request's budget or time is spent. */
  | { readonly kind: 'exceeded'; readonly limit: 'call' | 'budget' };

/** Runs a compiled expression with `vars` bound (`self`, `oldSelf`), charging `budget`. */
export function evaluateExpression(expr: CompiledExpression, vars: Record<string, unknown>, budget: CelBudget): EvalResult {
  if (budget.remaining <= 0 || performance.now() > budget.deadline) return { kind: 'exceeded', limit: 'budget' };
  const allowance = Math.min(perCallCostLimit, budget.remaining);
  const meter: ActiveMeter = { left: allowance, steps: 0, deadline: budget.deadline, tripped: false };
  const outer = active;
  active = meter;
  let value: unknown;
  let error: unknown;
  try {
    value = expr.program(vars);
  } catch (e) {
    error = e;
  } finally {
    active = outer;
  }
  budget.remaining -= allowance - Math.max(meter.left, 0) + 1;
  // A tripped meter wins even when the expression's result swallowed the error (`x || true`).
  if (meter.tripped) return { kind: 'exceeded', limit: allowance < perCallCostLimit || performance.now() > budget.deadline ? 'budget' : 'call' };
  if (error !== undefined) {
    const err = error as { summary?: string; message?: string };
    return { kind: 'error', message: err.summary ?? err.message ?? String(error) };
  }
  return { kind: 'value', value };
}
