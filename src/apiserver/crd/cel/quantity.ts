/**
 * Kubernetes' quantity library: `quantity`, `isQuantity`, and on a quantity `sign`,
 * `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`, `isLessThan`,
 * `isGreaterThan`, `compareTo` and `==`. Values are exact (num/den in BigInt), so `1` and
 * `1000m` are equal and sums do not drift.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { parseQuantity, QuantityError } from '../../../api/quantity.ts';
import { type CelObject, fail } from './values.ts';

const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export class KubeQuantity implements CelObject {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}

  static parse(s: string): KubeQuantity {
    if (s.trim() !== s || s === '') fail(formatWrong);
    let q;
    try {
      q = parseQuantity(s);
    } catch (e) {
      if (e instanceof QuantityError) fail(e.message.replace(/^quantity "(?:[^"\\]|\\.)*": /, ''));
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
    const v = this.num / this.den;
    return this.num % this.den === 0n && v >= -(2n ** 63n) && v < 2n ** 63n;
  }

  asInteger(): bigint {
    return this.isInteger() ? this.num / this.den : fail('cannot convert value to integer');
  }

  celEquals(other: unknown): boolean {
    return other instanceof KubeQuantity && this.compare(other) === 0;
  }
}

export function isQuantity(s: string): boolean {
  try {
    KubeQuantity.parse(s);
    return true;
  } catch {
    return false;
  }
}

export function registerQuantity(env: Environment): void {
  const Q = 'kubernetes.Quantity';
  const int = (n: bigint) => new KubeQuantity(n, 1n);
  env
    .registerType(Q, KubeQuantity)
    .registerFunction(`quantity(string): ${Q}`, (s: string) => KubeQuantity.parse(s))
    .registerFunction('isQuantity(string): bool', isQuantity)
    .registerFunction(`${Q}.isInteger(): bool`, (q: KubeQuantity) => q.isInteger())
    .registerFunction(`${Q}.asInteger(): int`, (q: KubeQuantity) => q.asInteger())
    .registerFunction(`${Q}.asApproximateFloat(): double`, (q: KubeQuantity) => Number(q.num) / Number(q.den))
    .registerFunction(`${Q}.sign(): int`, (q: KubeQuantity) => BigInt(q.compare(int(0n))))
    .registerFunction(`${Q}.add(${Q}): ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.add(o, 1n))
    .registerFunction(`${Q}.add(int): ${Q}`, (q: KubeQuantity, n: bigint) => q.add(int(n), 1n))
    .registerFunction(`${Q}.sub(${Q}): ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.add(o, -1n))
    .registerFunction(`${Q}.sub(int): ${Q}`, (q: KubeQuantity, n: bigint) => q.add(int(n), -1n))
    .registerFunction(`${Q}.isLessThan(${Q}): bool`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) < 0)
    .registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) > 0)
    .registerFunction(`${Q}.compareTo(${Q}): int`, (q: KubeQuantity, o: KubeQuantity) => BigInt(q.compare(o)))
    .registerOperator(`${Q} == ${Q}`, (q: KubeQuantity, o: KubeQuantity) => q.compare(o) === 0);
}
