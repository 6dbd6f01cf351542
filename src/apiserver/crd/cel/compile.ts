/**
 * Compiling and running validation expressions: a rule must yield a bool, a
 * messageExpression a string; both see `self` and `oldSelf`. Compilation is cached per
 * source. Evaluation is metered against Kubernetes' per-expression limit and a per-request
 * budget shared by all the rules of one request (meter.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { createEnvironment } from './environment.ts';
import { type ActiveMeter, metered } from './meter.ts';
import { overriddenFunctions, unrenamed } from './overrides.ts';

/** Kubernetes' per-expression limit (PerCallLimit). */
export const perCallCostLimit = 1_000_000;
/** Kubernetes' budget for all the rules of one request (RuntimeCELCostBudget). */
export const perRequestCostBudget = 10_000_000;
/** A backstop to the cost count: no request spends longer than this evaluating rules. */
export const perRequestTimeLimitMs = 2_000;

const env = createEnvironment(['self', 'oldSelf']);

type Program = ReturnType<Environment['parse']>;

/** A node of cel-js's parsed tree. */
export interface CelAst {
  readonly op: string;
  readonly args: unknown;
}

export interface CompiledExpression {
  readonly source: string;
  /** Whether the expression reads `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  readonly program: Program;
  /** The parsed tree, with calls of overridden functions renamed (see overrides.ts). */
  readonly ast: CelAst;
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
  return `ERROR: ${location(source, err.range?.start)}: ${unrenamed(err.summary ?? err.message ?? String(e))}`;
}

export function isAst(x: unknown): x is CelAst {
  return typeof x === 'object' && x !== null && typeof (x as CelAst).op === 'string' && 'args' in x;
}

/** Walks the parsed tree (before type checking, which hangs registry objects on the nodes). */
export function walkAst(node: unknown, visit: (n: CelAst) => void, seen = new Set<unknown>()): void {
  if (Array.isArray(node)) {
    for (const x of node) walkAst(x, visit, seen);
    return;
  }
  if (!isAst(node) || seen.has(node)) return;
  seen.add(node);
  visit(node);
  walkAst(node.args, visit, seen);
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
  walkAst(program.ast, (n) => {
    if (n.op === 'id' && n.args === 'oldSelf') usesOldSelf = true;
    if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(n.args)) {
      const renamed = overriddenFunctions[n.args[0] as string];
      if (renamed) n.args[0] = renamed;
    }
  });
  const checked = program.check();
  if (!checked.valid) return { ok: false, error: `${prefix}: ${describe(source, checked.error)}` };
  const want = kind === 'rule' ? 'bool' : 'string';
  if (checked.type !== want && checked.type !== 'dyn') {
    return { ok: false, error: kind === 'rule' ? 'cel expression must evaluate to a bool' : 'messageExpression must evaluate to a string' };
  }
  return { ok: true, expression: { source, usesOldSelf, program, ast: program.ast as unknown as CelAst } };
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
  let value: unknown;
  let error: unknown;
  try {
    value = metered(meter, () => expr.program(vars));
  } catch (e) {
    error = e;
  }
  budget.remaining -= allowance - Math.max(meter.left, 0) + 1;
  // A tripped meter wins even when the expression's result swallowed the error (`x || true`).
  if (meter.tripped) return { kind: 'exceeded', limit: allowance < perCallCostLimit || performance.now() > budget.deadline ? 'budget' : 'call' };
  if (error !== undefined) {
    const err = error as { summary?: string; message?: string };
    return { kind: 'error', message: unrenamed(err.summary ?? err.message ?? String(error)) };
  }
  return { kind: 'value', value };
}
