/**
 * The operand images of a release, as the payload's `machine-config-operator-images` ConfigMap
 * lists them in `images.json` (OpenShift's file; the release build replaces every image
 * reference and the version in it). The operator reads it from its mounted volume; `shipyard up`
 * reads the same file from the payload, so the configs the first nodes boot from and the ones
 * the controller renders later name the same OS image.
 */
import { parseJsonObject } from '../../../api/json-object.ts';

export interface OperatorImages {
  readonly releaseVersion: string;
  readonly machineConfigOperator: string;
  readonly machineConfigController: string;
  readonly machineConfigDaemon: string;
  readonly machineConfigServer: string;
  readonly oauthProxy: string;
  /** The nodes' OS image: every rendered config's `osImageURL` unless a MachineConfig overrides it. */
  readonly baseOSContainerImage: string;
  readonly baseOSExtensionsContainerImage: string;
}

const keys = [
  'releaseVersion',
  'machineConfigOperator',
  'machineConfigController',
  'machineConfigDaemon',
  'machineConfigServer',
  'oauthProxy',
  'baseOSContainerImage',
  'baseOSExtensionsContainerImage',
] as const satisfies readonly (keyof OperatorImages)[];

/** Parses `images.json`; `source` names the file in errors. */
export function parseImagesJson(text: string, source: string): OperatorImages {
  const record = parseJsonObject(text, source);
  const missing = keys.filter((k) => typeof record[k] !== 'string' || record[k] === '');
  if (missing.length) throw new Error(`${source}: missing ${missing.join(', ')}`);
  return Object.fromEntries(keys.map((k) => [k, record[k]])) as unknown as OperatorImages;
}
