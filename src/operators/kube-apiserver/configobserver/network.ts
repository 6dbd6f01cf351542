/**
 * Observes the cluster's pod and Service networks from the install configuration, the
 * `install-config` key (YAML) of ConfigMap `kube-system/cluster-config-v1` (the seed's third
 * observed input), into the RestrictedEndpointsAdmission plugin's `restrictedCIDRs` (pod
 * networks, then Service networks: Endpoints may not point into them) and `servicesSubnet`.
 *
 * The seed's install-config has `networking.podCIDR` and `networking.serviceCIDR`; today's has
 * `networking.clusterNetwork[].cidr` and `networking.serviceNetwork[]`; either is read, the
 * seed's first. Any error (no ConfigMap, no key, not YAML, a field missing or not a CIDR) keeps
 * both previous values, so a half-read install-config never narrows the restriction.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { parseIpPrefix } from '../../../api/cidr.ts';
import type { ReadonlyCache } from '../../../runtime/cache.ts';
import type { Observation, ObserverRecorder } from '../../../runtime/config-observer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { getPath, isPlainObject, pickPaths, setPath, type SparseConfig } from '../../../runtime/sparse-config.ts';

export const clusterConfig = { namespace: 'kube-system', name: 'cluster-config-v1', key: 'install-config' } as const;
export const restrictedEndpointsAdmission = 'openshift.io/RestrictedEndpointsAdmission';
export const restrictedCIDRsPath = ['admissionPluginConfig', restrictedEndpointsAdmission, 'configuration', 'restrictedCIDRs'] as const;
export const servicesSubnetPath = ['servicesSubnet'] as const;

const input = `configmap/${clusterConfig.name}.${clusterConfig.namespace}`;

export interface NetworkListers {
  /** ConfigMaps, keyed `namespace/name`. */
  readonly configMaps: ReadonlyCache<V1ConfigMap>;
}

type Read = { ok: true; cidrs: string[] } | { ok: false; error: string };

/** The CIDRs at the seed's single-valued field, else at today's list field (`cidr` of each entry when `entryKey` is given). */
function readCIDRs(networking: Record<string, unknown>, single: string, list: string, entryKey?: string): Read {
  const field = (name: string) => `${input}: ${clusterConfig.key}/networking/${name}`;
  let found: Array<{ value: unknown; field: string }>;
  if (networking[single] !== undefined) found = [{ value: networking[single], field: field(single) }];
  else if (Array.isArray(networking[list])) {
    found = (networking[list] as unknown[]).map((entry, i) => ({ value: entryKey ? getPath(entry, [entryKey]) : entry, field: field(`${list}[${i}]${entryKey ? `.${entryKey}` : ''}`) }));
  } else return { ok: false, error: `${field(single)} not found` };
  if (found.length === 0) return { ok: false, error: `${field(list)} is empty` };
  const cidrs: string[] = [];
  for (const f of found) {
    if (typeof f.value !== 'string') return { ok: false, error: `${f.field}: Invalid value: ${JSON.stringify(f.value ?? null)}: must be a CIDR` };
    try {
      parseIpPrefix(f.value);
    } catch {
      return { ok: false, error: `${f.field}: Invalid value: ${JSON.stringify(f.value)}: must be a CIDR` };
    }
    cidrs.push(f.value);
  }
  return { ok: true, cidrs };
}

export function observeRestrictedCIDRs(listers: NetworkListers, recorder: ObserverRecorder, existing: DeepReadonly<SparseConfig>): Observation {
  const previous = pickPaths(existing, [restrictedCIDRsPath, servicesSubnetPath]);
  const fail = (error: string, why: string): Observation => {
    recorder.event('Warning', 'ObserveRestrictedCIDRFailed', why);
    return { config: previous, errors: [error] };
  };
  const cm = listers.configMaps.get(`${clusterConfig.namespace}/${clusterConfig.name}`);
  if (!cm) return fail(`${input}: not found`, `Required ${clusterConfig.namespace}/${clusterConfig.name} config map not found`);
  const text = cm.data?.[clusterConfig.key];
  if (text === undefined) return fail(`${input}: ${clusterConfig.key} not found`, `ConfigMap ${clusterConfig.namespace}/${clusterConfig.name} does not have required '${clusterConfig.key}'`);
  let installConfig: unknown;
  try {
    installConfig = parseYaml(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return fail(`${input}: ${clusterConfig.key}: not YAML: ${detail}`, `Unable to decode install config: ${detail}`);
  }
  const networking = getPath(installConfig, ['networking']);
  if (!isPlainObject(networking)) return fail(`${input}: ${clusterConfig.key}/networking not found`, 'Required networking field is not set in install-config');
  const pods = readCIDRs(networking, 'podCIDR', 'clusterNetwork', 'cidr');
  if (!pods.ok) return fail(pods.error, pods.error);
  const services = readCIDRs(networking, 'serviceCIDR', 'serviceNetwork');
  if (!services.ok) return fail(services.error, services.error);
  const config: SparseConfig = {};
  setPath(config, restrictedCIDRsPath, [...pods.cidrs, ...services.cidrs]);
  setPath(config, servicesSubnetPath, services.cidrs.join(','));
  return { config, errors: [] };
}
