/**
 * Kubernetes' list library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`) and
 * CEL's sets extension (`sets.contains`, `sets.equivalent`, `sets.intersects`), both enabled
 * for CRD rules in Kubernetes 1.32. cel-go's list extension (`slice`, `flatten`, `distinct`,
 * `sort`, `range`...) is not: Kubernetes does not enable it, so rules calling those do not
 * compile, as with kube-apiserver.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { registeredName } from './overrides.ts';
import { celCompare, celEquals, celTypeName, fail, int } from './values.ts';

export function isSorted(list: unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (celCompare(list[i - 1], list[i]) > 0) return false;
  return true;
}

export function sum(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  const first = list[0];
  if (typeof first === 'bigint') return (list as bigint[]).reduce((a, b) => (typeof b === 'bigint' ? a + b : fail(`no such overload: int + ${celTypeName(b)}`)), 0n);
  if (typeof first === 'number') return (list as number[]).reduce((a, b) => (typeof b === 'number' ? a + b : fail(`no such overload: double + ${celTypeName(b)}`)), 0);
  if (first instanceof UnsignedInt) return new UnsignedInt(list.reduce<bigint>((a, b) => a + (b instanceof UnsignedInt ? b.value : fail(`no such overload: uint + ${celTypeName(b)}`)), 0n));
  if (first instanceof Duration) {
    const nanos = list.reduce<bigint>((a, b) => a + (b instanceof Duration ? b.seconds * 1_000_000_000n + BigInt(b.nanos) : fail(`no such overload: duration + ${celTypeName(b)}`)), 0n);
    return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
  }
  return fail(`no such overload: sum of list(${celTypeName(first)})`);
}

function extreme(list: unknown[], prefer: 1 | -1, name: string): unknown {
  if (list.length === 0) fail(`${name} called on empty list`);
  let best = list[0];
  for (const x of list) if (celCompare(best, x) === prefer) best = x;
  return best;
}

export const min = (list: unknown[]): unknown => extreme(list, 1, 'min');
export const max = (list: unknown[]): unknown => extreme(list, -1, 'max');

export function indexOf(list: unknown[], x: unknown): bigint {
  for (let i = 0; i < list.length; i++) if (celEquals(list[i], x)) return int(i);
  return -1n;
}

export function lastIndexOf(list: unknown[], x: unknown): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], x)) return int(i);
  return -1n;
}

const contains = (list: unknown[], sub: unknown[]): boolean => sub.every((x) => list.some((y) => celEquals(x, y)));

class SetsLibrary {}

export function registerLists(env: Environment): void {
  env
    .registerFunction('list<A>.isSorted(): bool', isSorted)
    .registerFunction('list<A>.sum(): A', sum)
    .registerFunction('list<A>.min(): A', min)
    .registerFunction('list<A>.max(): A', max)
    .registerFunction(`list<A>.${registeredName('indexOf')}(A): int`, indexOf)
    .registerFunction(`list<A>.${registeredName('lastIndexOf')}(A): int`, lastIndexOf)
    .registerType('SetsLibrary', SetsLibrary)
    .registerConstant('sets', 'SetsLibrary', new SetsLibrary())
    .registerFunction('SetsLibrary.contains(list<A>, list<A>): bool', (_: SetsLibrary, a: unknown[], b: unknown[]) => contains(a, b))
    .registerFunction('SetsLibrary.equivalent(list<A>, list<A>): bool', (_: SetsLibrary, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a))
    .registerFunction('SetsLibrary.intersects(list<A>, list<A>): bool', (_: SetsLibrary, a: unknown[], b: unknown[]) => a.some((x) => b.some((y) => celEquals(x, y))));
  // Ordering of bytes, which CEL defines and cel-js leaves out.
  const cmp = (a: Uint8Array, b: Uint8Array) => celCompare(a, b);
  env
    .registerOperator('bytes < bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) < 0)
    .registerOperator('bytes <= bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) <= 0)
    .registerOperator('bytes > bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) > 0)
    .registerOperator('bytes >= bytes', (a: Uint8Array, b: Uint8Array) => cmp(a, b) >= 0);
}
