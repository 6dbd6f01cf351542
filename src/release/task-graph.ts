/**
 * The order a sync pass applies a payload in, as a plan: levels run one after the other, the
 * nodes of a level in parallel, the manifests of a node in order. The plan depends on the mode
 * (after the CVO's task graph, `pkg/payload/task_graph.go` and `pkg/cvo/sync_worker.go`):
 *
 * - update: run levels strictly in order. The files of one run level form one level, with a
 *   node per component (a run of consecutive files sharing `0000_<runlevel>_<component>_`), so
 *   components of a level roll out side by side and each component's files in order. A run of
 *   files whose names do not follow the pattern is a level of one serial node.
 * - install: run levels are ignored; every component node (and serial run) of the payload is
 *   one level, all in parallel, so a new cluster gets every operator started at once.
 * - reconcile: as install, with the nodes of each level in a pseudo-random order seeded by the
 *   attempt number, so a manifest that hangs is not always first in line: the same 8
 *   consecutive attempts share a permutation, each rotated a step further.
 *
 * In every mode a batch/v1 Job is a barrier: it is a level of its own, and no node spans it.
 */
import { runLevelOf } from './manifest.ts';

export type SyncMode = 'install' | 'update' | 'reconcile';

/** What planning needs to know of a manifest. */
export interface PlanTask {
  readonly file: string;
  readonly apiVersion: string;
  readonly kind: string;
}

/** Levels → parallel nodes → manifests in order. */
export type Plan<T> = T[][][];

const isJob = (t: PlanTask): boolean => t.apiVersion === 'batch/v1' && t.kind === 'Job';

/** The tasks cut at each Job: segments and single Jobs, in payload order, empty segments left out. */
export function splitOnJobs<T extends PlanTask>(tasks: readonly T[]): { tasks: T[]; job: boolean }[] {
  const out: { tasks: T[]; job: boolean }[] = [];
  let segment: T[] = [];
  for (const t of tasks) {
    if (!isJob(t)) {
      segment.push(t);
      continue;
    }
    if (segment.length) out.push({ tasks: segment, job: false });
    out.push({ tasks: [t], job: true });
    segment = [];
  }
  if (segment.length) out.push({ tasks: segment, job: false });
  return out;
}

/**
 * Consecutive tasks with the same run level and component, or consecutive tasks whose file
 * names have none, as one run each.
 */
function runs<T extends PlanTask>(tasks: readonly T[]): { runLevel?: string; tasks: T[] }[] {
  const out: { runLevel?: string; key?: string; tasks: T[] }[] = [];
  for (const t of tasks) {
    const level = runLevelOf(t.file);
    const key = level ? `${level.runLevel}_${level.component}` : undefined;
    const last = out[out.length - 1];
    if (last && last.key === key) last.tasks.push(t);
    else out.push({ ...(level ? { runLevel: level.runLevel, key } : {}), tasks: [t] });
  }
  return out.map(({ runLevel, tasks }) => (runLevel === undefined ? { tasks } : { runLevel, tasks }));
}

/** Update mode: one level per run level (nodes per component), one per run of unpatterned files. */
export function byRunLevel<T extends PlanTask>(tasks: readonly T[]): Plan<T> {
  const levels: Plan<T> = [];
  let current: { runLevel?: string; nodes: T[][] } | undefined;
  for (const run of runs(tasks)) {
    if (current && run.runLevel !== undefined && current.runLevel === run.runLevel) {
      current.nodes.push(run.tasks);
      continue;
    }
    current = { ...(run.runLevel !== undefined ? { runLevel: run.runLevel } : {}), nodes: [run.tasks] };
    levels.push(current.nodes);
  }
  return levels;
}

/** Install and reconcile modes: one level holding every component node. */
export function flattened<T extends PlanTask>(tasks: readonly T[]): Plan<T> {
  return tasks.length ? [runs(tasks).map((r) => r.tasks)] : [];
}

/** mulberry32: a small seeded generator, so a reconcile attempt's order can be reproduced. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Attempts that share one permutation, each shifting it a step further. */
export const reconcileStride = 8;

/** Each level's nodes shuffled (seeded by attempt / 8) and rotated (by attempt % 8), as the CVO varies reconcile passes. */
export function permuted<T>(plan: Plan<T>, attempt: number): Plan<T> {
  const random = seededRandom(Math.floor(attempt / reconcileStride));
  const step = attempt % reconcileStride;
  return plan.map((level) => {
    const nodes = [...level];
    for (let i = nodes.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [nodes[i], nodes[j]] = [nodes[j]!, nodes[i]!];
    }
    const n = nodes.length;
    if (n === 0) return nodes;
    const shift = n < reconcileStride ? step % n : Math.floor((step * n) / reconcileStride) % n;
    return [...nodes.slice(shift), ...nodes.slice(0, shift)];
  });
}

/** The plan of a sync pass over `tasks` (payload order) in `mode`; `attempt` counts passes over the same payload. */
export function planPayload<T extends PlanTask>(tasks: readonly T[], mode: SyncMode, attempt = 0): Plan<T> {
  const plan: Plan<T> = [];
  for (const segment of splitOnJobs(tasks)) {
    if (segment.job) plan.push([segment.tasks]);
    else if (mode === 'update') plan.push(...byRunLevel(segment.tasks));
    else plan.push(...flattened(segment.tasks));
  }
  return mode === 'reconcile' ? permuted(plan, attempt) : plan;
}
