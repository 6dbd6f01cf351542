/**
 * Observes the internal registry's hostname, `status.internalRegistryHostname` of the Image
 * config `cluster` (written by the image registry's operator), into
 * `imagePolicyConfig.internalRegistryHostname` (the seed's second observed input). No Image,
 * or no hostname in it, means no internal registry: nothing is observed and the path goes, as
 * upstream. A hostname that is not `hostname[:port]` is an error and keeps the previous value.
 */
import type { Image } from '../../../api/config/image.ts';
import { hostnamePort } from '../../../api/kubecontrolplane/values.ts';
import type { ReadonlyCache } from '../../../runtime/cache.ts';
import type { Observation, ObserverRecorder } from '../../../runtime/config-observer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { pickPaths, setPath, type SparseConfig } from '../../../runtime/sparse-config.ts';

export const internalRegistryHostnamePath = ['imagePolicyConfig', 'internalRegistryHostname'] as const;

export interface ImageListers {
  /** image.config.openshift.io Images (cluster-scoped, keyed by name). */
  readonly images: ReadonlyCache<Image>;
}

export function observeInternalRegistryHostname(listers: ImageListers, _recorder: ObserverRecorder, existing: DeepReadonly<SparseConfig>): Observation {
  const image = listers.images.get('cluster');
  const hostname = image?.status?.internalRegistryHostname;
  if (!hostname) return { config: {}, errors: [] };
  const detail = hostnamePort(hostname);
  if (detail) {
    return {
      config: pickPaths(existing, [internalRegistryHostnamePath]),
      errors: [`image.config.openshift.io/cluster: status.internalRegistryHostname: Invalid value: ${JSON.stringify(hostname)}: ${detail}`],
    };
  }
  const config: SparseConfig = {};
  setPath(config, internalRegistryHostnamePath, hostname);
  return { config, errors: [] };
}
