/**
 * The flags `apiServerArguments` may set: the ones Shipyard's API server accepts
 * (`apiserver/component.ts`), its log level, its shutdown delay, its audit log (`audit-log-format`
 * and the webhook's flags are not declared: the log is JSON lines in a file), and the admission
 * plugin lists. Upstream types `apiServerArguments` as `map[string][]string` and checks nothing, so a misspelt flag or a bad value becomes a revision whose server
 * crash-loops on every master; here each flag is declared, with how many values it takes and
 * what a value must look like (issue 17, item 3).
 */
import { absolutePath, duration, httpsUrl, integerAtLeast, loopbackAddress, nonEmpty, oneOf, pluginName, port, portRange, serviceRange, type ValueCheck } from './values.ts';

export interface ArgumentSpec {
  readonly description: string;
  /** `single`: exactly one value; `list`: any number, each checked (kube's comma-separated string slices split first). */
  readonly arity: 'single' | 'list';
  readonly check: ValueCheck;
}

/** What `store-durability` accepts; the same list as `storage/sqlite.ts` `storeDurabilities` (api/ may not import storage/). */
export const storeDurabilities = ['fsync', 'process-crash-only'] as const;

const single = (description: string, check: ValueCheck): ArgumentSpec => ({ description, arity: 'single', check });
const list = (description: string, check: ValueCheck): ArgumentSpec => ({ description, arity: 'list', check });

export const apiServerArgumentSpecs = {
  v: single('Log level (klog verbosity): 2 Normal, 4 Debug, 6 Trace, 10 TraceAll.', integerAtLeast(0)),
  'bind-address': single('The address to serve on, in 127.0.0.0/8 (default: the node address the pod is given).', loopbackAddress),
  'secure-port': single('The HTTPS port (default 6443).', port),
  'advertise-address': single("The address this replica publishes in the `kubernetes` Service's Endpoints, in 127.0.0.0/8.", loopbackAddress),
  'advertise-url': single('The URL written into the kubeconfig the server writes.', httpsUrl),
  'api-audiences': list("Audiences accepted in service-account tokens besides the API server's own.", nonEmpty),
  'tls-san': list("Extra names and loopback addresses in the serving certificate's SANs.", nonEmpty),
  'service-cluster-ip-range': single('Where ClusterIPs come from: a loopback range between /16 and /24.', serviceRange),
  'service-node-port-range': single('The NodePort range, e.g. 30000-32767.', portRange),
  'store-durability': single('What an acknowledged write survives: fsync (default) or process-crash-only.', oneOf(storeDurabilities)),
  'shutdown-delay-duration': single('How long /readyz fails while the server keeps serving after SIGTERM, so load balancers drain it.', duration),
  'audit-log-path': single('Where the audit log is written (a container path); "-" is standard output.', (v) => (v === '-' ? undefined : absolutePath(v))),
  'audit-policy-file': single('The audit.k8s.io/v1 Policy file (a container path); without one nothing is audited.', absolutePath),
  'audit-log-maxage': single('Days to keep rotated audit logs (0: no limit).', integerAtLeast(0)),
  'audit-log-maxbackup': single('Rotated audit logs to keep (0: all).', integerAtLeast(0)),
  'audit-log-maxsize': single('Megabytes an audit log grows to before it is rotated (0: 100).', integerAtLeast(0)),
  'enable-admission-plugins': list('Admission plugins to run besides the default ones (unioned across config layers).', pluginName),
  'disable-admission-plugins': list('Admission plugins not to run (unioned across config layers).', pluginName),
} as const satisfies Record<string, ArgumentSpec>;

export type ApiServerArgumentName = keyof typeof apiServerArgumentSpecs;

export function isApiServerArgumentName(name: string): name is ApiServerArgumentName {
  return Object.hasOwn(apiServerArgumentSpecs, name);
}

/** Each value of a list flag, with kube's comma-separated form (`--api-audiences=a,b`) split. */
export function listItems(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((v) => v.trim());
}
