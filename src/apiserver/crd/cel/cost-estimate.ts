/**
 * The worst-case cost of an expression, estimated before it ever runs, as cel-go's checker
 * estimates it for Kubernetes (with Kubernetes' own estimates for its libraries): every
 * identifier and field selection costs 1, a call 1 plus its arguments, string work a tenth of
 * the string's length, a regular expression match the string's length times a quarter of the
 * pattern's, and a comprehension its range's size times the cost of one step. Sizes come from
 * the declared types of the variables (a list's `maxItems`, a string's `maxLength`, or what a
 * request of the maximum size could hold). Kubernetes refuses, when a CRD is written, a rule
 * whose estimate is too high (crd/cel-cost.ts).
 */
import type { CelAst } from './compile.ts';
import { originalName } from './overrides.ts';

/** A declared type, as Kubernetes derives it from a schema (its DeclType). */
export interface DeclType {
  readonly kind: 'object' | 'map' | 'list' | 'string' | 'bytes' | 'int' | 'uint' | 'double' | 'bool' | 'timestamp' | 'duration' | 'dyn';
  /** The most characters (in bytes) of a string, items of a list, entries of a map; 0 for the rest. */
  readonly maxElements: number;
  /** The fewest bytes a value of this type takes in JSON (for how many fit in a request). */
  readonly minSerializedSize: number;
  /** An object's fields by their CEL names. */
  readonly fields?: ReadonlyMap<string, DeclType>;
  /** A list's items or a map's values. */
  readonly elem?: DeclType;
}

/** Unknown sizes and costs saturate here, as cel-go's do at the largest uint64. */
export const unbounded = 2 ** 64;

const add = (...xs: number[]): number => Math.min(unbounded, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(unbounded, a * b));
const factor = (x: number, f: number): number => Math.min(unbounded, Math.ceil(x * f));

/** Kubernetes' and cel-go's cost factors. */
const stringTraversal = 0.1;
const regexLength = 0.25;
const listCreate = 10;
const mapCreate = 30;

type Kind = DeclType['kind'] | 'optional' | 'unknown' | 'opaque';

/** The estimate of one node: its worst-case cost and what is known of its value. */
interface Est {
  readonly cost: number;
  readonly kind: Kind;
  /** Largest size of the value (characters, items, entries); unbounded when unknown. */
  readonly size: number;
  /** Smallest size, where it is known (literals). */
  readonly minSize?: number;
  /** The declared type, when the value is reachable from a variable. */
  readonly type?: DeclType;
  /** What is known of a list's items or a map's values, for comprehension variables. */
  readonly elemSize?: number;
  readonly elemType?: DeclType;
  readonly elemKind?: Kind;
  /** A literal's value (split limits). */
  readonly literal?: unknown;
}

/** Kinds cel-go sizes at 1 when no declared type says otherwise. */
const scalar = new Set<Kind>(['int', 'uint', 'double', 'bool', 'timestamp', 'duration']);

/** A value reached through a declared type: sized by the type (Kubernetes sizes even scalars so, at 0). */
function fromType(cost: number, t: DeclType | undefined): Est {
  if (!t) return { cost, kind: 'unknown', size: unbounded };
  return { cost, kind: t.kind, size: t.maxElements, type: t, elemType: t.elem, elemSize: t.elem?.maxElements, elemKind: t.elem?.kind };
}

/** A computed value of a kind, with a size when one is known. */
function computed(cost: number, kind: Kind, size?: number, extra: Partial<Est> = {}): Est {
  return { cost, kind, size: size ?? (scalar.has(kind) ? 1 : unbounded), ...extra };
}

function literalEst(v: unknown): Est {
  if (typeof v === 'string') {
    const n = [...v].length;
    return { cost: 0, kind: 'string', size: n, minSize: n, literal: v };
  }
  if (v instanceof Uint8Array) return { cost: 0, kind: 'bytes', size: v.length, minSize: v.length };
  if (typeof v === 'bigint') return { cost: 0, kind: 'int', size: 1, literal: v };
  if (typeof v === 'number') return { cost: 0, kind: 'double', size: 1 };
  if (typeof v === 'boolean') return { cost: 0, kind: 'bool', size: 1 };
  return { cost: 0, kind: v === null ? 'opaque' : 'uint', size: v === null ? unbounded : 1 };
}

/** The libraries whose functions are called as `<namespace>.<name>(...)`, not on a value. */
const namespaces = new Set(['optional', 'format', 'sets', 'strings', 'ip', 'cel']);

/** What the functions without a cost rule of their own yield. */
const resultKinds: Readonly<Record<string, Kind>> = Object.fromEntries([
  ...['size', 'family', 'prefixLength', 'compareTo', 'sign', 'asInteger', 'major', 'minor', 'patch', 'int', 'getFullYear', 'getMonth', 'getDate',
    'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'].map((n) => [n, 'int']),
  ['asApproximateFloat', 'double'], ['double', 'double'], ['uint', 'uint'], ['timestamp', 'timestamp'], ['duration', 'duration'],
  ...['isIP', 'isCIDR', 'isURL', 'isQuantity', 'isSemver', 'hasValue', 'isInteger', 'isLessThan', 'isGreaterThan', 'isUnspecified', 'isLoopback',
    'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast', 'ip.isCanonical', 'bool'].map((n) => [n, 'bool']),
  ...['string', 'charAt', 'getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'].map((n) => [n, 'string']),
  ...['validate', 'format.named', 'optional.of', 'optional.ofNonZeroValue', 'optional.none', 'or'].map((n) => [n, 'optional']),
  ['getQuery', 'map'],
]);

type Scope = ReadonlyMap<string, Est>;

class Estimator {
  /**
   * The size of an item or key of a list or map that no declared type describes (the result
   * of `split()`, say): Kubernetes looks such an element up by a path that names no field,
   * which its size estimator answers with the size of the rule's own value.
   */
  private readonly pathlessSize: number;

  constructor(
    private readonly vars: Readonly<Record<string, DeclType | undefined>>,
    root: string | undefined,
  ) {
    const t = root === undefined ? undefined : vars[root];
    this.pathlessSize = t ? t.maxElements : unbounded;
  }

  est(node: unknown, scope: Scope): Est {
    const n = node as CelAst;
    const args = n.args as unknown[];
    switch (n.op) {
      case 'value':
        return literalEst(n.args);
      case 'id':
        return this.ident(n.args as string, scope);
      case '.': {
        const operand = this.est(args[0], scope);
        return this.field(operand, args[1] as string, add(operand.cost, operand.kind === 'dyn' ? 0 : 1));
      }
      case '.?': {
        const operand = this.est(args[0], scope);
        return { ...this.field(operand, args[1] as string, add(operand.cost, 1)), kind: 'optional' };
      }
      case '[]':
      case '[?]': {
        const target = this.est(args[0], scope);
        const index = this.est(args[1], scope);
        const cost = add(1, target.cost, index.cost);
        const r = target.elemType ? fromType(cost, target.elemType) : computed(cost, target.elemKind ?? 'unknown', target.elemSize ?? this.pathlessSize);
        return n.op === '[?]' ? { ...r, kind: 'optional' } : r;
      }
      case 'list': {
        const items = args.map((a) => this.est(a, scope));
        const elemSize = items.length === 0 ? 0 : Math.max(...items.map((i) => i.size));
        return { cost: add(listCreate, ...items.map((i) => i.cost)), kind: 'list', size: items.length, minSize: items.length, elemSize, elemKind: items[0]?.kind, elemType: items[0]?.type };
      }
      case 'map': {
        const entries = args as unknown[][];
        const parts = entries.map(([k, v]) => [this.est(k, scope), this.est(v, scope)] as const);
        const values = parts.map(([, v]) => v);
        return { cost: add(mapCreate, ...parts.flatMap(([k, v]) => [k.cost, v.cost])), kind: 'map', size: entries.length, elemSize: values.length ? Math.max(...values.map((v) => v.size)) : 0, elemKind: values[0]?.kind };
      }
      case '&&':
      case '||': {
        const [l, r] = args.map((a) => this.est(a, scope)) as [Est, Est];
        return computed(add(l.cost, r.cost), 'bool');
      }
      case '?:': {
        const [c, t, f] = args.map((a) => this.est(a, scope)) as [Est, Est, Est];
        return { ...(t.size >= f.size ? t : f), cost: add(c.cost, Math.max(t.cost, f.cost)), size: Math.max(t.size, f.size) };
      }
      case '!_':
      case '-_': {
        const a = this.est(n.args, scope);
        return computed(add(1, a.cost), n.op === '!_' ? 'bool' : a.kind);
      }
      case 'call':
        return this.call(originalName(args[0] as string), undefined, args[1] as unknown[], scope);
      case 'rcall': {
        const [renamed, receiver, callArgs] = args as [string, CelAst, unknown[]];
        const name = originalName(renamed);
        const ns = receiver.op === 'id' ? (receiver.args as string) : undefined;
        if (ns !== undefined && namespaces.has(ns) && !(ns in this.vars) && !scope.has(ns)) return this.call(`${ns}.${name}`, undefined, callArgs, scope);
        return this.call(name, receiver, callArgs, scope);
      }
      default:
        return this.operator(n.op, args, scope);
    }
  }

  private ident(name: string, scope: Scope): Est {
    const local = scope.get(name);
    if (local) return { ...local, cost: 1 };
    return fromType(1, this.vars[name]);
  }

  private field(operand: Est, name: string, cost: number): Est {
    const t = operand.type;
    if (t?.kind === 'object') return fromType(cost, t.fields?.get(name));
    if (t?.kind === 'map') return fromType(cost, t.elem);
    return computed(cost, 'unknown');
  }

  /** Binary operators: comparisons and equality cost by the shorter operand, `+` of strings by the result, `in` by the list. */
  private operator(op: string, rawArgs: unknown[], scope: Scope): Est {
    const [l, r] = rawArgs.map((a) => this.est(a, scope)) as [Est, Est];
    const argCost = add(l.cost, r.cost);
    switch (op) {
      case '==':
      case '!=':
        return computed(add(factor(Math.min(l.size, r.size), stringTraversal), argCost), 'bool');
      case '<':
      case '<=':
      case '>':
      case '>=':
        if ((l.kind === 'string' || l.kind === 'bytes') && l.kind === r.kind) return computed(add(factor(Math.min(l.size, r.size), stringTraversal), argCost), 'bool');
        return computed(add(1, argCost), 'bool');
      case '+':
        if (l.kind === 'string' || l.kind === 'bytes') {
          const size = add(l.size, r.size);
          return computed(add(factor(size, stringTraversal), argCost), l.kind, size);
        }
        if (l.kind === 'list') {
          return { cost: add(1, argCost), kind: 'list', size: add(l.size, r.size), elemSize: Math.max(l.elemSize ?? unbounded, r.elemSize ?? unbounded), elemKind: l.elemKind ?? r.elemKind, elemType: l.elemType ?? r.elemType };
        }
        return computed(add(1, argCost), l.kind);
      case 'in':
        return computed(add(r.kind === 'list' ? r.size : 1, argCost), 'bool');
      default:
        return computed(add(1, argCost), l.kind);
    }
  }

  private call(name: string, receiver: CelAst | undefined, rawArgs: unknown[], scope: Scope): Est {
    const macro = this.macro(name, receiver, rawArgs, scope);
    if (macro) return macro;
    const target = receiver ? this.est(receiver, scope) : undefined;
    const args = rawArgs.map((a) => this.est(a, scope));
    const fn = functionCost(name, target, args);
    return { ...fn, cost: add(fn.cost, target?.cost ?? 0, ...args.map((a) => a.cost)) };
  }

  /** has(), dyn(), the comprehension macros and cel.bind, whose arguments are expressions, not values. */
  private macro(name: string, receiver: CelAst | undefined, rawArgs: unknown[], scope: Scope): Est | undefined {
    if (name === 'has' && !receiver) {
      // Kubernetes charges nothing for the presence test itself, only for reaching the object.
      const sel = rawArgs[0] as CelAst;
      const operand = Array.isArray(sel.args) ? this.est(sel.args[0], scope) : computed(0, 'unknown');
      return computed(operand.cost, 'bool');
    }
    if (name === 'dyn' && !receiver) {
      const a = this.est(rawArgs[0], scope);
      return { ...a, cost: add(1, a.cost) };
    }
    if (name === 'cel.bind') {
      const [v, init, body] = rawArgs as [CelAst, unknown, unknown];
      const i = this.est(init, scope);
      const b = this.est(body, new Map(scope).set(v.args as string, i));
      return { ...b, cost: add(listCreate, i.cost, b.cost) };
    }
    if (!receiver || !['all', 'exists', 'exists_one', 'map', 'filter'].includes(name) || (rawArgs[0] as CelAst)?.op !== 'id') return undefined;
    const range = this.est(receiver, scope);
    // Over a list the variable is an item; over a map, a key (which Kubernetes sizes at 0 for a declared map).
    let elem: Est;
    if (range.kind === 'map') elem = computed(1, 'string', range.type ? 0 : this.pathlessSize);
    else if (range.elemType) elem = fromType(1, range.elemType);
    else elem = computed(1, range.elemKind ?? 'unknown', range.elemSize ?? this.pathlessSize);
    const inner = new Map(scope).set((rawArgs[0] as CelAst).args as string, elem);
    const [first, second] = rawArgs.slice(1).map((a) => this.est(a, inner)) as [Est, Est | undefined];
    // Each macro's own steps on its accumulator, as cel-go expands it.
    let step: number;
    let fixed: number;
    switch (name) {
      case 'all': // @not_strictly_false(__result__), __result__ && p
        step = add(2, 1, first.cost);
        fixed = 1;
        break;
      case 'exists': // @not_strictly_false(!__result__), __result__ || p
        step = add(3, 1, first.cost);
        fixed = 1;
        break;
      case 'exists_one': // p ? __result__ + 1 : __result__, then __result__ == 1
        step = add(first.cost, 2);
        fixed = 2;
        break;
      case 'map': { // [p ?] __result__ + [f]
        const append = add(1, 1, listCreate, (second ?? first).cost);
        step = second ? add(first.cost, append) : append;
        fixed = add(listCreate, 1);
        break;
      }
      default: // filter: p ? __result__ + [x] : __result__
        step = add(first.cost, 1, 1, listCreate, 1);
        fixed = add(listCreate, 1);
    }
    const cost = add(range.cost, fixed, mul(range.size, step));
    if (name === 'map') {
      const transform = second ?? first;
      return { cost, kind: 'list', size: range.size, elemSize: transform.size, elemKind: transform.kind, elemType: transform.type };
    }
    if (name === 'filter') return { cost, kind: 'list', size: range.size, elemSize: elem.size, elemKind: elem.kind, elemType: elem.type };
    return computed(cost, 'bool');
  }
}

/** The cost of a function itself (its arguments are the caller's) and what it yields. */
function functionCost(name: string, target: Est | undefined, args: Est[]): Est {
  const one = (kind: Kind = resultKinds[name] ?? 'unknown', size?: number): Est => computed(1, kind, size);
  const sz = (e: Est | undefined): number => e?.size ?? unbounded;
  const arg0 = args[0];
  switch (name) {
    // Kubernetes' list library: one traversal, strings compared by length.
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf': {
      const resultKind: Kind = name === 'isSorted' ? 'bool' : name.endsWith('ndexOf') ? 'int' : (target?.elemKind ?? 'unknown');
      if (target?.kind === 'list') {
        const elem = target.elemKind === 'string' || target.elemKind === 'bytes' ? add(1, factor(target.elemSize ?? unbounded, stringTraversal)) : 1;
        const element = ['sum', 'max', 'min'].includes(name) ? { type: target.elemType } : {};
        return computed(mul(target.size, elem), resultKind, resultKind === target.elemKind ? target.elemSize : undefined, element);
      }
      return target ? computed(factor(target.size, stringTraversal), resultKind) : one(resultKind);
    }
    case 'url':
      return computed(factor(sz(arg0), stringTraversal), 'opaque');
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return target ? computed(factor(target.size, stringTraversal), 'string', target.size) : one('string');
    case 'replace': {
      if (!target || args.length < 2) return one('string');
      const size = target.size;
      const [from, to] = args as [Est, Est];
      const fromMin = from.minSize ?? 0;
      let resultSize: number;
      if (fromMin === 0) resultSize = add(mul(add(size, 1), to.size), size);
      else if (to.size <= fromMin) resultSize = size;
      else resultSize = mul(Math.ceil(size / fromMin), to.size);
      return computed(factor(size, 2 * stringTraversal), 'string', resultSize);
    }
    case 'split': {
      if (!target) return one('list');
      const limit = args[1]?.literal;
      return computed(factor(target.size, 2 * stringTraversal), 'list', typeof limit === 'bigint' && limit >= 0n ? Number(limit) : target.size, { elemKind: 'string' });
    }
    case 'join': {
      if (!target) return one('string');
      let size = mul(target.size, target.elemSize ?? unbounded);
      if (arg0) size = add(size, mul(arg0.size, Math.max(0, target.size - 1)));
      return computed(factor(size, stringTraversal), 'string', size);
    }
    case 'find':
    case 'findAll': {
      if (!target || !arg0) return one();
      const strCost = factor(add(target.size, 1), stringTraversal);
      const regexCost = factor(arg0.size, regexLength);
      return computed(mul(strCost, regexCost), name === 'find' ? 'string' : 'list', target.size, name === 'findAll' ? { elemKind: 'string' } : {});
    }
    case 'matches': {
      const subject = target ?? arg0;
      const pattern = target ? arg0 : args[1];
      return computed(mul(factor(add(sz(subject), 1), stringTraversal), factor(sz(pattern), regexLength)), 'bool');
    }
    case 'contains':
      if (target?.kind === 'string') return computed(mul(factor(target.size, stringTraversal), factor(sz(arg0), stringTraversal)), 'bool');
      return one('bool');
    case 'startsWith':
    case 'endsWith':
      return computed(factor(sz(arg0), stringTraversal), 'bool');
    case 'containsIP':
      // Two addresses of up to 16 bytes compared, plus parsing a string argument.
      return computed(add(factor(32, stringTraversal), arg0?.kind === 'string' ? factor(arg0.size, stringTraversal) : 0), 'bool');
    case 'containsCIDR':
      return computed(add(factor(32, stringTraversal), factor(16, stringTraversal), 1, arg0?.kind === 'string' ? factor(arg0.size, stringTraversal) : 0), 'bool');
    case 'format':
      return target ? computed(factor(target.size, stringTraversal), 'string') : one('string');
    case 'strings.quote':
      return computed(factor(sz(arg0), stringTraversal), 'string', add(mul(sz(arg0), 2), 2));
    case 'sets.contains':
    case 'sets.equivalent':
    case 'sets.intersects':
      return computed(mul(sz(arg0), sz(args[1])), 'bool');
    case 'bytes':
      return arg0?.kind === 'string' ? computed(factor(arg0.size, stringTraversal), 'bytes', mul(arg0.size, 4)) : one('bytes');
    case 'string':
      return arg0?.kind === 'bytes' ? computed(factor(arg0.size, stringTraversal), 'string', arg0.size) : one('string');
    case 'value':
    case 'orValue':
      return target?.type ? fromType(1, target.type) : one();
    default:
      return one();
  }
}

/**
 * The worst-case cost of a compiled expression (cel-go's CostEstimate.Max), given its
 * variables' declared types; `root` names the variable Kubernetes' size estimator starts from.
 */
export function estimateCost(ast: CelAst, vars: Readonly<Record<string, DeclType | undefined>>, root?: string): number {
  return new Estimator(vars, root).est(ast, new Map()).cost;
}
