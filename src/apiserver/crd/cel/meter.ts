/**
 * Run-time cost metering of CEL evaluation, because a rule runs on objects anyone with write
 * access sends: each expression node evaluated costs 1, plus a tenth of the length of any
 * string or list it yields (Kubernetes charges traversals at that rate), and a wall-clock
 * deadline backs the count up. Exceeding a limit stops the expression however deep inside a
 * comprehension it is. cel-js has no cost hook, so the meter sits on its evaluator's `run`,
 * through which every node but the root is evaluated (see `installMeter`); cel-js is pinned to
 * ~8.0 for that.
 */
import type { Environment } from '@marcbachmann/cel-js';

export interface ActiveMeter {
  /** Cost units this expression may still spend (the smaller of its own limit and what the request has left). */
  left: number;
  steps: number;
  readonly deadline: number;
  tripped: boolean;
}

let active: ActiveMeter | undefined;
// One preallocated error: it may be thrown at every node of a long comprehension while it unwinds.
const tripped = new Error('CEL evaluation cost limit exceeded');

interface Node {
  evaluate(ev: unknown, ast: unknown, ctx: unknown): unknown;
}

interface CelEvaluator {
  run(ast: Node, ctx: unknown): unknown;
}

function meteredRun(this: CelEvaluator, ast: Node, ctx: unknown): unknown {
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
export function installMeter(env: Environment): void {
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

/** Runs `fn` with `meter` charged for every node it evaluates. */
export function metered<T>(meter: ActiveMeter, fn: () => T): T {
  const outer = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = outer;
  }
}
