/**
 * The names the machine-config operator and its operands agree on (OpenShift's, so `oc`-style
 * commands and runbooks read the same): the namespace, the operand workloads and their
 * ServiceAccounts, the Secrets the operator keeps for them, the images ConfigMap of the release
 * payload, the ClusterOperator and the operator's Lease.
 */
import { machineConfigOperatorNamespace, machineConfigServer } from '../../../api/machineconfiguration/index.ts';

export const MCO_NAMESPACE = machineConfigOperatorNamespace;
/** The ClusterOperator, as `oc get co` lists it. */
export const CLUSTER_OPERATOR = 'machine-config';
/** The operator's leader Lease in its namespace (OpenShift's lock name). */
export const OPERATOR_LEASE = 'machine-config';

/** Workload names, which are also their ServiceAccounts' names and their pods' `k8s-app` label. */
export const operands = {
  operator: 'machine-config-operator',
  controller: 'machine-config-controller',
  daemon: 'machine-config-daemon',
  server: 'machine-config-server',
} as const;

export const secretNames = {
  /**
   * The serving-only signer `shipyard up` issues from the cluster CA (tls.crt, tls.key): every
   * operand's serving certificate comes from it (serving-certs.ts).
   */
  signer: 'machine-config-operator-signer',
  /** The config server's serving certificate and key, chain included. */
  serverTLS: machineConfigServer.tlsSecret,
  /** The daemon's metrics proxy's serving certificate and key. */
  proxyTLS: 'proxy-tls',
  /** The bearer token a booting machine shows the config server (key `token`). */
  bootstrapToken: machineConfigServer.bootstrapTokenSecret,
} as const;

/** The payload's ConfigMap of operand images (`images.json`), mounted into the operator's pod. */
export const IMAGES_CONFIGMAP = 'machine-config-operator-images';

/** The cluster's root CA as the installer publishes it (kube-system/root-ca, key ca.crt), as OpenShift's installer does. */
export const ROOT_CA_CONFIGMAP = { namespace: 'kube-system', name: 'root-ca', key: 'ca.crt' } as const;

/** The config server's HTTPS port on every master, and on the load balancer in front of them. */
export const SERVER_PORT = machineConfigServer.securePort;
/** The daemon's metrics behind its oauth-proxy, on the node's address (the daemon runs on the host network). */
export const DAEMON_METRICS_PORT = 9001;
