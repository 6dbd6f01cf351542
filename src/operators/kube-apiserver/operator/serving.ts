/**
 * How clients reach the operand, for its static pod's per-node flags (the G/H/I contract):
 * `--advertise-url` is the load balancer's URL, Infrastructure `cluster` `status.apiServerURL`
 * (what the installer recorded), and the serving certificate names what clients dial — that
 * URL's host, the `kubernetes` Service's ClusterIP (the first address of the Network's service
 * range) and the Service's DNS names — besides the node's own address, which the pod adds
 * itself. The bootstrap server is started with the same names, so revision 1 serves the same
 * certificate names as the server it replaces.
 */
import { addressAt } from '../../../api/cidr.ts';
import type { Infrastructure, Network } from '../../../api/config/index.ts';

export const serviceDnsNames = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'] as const;

export interface Serving {
  readonly advertiseUrl: string;
  readonly tlsSans: readonly string[];
}

/** From the cluster's config singletons; throws naming the field that is missing or malformed. */
export function servingFrom(infra: Pick<Infrastructure, 'status'> | undefined, network: Partial<Pick<Network, 'spec' | 'status'>> | undefined, extraSans: readonly string[] = []): Serving {
  const url = infra?.status?.apiServerURL;
  if (!url) throw new Error('infrastructures.config.openshift.io/cluster: status.apiServerURL is not set');
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    throw new Error(`infrastructures.config.openshift.io/cluster: status.apiServerURL: not a URL: ${JSON.stringify(url)}`);
  }
  const serviceCIDR = network?.status?.serviceNetwork?.[0] ?? network?.spec?.serviceNetwork?.[0];
  if (!serviceCIDR) throw new Error('networks.config.openshift.io/cluster: status.serviceNetwork is empty');
  let kubernetesIP: string;
  try {
    kubernetesIP = addressAt(serviceCIDR, 1);
  } catch (err) {
    throw new Error(`networks.config.openshift.io/cluster: status.serviceNetwork[0]: ${(err as Error).message}`);
  }
  return { advertiseUrl: url, tlsSans: [...new Set([host, kubernetesIP, ...serviceDnsNames, ...extraSans])] };
}
