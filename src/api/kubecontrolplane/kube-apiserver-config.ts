/**
 * The operand's configuration: `kubecontrolplane.config.openshift.io/v1` KubeAPIServerConfig,
 * the `config.yaml` that the kube-apiserver operator renders from sparse layers (default ←
 * observedConfig ← unsupportedConfigOverrides) and Shipyard's API server reads (issue 17).
 * One declaration gives both the schema the merged config is validated against and the type
 * the server reads it as.
 *
 * Field names are OpenShift's (openshift/api `kubecontrolplane/v1` and the
 * `GenericAPIServerConfig` it inlines), but only the fields Shipyard's server honours are
 * declared: upstream decodes leniently and drops what it does not know, so a typo silently does
 * nothing; here an undeclared field is an error naming its path (issue 17, item 3). OpenShift's
 * authConfig, aggregatorConfig, kubeletClientInfo,
 * oauthConfig, projectConfig, userAgentMatchingConfig and storageConfig's etcd client fields
 * (ca, certFile, keyFile, storagePrefix) are not declared, so setting them is refused rather than ignored.
 *
 * Storage differs from upstream, whose store is always etcd (`storageConfig.urls`, or
 * `apiServerArguments.etcd-servers`): Shipyard's server stores in SQLite, and the location of
 * that store is a `file:` URL in `storageConfig.urls` (`file:///var/lib/shipyard/store`, the
 * directory holding `state.db`), which the host-etcd observer writes as the issue asks; etcd
 * member URLs (`https://host:2379`) are declared too, for the etcd backend the issue
 * foresees, and refused by validation until the server has one.
 */
import { type Infer, type Schema, s } from '../crd/schema-builder.ts';
import { apiServerArgumentSpecs, type ApiServerArgumentName } from './arguments.ts';

export const group = 'kubecontrolplane.config.openshift.io';
export const version = 'v1';
export const kind = 'KubeAPIServerConfig';
export const apiVersion = `${group}/${version}`;

/** The TLS versions Go names (crypto/tls), as `servingInfo.minTLSVersion` takes them. */
export const tlsVersions = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;

/**
 * The cipher suites Go implements, by their IANA names (crypto/tls `CipherSuites()` and
 * `InsecureCipherSuites()`), which `servingInfo.cipherSuites` lists as OpenShift's TLS
 * profiles do. TLS 1.3 suites are listed but not configurable in Go, as here.
 */
export const cipherSuiteNames = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA',
  'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
] as const;

const certFile = s.string({ description: 'A PEM-encoded certificate file.' });
const keyFile = s.string({ description: 'The PEM-encoded private key file of certFile.' });

export const namedCertificate = s.object({
  names: s.array(s.string(), { description: 'The DNS names (leading wildcards allowed) the certificate is served for; empty: the names in the certificate.' }),
  certFile,
  keyFile,
});

export const servingInfo = s.object({
  bindAddress: s.string({ description: 'host:port to serve on; the host must be in 127.0.0.0/8. Unset: the node address and port the pod is started with.' }),
  bindNetwork: s.enum(['tcp', 'tcp4', 'tcp6'], { description: 'The network to bind: tcp4 (default), tcp6 or tcp.' }),
  certFile,
  keyFile,
  clientCA: s.string({ description: 'The bundle of CAs whose client certificates are accepted.' }),
  namedCertificates: s.array(namedCertificate, { listType: 'atomic', description: 'Certificates served for specific names (SNI).' }),
  minTLSVersion: s.enum(tlsVersions, { description: 'The lowest TLS version accepted, as Go names it.' }),
  cipherSuites: s.array(s.stringOf<(typeof cipherSuiteNames)[number]>(), { description: 'The cipher suites offered, by IANA name.' }),
});

export const storageConfig = s.object({
  urls: s.array(s.string(), {
    description:
      "Where the store is. Shipyard's SQLite store: exactly one file: URL naming the store directory (file:///var/lib/shipyard/store). Etcd members (https://host:2379): not supported by Shipyard's server yet.",
  }),
});

/** An admission plugin's configuration: a file, or the object inline (which wins). */
export const admissionPluginConfig = s.object({
  location: s.string({ description: 'A file holding the configuration.' }),
  configuration: s.nullable(s.unknownObject({ description: "The configuration object itself (apiVersion, kind and the plugin's fields)." })),
});

export const admission = s.object({
  pluginConfig: s.map(admissionPluginConfig, { description: 'Configuration by plugin name.' }),
  enabledPlugins: s.array(s.string(), { description: 'Plugins to run besides the default ones (unioned across config layers).' }),
  disabledPlugins: s.array(s.string(), { description: 'Plugins not to run (unioned across config layers).' }),
});

export const imagePolicyConfig = s.object({
  internalRegistryHostname: s.string({
    description: "hostname[:port] of the internal image registry. Accepted and recorded (the server logs it at start): Shipyard's server has no image policy admission that would use it yet.",
  }),
  externalRegistryHostnames: s.array(s.string(), {
    description: 'hostname[:port] the internal registry is exposed at, outside the cluster; the first is the public one. Accepted and recorded, as internalRegistryHostname.',
  }),
});

/** The audit log: JSON lines in a file (the legacy text format and the webhook are refused by the server). */
export const auditConfig = s.object({
  enabled: s.boolean({ description: 'Whether requests are audited.' }),
  auditFilePath: s.string({ description: 'Where the audit log is written (a container path).' }),
  maximumFileRetentionDays: s.integer({ minimum: 0, description: 'Days to keep rotated audit logs (0: no limit).' }),
  maximumRetainedFiles: s.integer({ minimum: 0, description: 'Rotated audit logs to keep (0: all).' }),
  maximumFileSizeMegabytes: s.integer({ minimum: 0, description: 'Megabytes an audit log grows to before it is rotated (0: 100).' }),
  policyFile: s.string({ description: 'The audit.k8s.io/v1 Policy file (a container path).' }),
  policyConfiguration: s.nullable(s.unknownObject({ description: 'The audit policy inline (wins over policyFile).' })),
  logFormat: s.enum(['legacy', 'json'], { description: "json (one Event per line); legacy is refused by Shipyard's server." }),
  webHookKubeConfig: s.string({ description: "A kubeconfig for an audit webhook; refused by Shipyard's server." }),
  webHookMode: s.enum(['batch', 'blocking'], { description: "How events reach the webhook; refused by Shipyard's server." }),
});

type ApiServerArguments = { [K in ApiServerArgumentName]?: string[] };

/** One property per known flag, each a list of strings (`Arguments` upstream). */
function argumentsSchema(): Schema<ApiServerArguments> {
  const properties = Object.fromEntries(Object.entries(apiServerArgumentSpecs).map(([name, spec]) => [name, s.array(s.string(), { description: spec.description })]));
  return s.describe(s.object(properties), "Command-line flags of the API server, each as a list of values; only the flags Shipyard's server accepts.") as Schema<ApiServerArguments>;
}

export const kubeAPIServerConfig = s.object({
  apiVersion: s.stringOf<typeof apiVersion>({ description: `Always ${apiVersion} when set.` }),
  kind: s.stringOf<typeof kind>({ description: `Always ${kind} when set.` }),
  apiServerArguments: argumentsSchema(),
  servingInfo,
  storageConfig,
  servicesSubnet: s.string({ description: "The Service network (the server's --service-cluster-ip-range): a loopback range between /16 and /24." }),
  servicesNodePortRange: s.string({ description: 'The NodePort range, e.g. 30000-32767.' }),
  imagePolicyConfig,
  admission,
  admissionPluginConfig: s.map(admissionPluginConfig, {
    description: 'Admission plugin configuration by name: the older spelling of admission.pluginConfig, which the operator observes into (and which wins when a plugin is in both).',
  }),
  auditConfig,
  corsAllowedOrigins: s.array(s.string(), { description: 'Regular expressions; a request whose Origin matches one gets CORS headers.' }),
  gracefulTerminationDuration: s.string({
    description: "Seconds the kubelet gives the server to stop (the static pod's terminationGracePeriodSeconds): at least the shutdown delay plus in-flight requests.",
  }),
});

export type KubeAPIServerConfig = Infer<typeof kubeAPIServerConfig>;
export type ServingInfo = Infer<typeof servingInfo>;
export type StorageConfig = Infer<typeof storageConfig>;
export type AdmissionPluginConfig = Infer<typeof admissionPluginConfig>;
export type AuditConfig = Infer<typeof auditConfig>;
