/**
 * Kubernetes' semver library: `semver(s)`, `semver(s, normalize)`, `isSemver(s)`,
 * `isSemver(s, normalize)`, and on a version `major`, `minor`, `patch`, `isGreaterThan`,
 * `isLessThan`, `compareTo`. Versions are read and ordered as semver.org 2.0.0 says (as
 * blang/semver, which Kubernetes uses, does), with its error texts; normalizing drops a
 * leading `v`, fills in a missing minor and patch, and strips leading zeros.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { type CelObject, fail } from './values.ts';

class SemverError extends Error {}

type PreRelease = bigint | string;

export class Semver implements CelObject {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PreRelease[],
    readonly build: readonly string[],
  ) {}

  compare(o: Semver): number {
    for (const [a, b] of [[this.major, o.major], [this.minor, o.minor], [this.patch, o.patch]] as const) if (a !== b) return a < b ? -1 : 1;
    // A version with a pre-release sorts before the same version without one.
    if (this.pre.length === 0 || o.pre.length === 0) return this.pre.length === o.pre.length ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i]!;
      const b = o.pre[i]!;
      if (a === b) continue;
      if (typeof a !== typeof b) return typeof a === 'bigint' ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return Math.sign(this.pre.length - o.pre.length);
  }

  celEquals(other: unknown): boolean {
    return other instanceof Semver && this.compare(other) === 0;
  }

  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre.length ? `-${this.pre.join('.')}` : ''}${this.build.length ? `+${this.build.join('.')}` : ''}`;
  }
}

const numbers = /^[0-9]*$/;
const alphanum = /^[0-9A-Za-z-]*$/;

function number(part: string, what: string): bigint {
  if (!numbers.test(part)) throw new SemverError(`Invalid character(s) found in ${what} number ${JSON.stringify(part)}`);
  if (part.length > 1 && part.startsWith('0')) throw new SemverError(`${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(part)}`);
  if (part === '') throw new SemverError(`strconv.ParseUint: parsing "": invalid syntax`);
  const n = BigInt(part);
  if (n >= 2n ** 64n) throw new SemverError(`strconv.ParseUint: parsing ${JSON.stringify(part)}: value out of range`);
  return n;
}

function preRelease(s: string): PreRelease {
  if (s === '') throw new SemverError('Prerelease is empty');
  if (numbers.test(s)) {
    if (s.length > 1 && s.startsWith('0')) throw new SemverError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(s)}`);
    return BigInt(s);
  }
  if (alphanum.test(s)) return s;
  throw new SemverError(`Invalid character(s) found in prerelease ${JSON.stringify(s)}`);
}

export function parseSemver(s: string): Semver {
  if (s === '') throw new SemverError('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new SemverError('No Major.Minor.Patch elements found');
  const [majorText, minorText] = parts as [string, string];
  let patchText = parts.slice(2).join('.');
  const major = number(majorText, 'major');
  const minor = number(minorText, 'minor');
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, 'patch');
  const preParts = pre.map(preRelease);
  for (const b of build) {
    if (b === '') throw new SemverError('Build meta data is empty');
    if (!alphanum.test(b)) throw new SemverError(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return new Semver(major, minor, patch, preParts, build);
}

/** Drops a leading `v`, strips leading zeros, and fills in a missing minor and patch. */
function normalize(s: string): string {
  const parts = s.replace(/^v/, '').split('.');
  const head = parts.length > 3 ? [...parts.slice(0, 2), parts.slice(2).join('.')] : parts;
  const stripped = head.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (stripped.length < 3) {
    if (/[+-]/.test(stripped[stripped.length - 1]!)) throw new SemverError('short version cannot contain PreRelease/Build meta data');
    while (stripped.length < 3) stripped.push('0');
  }
  return stripped.join('.');
}

export function semver(s: string, normalizing = false): Semver {
  try {
    return parseSemver(normalizing ? normalize(s) : s);
  } catch (e) {
    if (e instanceof SemverError) fail(e.message);
    throw e;
  }
}

export function isSemver(s: string, normalizing = false): boolean {
  try {
    parseSemver(normalizing ? normalize(s) : s);
    return true;
  } catch {
    return false;
  }
}

export function registerSemver(env: Environment): void {
  const S = 'kubernetes.Semver';
  env
    .registerType(S, Semver)
    .registerFunction(`semver(string): ${S}`, (s: string) => semver(s))
    .registerFunction(`semver(string, bool): ${S}`, semver)
    .registerFunction('isSemver(string): bool', (s: string) => isSemver(s))
    .registerFunction('isSemver(string, bool): bool', isSemver)
    .registerFunction(`${S}.major(): int`, (v: Semver) => v.major)
    .registerFunction(`${S}.minor(): int`, (v: Semver) => v.minor)
    .registerFunction(`${S}.patch(): int`, (v: Semver) => v.patch)
    .registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) > 0)
    .registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) < 0)
    .registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)))
    .registerOperator(`${S} == ${S}`, (a: Semver, b: Semver) => a.celEquals(b));
}
