/**
 * machineconfiguration.openshift.io/v1: the Machine Config Operator's kinds — MachineConfig,
 * MachineConfigPool, KubeletConfig and ControllerConfig — each declared once (schema → type,
 * CRD manifest, printer columns), with the names its components coordinate through and the
 * checks the API server makes on a MachineConfig's Ignition config.
 */
import type { CustomResourceDefinitionManifest } from '../crd/define.ts';
import { ControllerConfig } from './controller-config.ts';
import { KubeletConfig } from './kubelet-config.ts';
import { MachineConfig } from './machine-config.ts';
import { MachineConfigPool } from './machine-config-pool.ts';

export * from './common.ts';
export * from './machine-config.ts';
export * from './machine-config-pool.ts';
export * from './kubelet-config.ts';
export * from './controller-config.ts';
export * from './config-server.ts';
export { validateMachineConfig } from './validate-machine-config.ts';

export const machineConfigurationKinds = [MachineConfig, MachineConfigPool, KubeletConfig, ControllerConfig] as const;

/** Fresh copies of every CRD of the group. */
export function machineConfigurationCRDs(): CustomResourceDefinitionManifest[] {
  return machineConfigurationKinds.map((k) => structuredClone(k.crd));
}
