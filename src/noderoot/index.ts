/**
 * A node's root directory (its `/`) and the writing of configs into it, shared by the cloud's
 * Ignition first boot and the machine-config daemon's updates. See README.md.
 */
export { resolveInRoot, RootEscapeError } from './paths.ts';
export { lstatOrUndefined, writeFileAtomic, symlinkAtomic, removeFile } from './fs.ts';
export { readResource, isInline, type RemoteReader } from './resource.ts';
export { writeFirstBootConfig, IgnitionApplyError, type FirstBootWriteOptions } from './first-boot-writer.ts';
export { emptyConfig, fromMachineConfig, filesByPath, type MachineConfigLike, type NodeConfig } from './config.ts';
export { diffConfigs, formatDiff, isEmptyDiff, type ConfigDiff } from './diff.ts';
export { forceFile, reconcilable, type Reconcilable } from './reconcile.ts';
export { defaultDisruptionPolicy, disruption, pullSecretPath, type Disruption, type DisruptionAction, type DisruptionOptions, type DisruptionPolicy } from './disruption.ts';
export { applyUpdate, managedPaths, type UpdateResult } from './update.ts';
export { unexpectedOnDiskState, validateOnDisk } from './validate.ts';
export { origPath } from './backups.ts';
export { coreAuthorizedKeysPath } from './ssh.ts';
export { kernelCmdlinePath, osRecordPath, readKernelArguments, readOsRecord } from './os-state.ts';
