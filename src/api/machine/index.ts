/**
 * The Machine API (issue 16): machine.openshift.io/v1beta1 Machine, MachineSet and
 * MachineHealthCheck, and the older healthchecking.openshift.io/v1alpha1 MachineHealthCheck
 * (`LegacyMachineHealthCheck`), each declared once (schema → type, CRD manifest, printer
 * columns), with the names the Machine API's components coordinate through and the checks the
 * API server makes on a MachineSet.
 */
import type { CustomResourceDefinitionManifest } from '../crd/define.ts';
import { Machine } from './machine.ts';
import { LegacyMachineHealthCheck, MachineHealthCheck } from './machine-health-check.ts';
import { MachineSet } from './machine-set.ts';

export * from './names.ts';
export * from './common.ts';
export * from './machine.ts';
export * from './machine-set.ts';
export * from './machine-health-check.ts';
export { validateMachineSet, type MachineSetLike } from './validate-machine-set.ts';

export const machineAPIKinds = [Machine, MachineSet, MachineHealthCheck, LegacyMachineHealthCheck] as const;

/** Fresh copies of the Machine API's CRDs, as the release payload ships them. */
export function machineAPICRDs(): CustomResourceDefinitionManifest[] {
  return machineAPIKinds.map((k) => structuredClone(k.crd));
}
