/**
 * The release's `images.json` (ConfigMap `machine-api-operator-images`, mounted into the
 * operator's pod; a plain file when the operator runs on the host): the operator's own image,
 * which also holds the machineset, nodelink and health-check controllers, and one machine
 * controller image per platform, under OpenShift's keys plus Shipyard's
 * `clusterAPIControllerShipyard`. The release build replaces every reference in it; an admin
 * swapping a component edits it (seed 000), which is why the operator reads it at every sync.
 */
import { parseJsonObject } from '../../../api/json-object.ts';

/** A parsed images.json: every key it holds, and the one the operator cannot do without. */
export interface MachineAPIImages {
  readonly machineAPIOperator: string;
  /** Every key of the file with a non-empty string value (provider images among them). */
  readonly all: Readonly<Record<string, string>>;
}

/**
 * The machine controller image key of each platform (`status.platformStatus.type`), as
 * OpenShift's operator maps them; a platform not listed here (`None`, `External`, an unknown
 * one) runs no controllers at all: the operator's NoOp mode.
 */
export const providerImageKeys: Readonly<Record<string, string>> = {
  Shipyard: 'clusterAPIControllerShipyard',
  AWS: 'clusterAPIControllerAWS',
  AlibabaCloud: 'clusterAPIControllerAlibaba',
  Azure: 'clusterAPIControllerAzure',
  BareMetal: 'clusterAPIControllerBareMetal',
  GCP: 'clusterAPIControllerGCP',
  IBMCloud: 'clusterAPIControllerIBMCloud',
  Libvirt: 'clusterAPIControllerLibvirt',
  Nutanix: 'clusterAPIControllerNutanix',
  OpenStack: 'clusterAPIControllerOpenStack',
  oVirt: 'clusterAPIControllerOvirt',
  PowerVS: 'clusterAPIControllerPowerVS',
  VSphere: 'clusterAPIControllerVSphere',
};

/** Parses `images.json`; `source` names the file in errors. */
export function parseImagesJson(text: string, source: string): MachineAPIImages {
  const doc = parseJsonObject(text, source);
  const all: Record<string, string> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw new Error(`${source}: ${key} must be a string (an image reference), not ${Array.isArray(value) ? 'an array' : typeof value}`);
    all[key] = value;
  }
  // OpenShift's wording (getMachineAPIOperatorFromImages), with the file named.
  if (!all.machineAPIOperator) throw new Error(`${source}: failed getting machineAPIOperator image. It is empty`);
  return { machineAPIOperator: all.machineAPIOperator, all };
}

export type ProviderChoice =
  /** No controllers for this platform: nothing is deployed and the operator reports NoOp. */
  | { readonly noOp: true; readonly platform: string }
  | { readonly noOp: false; readonly platform: string; readonly image: string };

/**
 * The machine controller image for a platform. A platform with a provider whose key the file
 * lacks is an error naming both, not a Deployment with an empty image.
 */
export function providerFor(platform: string, images: MachineAPIImages, source: string): ProviderChoice {
  const key = providerImageKeys[platform];
  if (!key) return { noOp: true, platform };
  const image = images.all[key];
  if (!image) throw new Error(`${source}: failed getting the machine controller image for platform ${platform}: ${key} is empty`);
  return { noOp: false, platform, image };
}
