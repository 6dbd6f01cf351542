/**
 * Kubernetes' regex library and CEL's `matches`, in Go's RE2 dialect (what rule authors write,
 * not JavaScript's): `matches`, `find`, `findAll`.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compileGoRegExp } from '../go-regexp.ts';
import { registeredName } from './overrides.ts';
import { fail } from './values.ts';

const cache = new Map<string, RegExp>();

function goRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = compileGoRegExp(pattern);
  } catch (e) {
    fail(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
  // Patterns come from rules (a handful per CRD) and sometimes from data: keep the cache bounded.
  if (cache.size >= 1000) cache.clear();
  cache.set(pattern, re);
  return re;
}

export function matches(s: string, pattern: string): boolean {
  const re = goRegExp(pattern);
  re.lastIndex = 0;
  return re.test(s);
}

export function findAll(s: string, pattern: string, limit = -1n): string[] {
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

export function registerRegex(env: Environment): void {
  const m = registeredName('matches');
  env
    .registerFunction(`string.${m}(string): bool`, matches)
    .registerFunction(`${m}(string, string): bool`, matches)
    .registerFunction('string.find(string): string', (s: string, p: string) => findAll(s, p, 1n)[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p))
    .registerFunction('string.findAll(string, int): list<string>', findAll);
}
