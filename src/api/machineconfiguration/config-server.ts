/**
 * What the machine-config server shares with those who deploy it, feed it and boot from it:
 * its namespace and port, the Secrets it reads (the bootstrap token a booting machine must
 * present, its serving certificate), the ServiceAccount whose tokens go into the kubeconfig it
 * serves, and the node files it adds to every config it serves (the daemon reads the first
 * annotations file at first boot). OpenShift's MCO has no bootstrap token: its server answers
 * anyone who can reach the port (openshift/machine-config-operator issue 731).
 */

export const machineConfigOperatorNamespace = 'openshift-machine-config-operator';

export const machineConfigServer = {
  /** HTTPS, on each master's own address (hostNetwork), behind the load balancer on the API address. */
  securePort: 22623,
  serviceAccount: 'machine-config-server',
  /**
   * Secret (type Opaque) with key `token`: the bearer token a booting machine's pointer
   * Ignition sends (`ignition.config.merge[].httpHeaders: Authorization: Bearer <token>`).
   */
  bootstrapTokenSecret: 'machine-config-server-bootstrap-token',
  bootstrapTokenKey: 'token',
  /**
   * Secret (type kubernetes.io/tls) with `tls.crt` (the serving certificate, for every master's
   * address and the load balancer's, signed by the cluster CA; intermediates may follow) and `tls.key`.
   */
  tlsSecret: 'machine-config-server-tls',
  /** The ServiceAccount whose short-lived tokens the served kubeconfig carries: it may only ask for a node certificate. */
  nodeBootstrapperServiceAccount: 'node-bootstrapper',
  /** Where the server's pod mounts the two Secrets (the component's default file paths). */
  mountPaths: {
    tls: '/etc/ssl/mcs',
    bootstrapToken: '/etc/mcs/bootstrap-token',
  },
} as const;

/** Files the server adds to every config it serves, as the MCO's server does. */
export const servedNodeFiles = {
  /** The joining node's bootstrap kubeconfig (never the admin's). */
  bootstrapKubeconfig: '/etc/kubernetes/kubeconfig',
  /** `{currentConfig, desiredConfig, state: Done}` under their annotation names: the node's first annotations. */
  initialNodeAnnotations: '/etc/machine-config-daemon/node-annotations.json',
} as const;
