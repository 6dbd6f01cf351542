/**
 * Which Machines a MachineSet deletes when it has too many, as OpenShift's MachineSet controller
 * ranks them: every Machine gets a priority from 0 to 100 under the set's `deletePolicy` and the
 * highest go first.
 *
 * - Being deleted already: 100 under every policy.
 * - Annotated `machine.openshift.io/delete-machine` (or the older
 *   `machine.openshift.io/cluster-api-delete-machine`) with a non-empty value, or carrying a
 *   `status.errorReason`/`errorMessage`: 100 under Oldest and Newest, 50 under Random. An empty
 *   value does not count, as upstream (openshift-docs#45149 is the surprise it causes).
 * - Random: 40 without a Node yet (nothing runs there), else 20.
 * - Oldest: 50·(1 − e^(−age/100 days)), so older means higher but never reaches the marked
 *   Machines' 100; no or a future creation time gives 0. Newest: 100 minus that.
 *
 * Upstream sorts with an unstable sort, so equal priorities (every Running Machine under
 * Random) fall in no particular order; here ties go first to a Machine marked as above (under
 * Newest a Machine created this very second also scores 100, and the marked one must still win),
 * then by name, as Cluster API settled it: the same state always picks the same victims.
 */
import { machineAnnotations, type Machine, type MachineSetDeletePolicy } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

type MachineView = DeepReadonly<Machine>;

export const mustDelete = 100;
export const betterDelete = 50;
export const preferDelete = 40;
export const couldDelete = 20;
export const mustNotDelete = 0;

const secondsPerHundredDays = 100 * 24 * 60 * 60;

/** Marked for deletion by a user (the annotation, non-empty) or by a terminal error. */
export function markedForDeletion(m: MachineView): boolean {
  const a = m.metadata?.annotations;
  if (a?.[machineAnnotations.deleteMachine] || a?.[machineAnnotations.legacyDeleteMachine]) return true;
  return m.status?.errorReason != null || m.status?.errorMessage != null;
}

const deleting = (m: MachineView): boolean => !!m.metadata?.deletionTimestamp;

function ageBased(m: MachineView, nowMs: number): number {
  const created = Date.parse(String(m.metadata?.creationTimestamp ?? ''));
  if (!Number.isFinite(created)) return mustNotDelete;
  const seconds = (nowMs - created) / 1000;
  if (seconds < 0) return mustNotDelete;
  return betterDelete * (1 - Math.exp(-seconds / secondsPerHundredDays));
}

/** A policy as `spec.deletePolicy` may hold it: unset and empty both mean Random. */
export type DeletePolicySetting = MachineSetDeletePolicy | '' | undefined;

/** Whether `policy` is one this controller knows; the CRD's enum refuses others, but an object stored earlier might hold one. */
export function isDeletePolicy(policy: unknown): policy is DeletePolicySetting {
  return policy === undefined || policy === '' || policy === 'Random' || policy === 'Newest' || policy === 'Oldest';
}

/** The priority of `m` under `policy` at wall time `nowMs`. */
export function deletePriority(policy: DeletePolicySetting, m: MachineView, nowMs: number): number {
  if (deleting(m)) return mustDelete;
  switch (policy) {
    case 'Oldest':
      return markedForDeletion(m) ? mustDelete : ageBased(m, nowMs);
    case 'Newest':
      return markedForDeletion(m) ? mustDelete : mustDelete - ageBased(m, nowMs);
    default:
      if (markedForDeletion(m)) return betterDelete;
      return m.status?.nodeRef ? couldDelete : preferDelete;
  }
}

/** The `count` Machines to delete, first victim first; all of them when `count` reaches their number. */
export function machinesToDelete<M extends MachineView>(machines: readonly M[], count: number, policy: DeletePolicySetting, nowMs: number): M[] {
  if (count <= 0) return [];
  const ranked = machines.map((m) => ({ m, priority: deletePriority(policy, m, nowMs), marked: deleting(m) || markedForDeletion(m), name: m.metadata?.name ?? '' }));
  ranked.sort((a, b) => b.priority - a.priority || Number(b.marked) - Number(a.marked) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.m);
}
