/**
 * Which Machines a MachineSet counts and what it creates, as OpenShift's MachineSet controller
 * decides: a MachineSet whose selector is empty, invalid or does not select its own template's
 * labels acts on nothing (the API refuses such a MachineSet; one stored before that check, or on
 * a server without it, must still do no harm). It counts the Machines in its namespace that its
 * selector matches, are not being deleted and are controlled by it or by nothing; the orphans
 * among them it adopts. A new Machine is its template's labels, annotations and spec, named
 * `<set>-<random>` by the server, with the set as controller.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';
import { compileLabelSelector, isEmptySelector, type LabelMatcher } from '../../../api/label-selector.ts';
import { Machine, MachineSet } from '../../../api/machine/index.ts';
import { controllerOf } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { compareStrings } from '../../../api/compare.ts';

export type MachineView = DeepReadonly<Machine>;
export type MachineSetView = DeepReadonly<MachineSet>;

export type SelectorCheck = { readonly ok: true; readonly matches: LabelMatcher } | { readonly ok: false; readonly message: string };

/** The set's selector as a matcher, or why the set must not act (the mismatch worded as upstream's controller words it). */
export function checkSelector(ms: MachineSetView): SelectorCheck {
  const name = ms.metadata?.name ?? '';
  const selector = ms.spec?.selector as Parameters<typeof compileLabelSelector>[0];
  if (!selector || isEmptySelector(selector)) return { ok: false, message: `failed validation on MachineSet "${name}": spec.selector: Required value: selector is empty` };
  const compiled = compileLabelSelector(selector, 'spec.selector');
  if (!compiled.matches) return { ok: false, message: `failed to parse MachineSet "${name}" label selector: ${compiled.error}` };
  if (!compiled.matches(ms.spec?.template?.metadata?.labels ?? {})) {
    return { ok: false, message: `failed validation on MachineSet "${name}" label selector, cannot match any machines` };
  }
  return { ok: true, matches: compiled.matches };
}

export interface CountedMachines {
  /** Every Machine the set counts (including those to adopt), sorted by name. */
  readonly counted: MachineView[];
  /** The orphans among them: they get the set's controller reference. */
  readonly adopt: MachineView[];
}

/** Sorts `candidates` (Machines of the set's namespace) into what the set counts and what it must adopt first. */
export function countMachines(ms: MachineSetView, matches: LabelMatcher, candidates: Iterable<MachineView>): CountedMachines {
  const uid = ms.metadata?.uid;
  const counted: MachineView[] = [];
  const adopt: MachineView[] = [];
  const seen = new Set<string>();
  for (const m of candidates) {
    const key = m.metadata?.uid ?? m.metadata?.name ?? '';
    if (seen.has(key)) continue;
    seen.add(key);
    if (m.metadata?.namespace !== ms.metadata?.namespace) continue;
    const ref = controllerOf(m);
    if (ref && ref.uid !== uid) continue;
    if (m.metadata?.deletionTimestamp) continue;
    if (!matches(m.metadata?.labels)) continue;
    counted.push(m);
    if (!ref) adopt.push(m);
  }
  counted.sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''));
  return { counted, adopt };
}

/** The reference a MachineSet puts on the Machines it creates or adopts. */
export function controllerRefTo(ms: MachineSetView): V1OwnerReference {
  return { apiVersion: MachineSet.apiVersion, kind: MachineSet.kind, name: ms.metadata?.name ?? '', uid: ms.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** The Machine to create: the template's labels, annotations and spec, a generated name, the set as controller. */
export function machineFromTemplate(ms: MachineSetView): Machine {
  const template = structuredClone(ms.spec?.template ?? {}) as NonNullable<MachineSet['spec']['template']>;
  const metadata: NonNullable<Machine['metadata']> = {
    generateName: `${ms.metadata?.name ?? ''}-`,
    namespace: ms.metadata?.namespace,
    ownerReferences: [controllerRefTo(ms)],
  };
  if (template.metadata?.labels) metadata.labels = template.metadata.labels;
  if (template.metadata?.annotations) metadata.annotations = template.metadata.annotations;
  return { apiVersion: Machine.apiVersion, kind: Machine.kind, metadata, spec: template.spec ?? {} };
}
