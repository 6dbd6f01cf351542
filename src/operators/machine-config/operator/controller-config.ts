/**
 * The ControllerConfig `machine-config-controller`: what the operator tells the controller about
 * the cluster, from the Infrastructure and Network singletons, the cluster's root CA and the
 * release (its image, version and operand images). Pure, and called twice with the same
 * inputs: by the operator on every sync, and by `shipyard up` before any API server exists, to
 * render the configs the first nodes boot from. Everything a template reads (the CA, the cluster
 * DNS IP, the OS images) must come out the same both times, or the controller would roll every
 * node to a new config right after the install.
 */
import { addressAt } from '../../../api/cidr.ts';
import type { Infrastructure, Network } from '../../../api/config/index.ts';
import { ControllerConfig, controllerConfigName, machineConfigAnnotations } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { OperatorImages } from './images.ts';

/**
 * On the ControllerConfig: the version of the operator that wrote it. A controller of another
 * version will not render from it (render.ts, bugzilla 1879099), so an update never renders
 * with the old controller and the new operator's config, or the reverse.
 */
export const generatedByVersionAnnotation = 'machineconfiguration.openshift.io/generated-by-version';

export interface ControllerConfigInputs {
  /** Absent at bootstrap: `shipyard up` renders before the singletons exist. */
  readonly infrastructure?: DeepReadonly<Infrastructure>;
  /** The Service network's CIDRs (Network status, or the install's address block at bootstrap). */
  readonly serviceNetwork: readonly string[];
  readonly networkType?: string;
  /** The cluster's root CA (PEM), which every node trusts for the API server. */
  readonly rootCAPem: string;
  readonly images: OperatorImages;
  /** The release image this configuration comes from. */
  readonly releaseImage: string;
  /** Stamped as `generated-by-version`: the version the controller must run to render from it. */
  readonly operatorVersion: string;
}

/** The cluster DNS Service's address: the tenth of the Service network, as OpenShift's installer picks it. */
export function clusterDNSIP(serviceNetwork: readonly string[]): string {
  const first = serviceNetwork[0];
  if (!first) throw new Error('the Network configuration has no service network');
  return addressAt(first, 10);
}

export function controllerConfigFor(i: ControllerConfigInputs): ControllerConfig {
  const ca = Buffer.from(i.rootCAPem).toString('base64');
  const { releaseVersion, baseOSContainerImage, baseOSExtensionsContainerImage, ...operandImages } = i.images;
  const infra = i.infrastructure;
  return {
    apiVersion: ControllerConfig.apiVersion,
    kind: ControllerConfig.kind,
    metadata: {
      name: controllerConfigName,
      annotations: { [generatedByVersionAnnotation]: i.operatorVersion, [machineConfigAnnotations.releaseImageVersion]: releaseVersion },
    },
    spec: {
      clusterDNSIP: clusterDNSIP(i.serviceNetwork),
      cloudProviderConfig: '',
      ...(infra?.status?.platformStatus?.type ? { platform: infra.status.platformStatus.type.toLowerCase() } : {}),
      // One CA signs the API server's serving certificate and everything else (src/apiserver/auth/pki.ts).
      kubeAPIServerServingCAData: ca,
      rootCAData: ca,
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      images: { ...operandImages },
      baseOSContainerImage,
      baseOSExtensionsContainerImage,
      releaseImage: i.releaseImage,
      proxy: null,
      infra: infra ? { apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: structuredClone(infra.spec) as never, status: structuredClone(infra.status ?? {}) as never } : null,
      dns: null,
      ipFamilies: 'IPv4',
      ...(i.networkType ? { networkType: i.networkType } : {}),
      network: null,
    },
  };
}

/** The Service network as the operator reads it from the Network singleton (status first, as OpenShift's MCO does). */
export function serviceNetworkOf(network: DeepReadonly<Network> | undefined): string[] {
  return [...(network?.status?.serviceNetwork ?? network?.spec?.serviceNetwork ?? [])];
}
