/**
 * Validation beyond the schema for the few custom resource kinds whose content the API server
 * understands, declared in `api/` and listed here by group and kind: a validating admission
 * step built in, as kube-apiserver builds in the checks of its own kinds. The CRD controller
 * gives the served versions of such a kind a strategy that runs its validator after the
 * schema checks have passed, on create and on main-resource updates (not on `/status`).
 */
import type { FieldError } from '../../api/field-errors.ts';
import { MachineSet, validateMachineSet } from '../../api/machine/index.ts';
import { MachineConfig, validateMachineConfig } from '../../api/machineconfiguration/index.ts';
import type { KubeObject, Strategy } from './resource.ts';

/** `old` is the stored object on an update. */
export type KindValidator = (obj: KubeObject, old: KubeObject | undefined) => FieldError[];

const key = (group: string, kind: string) => `${kind}.${group}`;

const validators: ReadonlyMap<string, KindValidator> = new Map<string, KindValidator>([
  // Ignition that can never render is refused when written, not found later as RenderDegraded.
  [key(MachineConfig.group, MachineConfig.kind), (obj, old) => validateMachineConfig(obj, old)],
  // A selector that misses its own template would create Machines it never counts, without end.
  [key(MachineSet.group, MachineSet.kind), (obj, old) => validateMachineSet(obj, old)],
]);

export function kindValidator(group: string, kind: string): KindValidator | undefined {
  return validators.get(key(group, kind));
}

/** `base` with the kind's validator added, or `base` itself when the kind has none. */
export function withKindValidator(base: Strategy, group: string, kind: string): Strategy {
  const validate = kindValidator(group, kind);
  if (!validate) return base;
  return {
    ...base,
    validate: (obj) => [...(base.validate?.(obj) ?? []), ...validate(obj, undefined)],
    validateUpdate: (obj, old) => [...(base.validateUpdate?.(obj, old) ?? []), ...validate(obj, old)],
  };
}
