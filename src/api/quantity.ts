/**
 * Resource quantities (`100m`, `1.5`, `128Mi`, `1e3`), read the way Kubernetes' Quantity reads
 * them: a signed decimal number followed by a binary-SI suffix (Ki…Ei), a decimal-SI suffix
 * (n, u, m, k, M, G, T, P, E) or a decimal exponent (`e3`, `E-2`). The scheduler compares
 * requests against allocatable in integers (millicores, bytes), and Kubernetes rounds *up*
 * when it scales a quantity to an integer (`MilliValue`, `Value`), so `0.0001` CPU is 1m,
 * not 0m. The arithmetic is done in BigInt so that `1.1Gi` or `0.1` scale exactly, with no
 * binary floating-point error deciding whether a pod fits.
 */

export class QuantityError extends Error {
  constructor(input: unknown, why: string) {
    super(`quantity ${JSON.stringify(input)}: ${why}`);
    this.name = 'QuantityError';
  }
}

/** value = sign · digits · 10^exp10 · 2^exp2, exactly. */
export interface Quantity {
  readonly negative: boolean;
  readonly digits: bigint;
  readonly exp10: number;
  readonly exp2: number;
}

const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Beyond this, a quantity means nothing physical and 10^n in BigInt would only burn CPU. */
const MAX_EXPONENT = 1000;

const NUMBER = /^([+-]?)(\d+\.?\d*|\.\d+)(.*)$/;
const EXPONENT = /^[eE]([+-]?\d+)$/;

export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? numberText(input) : input;
  if (typeof text !== 'string') throw new QuantityError(input, 'not a string or number');
  const m = NUMBER.exec(text.trim());
  if (!m) throw new QuantityError(input, 'quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  const [, sign, number, suffix] = m;
  const [whole, fraction = ''] = number.split('.');
  const digits = BigInt((whole || '0') + fraction);
  let exp10 = -fraction.length;
  let exp2 = 0;
  if (suffix in binarySuffixes) exp2 = binarySuffixes[suffix];
  else if (suffix in decimalSuffixes) exp10 += decimalSuffixes[suffix];
  else {
    const e = EXPONENT.exec(suffix);
    if (!e) throw new QuantityError(input, `unknown suffix "${suffix}"`);
    const n = Number(e[1]);
    if (Math.abs(n) > MAX_EXPONENT) throw new QuantityError(input, 'exponent out of range');
    exp10 += n;
  }
  return { negative: sign === '-' && digits !== 0n, digits, exp10, exp2 };
}

/** The quantity times 10^scale, rounded up to an integer (Kubernetes' ScaledValue). */
export function scaledValue(q: Quantity, scale: number): number {
  const e = q.exp10 + scale;
  const num = q.digits * 2n ** BigInt(q.exp2) * (e > 0 ? 10n ** BigInt(e) : 1n);
  const den = e < 0 ? 10n ** BigInt(-e) : 1n;
  // Ceiling of num/den for a positive value; for a negative one, truncation is the ceiling.
  const magnitude = q.negative ? num / den : (num + den - 1n) / den;
  return Number(q.negative ? -magnitude : magnitude);
}

/** Kubernetes' `Value()`: whole units (bytes, pods), rounded up. */
export function quantityValue(input: string | number): number {
  return scaledValue(parseQuantity(input), 0);
}

/** Kubernetes' `MilliValue()`: thousandths (millicores), rounded up. */
export function quantityMilliValue(input: string | number): number {
  return scaledValue(parseQuantity(input), 3);
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityError(n, 'not a finite number');
  return String(n).replace('e+', 'e');
}
