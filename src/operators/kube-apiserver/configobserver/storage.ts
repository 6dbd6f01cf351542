/**
 * Observes where the API server's store is, from the Endpoints `kube-system/host-etcd`, into
 * `storageConfig.urls` (the seed's first observed input). Two forms:
 * - Shipyard's SQLite store: the annotation `storage.shipyard.io/sqlite-store` holds the store
 *   directory's absolute path, observed as one `file://` URL.
 * - etcd members, as OpenShift's installer wrote them: each address with a `hostname` becomes
 *   `https://<hostname>.<dns suffix>:<port>` (the suffix from the annotation
 *   `alpha.installer.openshift.io/dns-suffix`), one without becomes `https://<ip>:<port>`; the
 *   port is the subset's `etcd` port, else 2379.
 * Any error keeps the previous urls, so a broken or missing Endpoints never moves the store.
 */
import { pathToFileURL } from 'node:url';
import type { V1Endpoints } from '@kubernetes/client-node';
import { parseIpAddress } from '../../../api/cidr.ts';
import type { ReadonlyCache } from '../../../runtime/cache.ts';
import type { Observation, ObserverRecorder } from '../../../runtime/config-observer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { getPath, pickPaths, setPath, type SparseConfig } from '../../../runtime/sparse-config.ts';

export const hostEtcd = { namespace: 'kube-system', name: 'host-etcd' } as const;
export const sqliteStoreAnnotation = 'storage.shipyard.io/sqlite-store';
export const dnsSuffixAnnotation = 'alpha.installer.openshift.io/dns-suffix';
export const storageURLsPath = ['storageConfig', 'urls'] as const;

const input = `endpoints/${hostEtcd.name}.${hostEtcd.namespace}`;
const DEFAULT_ETCD_PORT = 2379;

export interface StorageListers {
  /** Endpoints, keyed `namespace/name`. */
  readonly endpoints: ReadonlyCache<V1Endpoints>;
}

function urlHost(ip: string): string | undefined {
  try {
    return parseIpAddress(ip).bytes.length === 16 ? `[${ip}]` : ip;
  } catch {
    return undefined;
  }
}

/** The URLs the Endpoints name, or the errors that make them unusable. */
function storageURLs(ep: DeepReadonly<V1Endpoints>): { urls: string[]; errors: string[] } {
  const errors: string[] = [];
  const store = ep.metadata?.annotations?.[sqliteStoreAnnotation];
  if (store !== undefined) {
    if (!store.startsWith('/')) return { urls: [], errors: [`${input}: metadata.annotations[${sqliteStoreAnnotation}]: Invalid value: ${JSON.stringify(store)}: must be an absolute path`] };
    return { urls: [pathToFileURL(store).href], errors };
  }
  const suffix = ep.metadata?.annotations?.[dnsSuffixAnnotation];
  const urls: string[] = [];
  (ep.subsets ?? []).forEach((subset, s) => {
    const port = subset.ports?.find((p) => p.name === 'etcd')?.port ?? subset.ports?.[0]?.port ?? DEFAULT_ETCD_PORT;
    (subset.addresses ?? []).forEach((address, a) => {
      const field = `subsets[${s}].addresses[${a}]`;
      if (address.hostname) {
        if (!suffix) errors.push(`${input}: ${field}.hostname: ${dnsSuffixAnnotation} annotation not found`);
        else urls.push(`https://${address.hostname}.${suffix}:${port}`);
        return;
      }
      const host = urlHost(address.ip);
      if (!host) errors.push(`${input}: ${field}.ip: Invalid value: ${JSON.stringify(address.ip)}: must be a valid IP address`);
      else urls.push(`https://${host}:${port}`);
    });
  });
  if (urls.length === 0 && errors.length === 0) errors.push(`${input}: no storage endpoint addresses found`);
  return { urls, errors };
}

export function observeStorageURLs(listers: StorageListers, recorder: ObserverRecorder, existing: DeepReadonly<SparseConfig>): Observation {
  const previous = pickPaths(existing, [storageURLsPath]);
  const ep = listers.endpoints.get(`${hostEtcd.namespace}/${hostEtcd.name}`);
  if (!ep) return { config: previous, errors: [`${input}: not found`] };
  const { urls, errors } = storageURLs(ep);
  if (errors.length) return { config: previous, errors };
  const config: SparseConfig = {};
  setPath(config, storageURLsPath, urls);
  const before = getPath(existing, storageURLsPath);
  if (JSON.stringify(before) !== JSON.stringify(urls)) recorder.event('Normal', 'ObserveStorageUpdated', `Updated storage urls to ${urls.join(',')}`);
  return { config, errors: [] };
}
