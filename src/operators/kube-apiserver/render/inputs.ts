/**
 * What `shipyard render` reads from its `--asset-input-dir` (issue 17, item 6), as
 * OpenShift's installer hands `cluster-kube-apiserver-operator render` the cluster's facts.
 * One file, `install-config.yaml`, an install configuration as OpenShift's installer records it
 * in ConfigMap `kube-system/cluster-config-v1` (render copies it there verbatim):
 *
 *   networking:
 *     clusterNetwork: [{cidr: 127.128.0.0/12, hostPrefix: 24}]   # or the seed's podCIDR
 *     serviceNetwork: [127.64.0.0/16]                            # or the seed's serviceCIDR
 *   platform:
 *     shipyard:
 *       apiServerURL: https://127.0.0.1:6443   # the load balancer
 *       storeDir: /abs/data-dir/store           # the SQLite store's directory
 *
 * The PKI is not an input: the server finds its CA, tokens and service-account keys beside its
 * store (`<data dir>/pki`, the store's parent), as every replica of every revision does.
 * The networking section is read by the same observer the operator runs (configobserver/
 * network.ts), so render accepts exactly what the operator will.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../../runtime/sparse-config.ts';

export const installConfigFile = 'install-config.yaml';

export interface RenderInputs {
  /** The install configuration's text, as the cluster records it. */
  readonly installConfig: string;
  /** The load balancer's URL: the servers advertise it and its host is in their certificates. */
  readonly apiServerURL: string;
  /** The SQLite store's directory (absolute). */
  readonly storeDir: string;
}

export class RenderInputError extends Error {}

/** The install configuration's Shipyard facts; the networking section is the observer's to check. */
export function parseInstallConfig(text: string, file: string): RenderInputs {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new RenderInputError(`${file}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isPlainObject(doc)) throw new RenderInputError(`${file}: must be a YAML object`);
  const shipyard = isPlainObject(doc.platform) ? doc.platform.shipyard : undefined;
  if (!isPlainObject(shipyard)) throw new RenderInputError(`${file}: platform.shipyard: Required value`);
  const url = shipyard.apiServerURL;
  if (typeof url !== 'string' || url === '') throw new RenderInputError(`${file}: platform.shipyard.apiServerURL: Required value`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RenderInputError(`${file}: platform.shipyard.apiServerURL: Invalid value: ${JSON.stringify(url)}: must be an https URL`);
  }
  if (parsed.protocol !== 'https:') throw new RenderInputError(`${file}: platform.shipyard.apiServerURL: Invalid value: ${JSON.stringify(url)}: must be an https URL`);
  const storeDir = shipyard.storeDir;
  if (typeof storeDir !== 'string' || storeDir === '') throw new RenderInputError(`${file}: platform.shipyard.storeDir: Required value`);
  if (!isAbsolute(storeDir)) throw new RenderInputError(`${file}: platform.shipyard.storeDir: Invalid value: ${JSON.stringify(storeDir)}: must be an absolute path`);
  return { installConfig: text, apiServerURL: url, storeDir };
}

export function readRenderInputs(assetInputDir: string): RenderInputs {
  if (!existsSync(assetInputDir)) throw new RenderInputError(`--asset-input-dir ${assetInputDir}: no such directory`);
  const file = join(assetInputDir, installConfigFile);
  if (!existsSync(file)) throw new RenderInputError(`${file}: not found (the install configuration: networking and platform.shipyard)`);
  return parseInstallConfig(readFileSync(file, 'utf8'), file);
}
