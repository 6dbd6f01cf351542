import { compareStrings } from '../../api/compare.ts';

/** Kubernetes version ordering: GA before beta before alpha, higher numbers first, other strings last. */
const pattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): [number, number, number] {
  const m = pattern.exec(v);
  if (!m) return [0, 0, 0];
  const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [stability, Number(m[1]), m[3] ? Number(m[3]) : 0];
}

export function compareKubeVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra[0] === 0 && rb[0] === 0) return compareStrings(a, b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
  return 0;
}
