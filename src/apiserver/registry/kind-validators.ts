/**
 * Validation beyond the schema for the few custom resource kinds whose content the API server
 * understands, declared in `api/` and listed here by group and kind: a validating admission
 * step built in, as kube-apiserver builds in the checks of its own kinds. The CRD controller
 * gives the served versions of such a kind a strategy that runs its validator after the
 * schema checks have passed, on create and on main-resource updates (not on `/status`).
 * A kind may also have warnings: what the server accepts but tells the writer about (kube's
 * WarningsOnCreate/WarningsOnUpdate), sent as `Warning` headers.
 */
import { ClusterVersion, overrideGroupWarnings } from '../../api/config/index.ts';
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

/** Warning texts about a valid object; `old` is the stored object on an update. */
export type KindWarnings = (obj: KubeObject, old: KubeObject | undefined) => string[];

const warnings: ReadonlyMap<string, KindWarnings> = new Map<string, KindWarnings>([
  // `group: apps/v1` is matched as `apps`, but the writer should learn the field holds a group (issue 17).
  [key(ClusterVersion.group, ClusterVersion.kind), (obj) => overrideGroupWarnings(Array.isArray(obj.spec?.overrides) ? obj.spec.overrides : undefined)],
]);

export function kindValidator(group: string, kind: string): KindValidator | undefined {
  return validators.get(key(group, kind));
}

export function kindWarnings(group: string, kind: string): KindWarnings | undefined {
  return warnings.get(key(group, kind));
}

/** `base` with the kind's validator and warnings added, or `base` itself when the kind has neither. */
export function withKindValidator(base: Strategy, group: string, kind: string): Strategy {
  const validate = kindValidator(group, kind);
  const warn = kindWarnings(group, kind);
  if (!validate && !warn) return base;
  return {
    ...base,
    ...(validate
      ? {
          validate: (obj: KubeObject) => [...(base.validate?.(obj) ?? []), ...validate(obj, undefined)],
          validateUpdate: (obj: KubeObject, old: KubeObject) => [...(base.validateUpdate?.(obj, old) ?? []), ...validate(obj, old)],
        }
      : {}),
    ...(warn
      ? {
          warningsOnCreate: (obj: KubeObject) => [...(base.warningsOnCreate?.(obj) ?? []), ...warn(obj, undefined)],
          warningsOnUpdate: (obj: KubeObject, old: KubeObject) => [...(base.warningsOnUpdate?.(obj, old) ?? []), ...warn(obj, old)],
        }
      : {}),
  };
}
