/**
 * Completion indexes of an Indexed Job: the `completedIndexes` string (`1,3-5,7`: runs of three
 * or more as ranges, pairs listed), a pod's index from its annotation, and which indexes still
 * need a pod, lowest first.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { COMPLETION_INDEX_KEY } from './types.ts';

type Pod = DeepReadonly<V1Pod>;

/** A sorted set of indexes. */
export type IndexSet = ReadonlySet<number>;

/** The pod's completion index, or undefined when it has none (or not a valid one). */
export function completionIndex(pod: Pod): number | undefined {
  const v = pod.metadata?.annotations?.[COMPLETION_INDEX_KEY];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Parses `completedIndexes`, dropping anything at or past `completions`. */
export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    if (!part) continue;
    const [a, b] = part.split('-');
    const first = Number(a);
    const last = b === undefined ? first : Number(b);
    if (!Number.isInteger(first) || !Number.isInteger(last)) continue;
    for (let i = first; i <= last && i < completions; i++) out.add(i);
  }
  return out;
}

export function formatIndexes(indexes: IndexSet): string {
  const sorted = [...indexes].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    const first = sorted[i]!;
    const last = sorted[j]!;
    if (last === first) parts.push(String(first));
    else parts.push(`${first}${last === first + 1 ? ',' : '-'}${last}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The `count` lowest indexes below `completions` that neither succeeded nor have a pod at work. */
export function pendingIndexes(completions: number, succeeded: IndexSet, busy: IndexSet, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!succeeded.has(i) && !busy.has(i)) out.push(i);
  return out;
}
