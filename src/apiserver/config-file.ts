/**
 * `kube-apiserver --config=<file>`: the KubeAPIServerConfig the kube-apiserver operator renders
 * (`api/kubecontrolplane/`), read and checked with the operator's own schema and value rules,
 * and turned into the server's options.
 *
 * Precedence, as kube-apiserver's: command-line flags > `apiServerArguments` > the config's typed
 * fields (`servingInfo.bindAddress`, `servicesSubnet`, `servicesNodePortRange`, ...) > defaults.
 * Everything meets in one table of flag values (`mergeArguments`), so a value is checked once
 * whatever layer it came from, and the per-node flags the static pod passes
 * (`--bind-address=$(HOST_IP)` ...) win over a rendered config every master shares.
 *
 * A bad config is an error at start naming the file and the field path, one line each, which
 * is what the kubelet's log tail (FallbackToLogsOnError) then shows.
 */
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseCidr } from '../api/cidr.ts';
import { parseDuration } from '../api/duration.ts';
import { apiServerArgumentSpecs, isApiServerArgumentName, listItems } from '../api/kubecontrolplane/arguments.ts';
import { kubeAPIServerConfig, type AdmissionPluginConfig, type KubeAPIServerConfig } from '../api/kubecontrolplane/kube-apiserver-config.ts';
import { validateKubeAPIServerConfigValues } from '../api/kubecontrolplane/validate.ts';
import { checkAgainstSchema, formatPath, type PathSegment } from '../api/strict-schema.ts';
import { AuditPolicyError, parseAuditPolicy, type AuditPolicy } from './audit/policy.ts';
import { restrictedEndpointsPluginName } from './authz/restricted-endpoints.ts';
import type { PortRange } from './bootstrap.ts';
import { tlsProfile } from './http/tls-profile.ts';
import type { ApiServerOptions } from './server.ts';

/** An error at start whose message is all there is to say: no stack trace under it. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
    this.stack = message;
  }
}

interface Problem {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

function configError(file: string, problems: readonly Problem[]): StartupError {
  return new StartupError(problems.map((p) => `kube-apiserver: --config=${file}: ${p.path.length ? `${formatPath(p.path)}: ` : ''}${p.message}`).join('\n'));
}

const render = (v: unknown): string => JSON.stringify(v ?? null);

/** The admission plugins whose use the config may change; the server's built-in admission is always on. */
const configurablePlugins = [restrictedEndpointsPluginName];

/** Checks the config needs beyond the operator's: what this server can honour, and the plugin configuration. */
function serverProblems(config: KubeAPIServerConfig): Problem[] {
  const out: Problem[] = [];
  const serving = config.servingInfo ?? {};
  if (serving.bindNetwork === 'tcp6') out.push({ path: ['servingInfo', 'bindNetwork'], message: `Unsupported value: "tcp6": supported values: "tcp4", "tcp" (Shipyard serves on 127.0.0.0/8 only)` });
  if (Boolean(serving.certFile) !== Boolean(serving.keyFile)) {
    out.push({ path: ['servingInfo', serving.certFile ? 'keyFile' : 'certFile'], message: 'Required value: certFile and keyFile go together' });
  }
  (serving.namedCertificates ?? []).forEach((c, i) => {
    for (const f of ['certFile', 'keyFile'] as const) if (!c[f]) out.push({ path: ['servingInfo', 'namedCertificates', i, f], message: 'Required value' });
  });
  for (const [i, name] of (config.admission?.enabledPlugins ?? []).entries()) if (!configurablePlugins.includes(name)) out.push(unsupportedPlugin(['admission', 'enabledPlugins', i], name));
  for (const [i, name] of (config.admission?.disabledPlugins ?? []).entries()) if (!configurablePlugins.includes(name)) out.push(unsupportedPlugin(['admission', 'disabledPlugins', i], name));
  for (const flag of ['enable-admission-plugins', 'disable-admission-plugins'] as const) {
    (config.apiServerArguments?.[flag] ?? []).forEach((v, i) => {
      for (const name of listItems([v])) if (!configurablePlugins.includes(name)) out.push(unsupportedPlugin(['apiServerArguments', flag, i], name));
    });
  }
  const audit = config.auditConfig;
  if (audit?.enabled) {
    if (audit.logFormat === 'legacy') out.push({ path: ['auditConfig', 'logFormat'], message: `Unsupported value: "legacy": supported values: "json" (Shipyard's audit log is JSON lines)` });
    for (const f of ['webHookKubeConfig', 'webHookMode'] as const) if (audit[f]) out.push({ path: ['auditConfig', f], message: "Forbidden: Shipyard's API server has no audit webhook; events go to auditFilePath" });
    if (!audit.auditFilePath) out.push({ path: ['auditConfig', 'auditFilePath'], message: 'Required value: where the audit log is written, when enabled' });
    if (!audit.policyFile && !audit.policyConfiguration) out.push({ path: ['auditConfig', 'policyFile'], message: 'Required value: an audit policy (policyFile or policyConfiguration), when enabled' });
    if (audit.policyConfiguration) out.push(...policyProblems(audit.policyConfiguration, ['auditConfig', 'policyConfiguration']));
  }
  for (const [field, map] of [
    ['admission', config.admission?.pluginConfig],
    ['admissionPluginConfig', config.admissionPluginConfig],
  ] as const) {
    for (const name of Object.keys(map ?? {})) {
      const path: PathSegment[] = field === 'admission' ? ['admission', 'pluginConfig', { key: name }] : ['admissionPluginConfig', { key: name }];
      if (!configurablePlugins.includes(name)) out.push(unsupportedPlugin(path, name));
      else out.push(...restrictedEndpointsProblems(map![name]!.configuration, [...path, 'configuration']));
    }
  }
  return out;
}

function policyProblems(doc: unknown, path: PathSegment[]): Problem[] {
  try {
    parseAuditPolicy(doc);
    return [];
  } catch (err) {
    if (!(err instanceof AuditPolicyError)) throw err;
    return err.problems.map((message) => ({ path, message }));
  }
}

function unsupportedPlugin(path: PathSegment[], name: string): Problem {
  return { path, message: `Unsupported value: ${render(name)}: supported values: ${configurablePlugins.map(render).join(', ')} (the server's built-in admission is always on)` };
}

/** network.openshift.io/v1 RestrictedEndpointsAdmissionConfig: `restrictedCIDRs`, IPv4 CIDRs. */
function restrictedEndpointsProblems(configuration: unknown, path: PathSegment[]): Problem[] {
  if (configuration === null || configuration === undefined) return [];
  if (typeof configuration !== 'object' || Array.isArray(configuration)) return [{ path, message: `Invalid value: ${render(configuration)}: must be an object` }];
  const out: Problem[] = [];
  for (const [key, value] of Object.entries(configuration)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key !== 'restrictedCIDRs') {
      out.push({ path: [...path, key], message: 'unknown field' });
      continue;
    }
    if (!Array.isArray(value)) {
      out.push({ path: [...path, key], message: `Invalid value: ${render(value)}: must be a list of CIDRs` });
      continue;
    }
    value.forEach((cidr, i) => {
      try {
        if (typeof cidr !== 'string') throw new Error();
        parseCidr(cidr);
      } catch {
        out.push({ path: [...path, key, i], message: `Invalid value: ${render(cidr)}: must be an IPv4 CIDR, e.g. 127.128.0.0/9` });
      }
    });
  }
  return out;
}

/**
 * The config in `text`, checked as the operator checks a merged config (the schema strictly:
 * an undeclared field is an error; the value rules) and for what this server can honour.
 * `file` names the file in errors.
 */
export function parseKubeAPIServerConfig(file: string, text: string): KubeAPIServerConfig {
  let doc: unknown;
  try {
    // YAML 1.2 reads JSON too.
    doc = parseYaml(text);
  } catch (err) {
    throw configError(file, [{ path: [], message: `not a YAML or JSON document: ${(err as Error).message.split('\n')[0]}` }]);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw configError(file, [{ path: [], message: `must be an object, not ${Array.isArray(doc) ? 'a list' : typeof doc}` }]);
  const problems: Problem[] = [...checkAgainstSchema(doc, kubeAPIServerConfig.json), ...validateKubeAPIServerConfigValues(doc)];
  if (problems.length === 0) problems.push(...serverProblems(doc as KubeAPIServerConfig));
  if (problems.length > 0) throw configError(file, problems);
  return doc as KubeAPIServerConfig;
}

/** Flag name → values, as `apiServerArguments` holds them. */
export type Arguments = Record<string, string[]>;

/** The typed fields of the config, as the flags they stand for. */
export function typedFieldArguments(config: KubeAPIServerConfig): Arguments {
  const out: Arguments = {};
  const bind = config.servingInfo?.bindAddress;
  if (bind) {
    const colon = bind.lastIndexOf(':');
    out['bind-address'] = [bind.slice(0, colon)];
    out['secure-port'] = [bind.slice(colon + 1)];
  }
  if (config.servicesSubnet) out['service-cluster-ip-range'] = [config.servicesSubnet];
  if (config.servicesNodePortRange) out['service-node-port-range'] = [config.servicesNodePortRange];
  const audit = config.auditConfig;
  if (audit?.enabled) {
    if (audit.auditFilePath) out['audit-log-path'] = [audit.auditFilePath];
    // An inline policy wins over policyFile; it is no flag, so resolveApiServerOptions reads it.
    if (audit.policyFile && !audit.policyConfiguration) out['audit-policy-file'] = [audit.policyFile];
    if (audit.maximumFileRetentionDays !== undefined) out['audit-log-maxage'] = [String(audit.maximumFileRetentionDays)];
    if (audit.maximumRetainedFiles !== undefined) out['audit-log-maxbackup'] = [String(audit.maximumRetainedFiles)];
    if (audit.maximumFileSizeMegabytes !== undefined) out['audit-log-maxsize'] = [String(audit.maximumFileSizeMegabytes)];
  }
  return out;
}

/** Lowest layer first; a flag set in a layer replaces what the layers below said. */
export function mergeArguments(...layers: readonly Arguments[]): Arguments {
  const out: Arguments = {};
  for (const layer of layers) for (const [name, values] of Object.entries(layer)) out[name] = [...values];
  return out;
}

/**
 * klog's verbosity as the server's log level: 0–1 warn (errors and warnings only), 2–3 info
 * (kube's default 2: start, stop, what changed), 4–5 debug (the access log, retries), 6 and up
 * trace (kube logs request and response bodies from 6).
 */
export function logLevelForVerbosity(v: number): 'warn' | 'info' | 'debug' | 'trace' {
  if (v <= 1) return 'warn';
  if (v <= 3) return 'info';
  if (v <= 5) return 'debug';
  return 'trace';
}

const one = (args: Arguments, name: string): string | undefined => args[name]?.[args[name]!.length - 1];

/** Each flag's value checked with the same rules the operator applies to `apiServerArguments`. */
function checkArguments(args: Arguments): void {
  const problems: string[] = [];
  for (const [name, values] of Object.entries(args)) {
    if (!isApiServerArgumentName(name)) continue;
    const spec = apiServerArgumentSpecs[name];
    const items = spec.arity === 'single' ? values.slice(-1) : listItems(values);
    const plugins = name === 'enable-admission-plugins' || name === 'disable-admission-plugins';
    for (const v of items) {
      const detail = spec.check(v) ?? (plugins && !configurablePlugins.includes(v) ? `supported values: ${configurablePlugins.map(render).join(', ')} (the server's built-in admission is always on)` : undefined);
      if (detail) problems.push(`kube-apiserver: --${name}: Invalid value: ${render(v)}: ${detail}`);
    }
  }
  const grace = one(args, 'shutdown-watch-termination-grace-period');
  if (grace !== undefined) {
    let ms = NaN;
    try {
      ms = parseDuration(grace);
    } catch {
      /* reported below */
    }
    if (!(ms >= 0)) problems.push(`kube-apiserver: --shutdown-watch-termination-grace-period: Invalid value: ${render(grace)}: must be a duration that is not negative, e.g. "5s"`);
  }
  if (problems.length > 0) throw new StartupError(problems.join('\n'));
}

export interface FileAccess {
  /** The path as given (a container path when the server runs in a pod) mapped to this host. */
  hostPath(path: string): string;
  /** The file's text; throws when it cannot be read. */
  read(hostPath: string): string;
}

export const defaults: Arguments = {
  'bind-address': ['127.0.0.1'],
  'secure-port': ['6443'],
  'service-cluster-ip-range': ['127.64.0.0/16'],
  'service-node-port-range': ['30000-32767'],
  'store-durability': ['fsync'],
  // How long a replica told to stop keeps serving with /readyz failing, so the load balancer
  // (which checks every second and drops a replica at its first failed check) has sent new
  // connections elsewhere before the listener closes. kube's default is 0 (clients retry),
  // OpenShift's 70s (cloud load balancers check every 10 s, several times); 3s is three of
  // our balancer's checks, and it adds only that to each replica's turn in a rollout and to
  // a one-master cluster's handover from its bootstrap API server.
  'shutdown-delay-duration': ['3s'],
  // Over how long watches are ended once the listener closes (0: all at once).
  'shutdown-watch-termination-grace-period': ['0s'],
};

function portRange(v: string): PortRange {
  const [lo, hi] = v.split('-').map(Number) as [number, number];
  return { base: lo, size: hi - lo + 1 };
}

/**
 * The store URL's directory and the data directory beside it (the contract with the operator).
 * Not a container path: like an etcd member's URL, it names the store where the datacenter
 * keeps it, shared by every master's replica, so it is used as it is, not mapped under the pod.
 */
function storeLocation(config: KubeAPIServerConfig | undefined): { dataDir: string; storeDir: string } | undefined {
  const url = config?.storageConfig?.urls?.[0];
  if (!url) return undefined;
  const storeDir = decodeURIComponent(new URL(url).pathname).replace(/\/+$/, '');
  return { dataDir: dirname(storeDir), storeDir };
}

function fileText(file: string, path: PathSegment[], value: string, files: FileAccess): string {
  try {
    return files.read(files.hostPath(value));
  } catch (err) {
    throw configError(file, [{ path, message: `Invalid value: ${render(value)}: ${(err as Error).message}` }]);
  }
}

/** The plugin's configuration: `admissionPluginConfig` wins over `admission.pluginConfig`, inline over `location`. */
function restrictedCIDRs(file: string, config: KubeAPIServerConfig, args: Arguments, files: FileAccess): string[] {
  const disabled = new Set([...(config.admission?.disabledPlugins ?? []), ...listItems(args['disable-admission-plugins'] ?? [])]);
  if (disabled.has(restrictedEndpointsPluginName)) return [];
  const [entry, path]: [AdmissionPluginConfig | undefined, PathSegment[]] = config.admissionPluginConfig?.[restrictedEndpointsPluginName]
    ? [config.admissionPluginConfig[restrictedEndpointsPluginName], ['admissionPluginConfig', { key: restrictedEndpointsPluginName }]]
    : [config.admission?.pluginConfig?.[restrictedEndpointsPluginName], ['admission', 'pluginConfig', { key: restrictedEndpointsPluginName }]];
  if (!entry) return [];
  let configuration: unknown = entry.configuration;
  if ((configuration === null || configuration === undefined) && entry.location) {
    const locationPath = [...path, 'location'];
    try {
      configuration = parseYaml(fileText(file, locationPath, entry.location, files));
    } catch (err) {
      if (err instanceof StartupError) throw err;
      throw configError(file, [{ path: locationPath, message: `Invalid value: ${render(entry.location)}: not a YAML or JSON document` }]);
    }
    const problems = restrictedEndpointsProblems(configuration, locationPath);
    if (problems.length > 0) throw configError(file, problems);
  }
  const cidrs = (configuration as { restrictedCIDRs?: string[] } | null | undefined)?.restrictedCIDRs;
  return cidrs ?? [];
}

/**
 * The audit log's options: the policy from `--audit-policy-file` (flags and apiServerArguments
 * win), else `auditConfig.policyConfiguration`, else `auditConfig.policyFile` (already a flag by
 * then). As kube, no policy means no audit log, whatever the log path.
 */
function auditOptions(config: KubeAPIServerConfig | undefined, args: Arguments, files: FileAccess): ApiServerOptions['audit'] {
  const logPath = one(args, 'audit-log-path');
  if (!logPath) return undefined;
  const policyFile = one(args, 'audit-policy-file');
  let policy: AuditPolicy;
  if (policyFile) {
    try {
      policy = parseAuditPolicy(parseYaml(files.read(files.hostPath(policyFile))));
    } catch (err) {
      const problems = err instanceof AuditPolicyError ? err.problems : [(err as Error).message.split('\n')[0]!];
      throw new StartupError(problems.map((p) => `kube-apiserver: --audit-policy-file=${policyFile}: ${p}`).join('\n'));
    }
  } else if (config?.auditConfig?.enabled && config.auditConfig.policyConfiguration) {
    policy = parseAuditPolicy(config.auditConfig.policyConfiguration);
  } else {
    return undefined;
  }
  const count = (name: string) => Number(one(args, name) ?? 0);
  return {
    policy,
    path: logPath === '-' ? '-' : files.hostPath(logPath),
    maxAgeDays: count('audit-log-maxage'),
    maxBackups: count('audit-log-maxbackup'),
    maxSizeMegabytes: count('audit-log-maxsize'),
  };
}

export interface ResolveInput {
  /** `--config` as given, for errors; undefined without one. */
  readonly file?: string;
  readonly config?: KubeAPIServerConfig;
  /** The flags given on the command line (not defaulted). */
  readonly flags: Arguments;
}

/** The server's options from the flags and the config, each value checked; throws StartupError. */
export function resolveApiServerOptions(input: ResolveInput, files: FileAccess): ApiServerOptions {
  const { config, flags } = input;
  const file = input.file ?? '';
  const args = mergeArguments(defaults, config ? typedFieldArguments(config) : {}, (config?.apiServerArguments ?? {}) as Arguments, flags);
  checkArguments(args);
  const flagDataDir = one(flags, 'data-dir');
  const store = storeLocation(config);
  if (!flagDataDir && !store) throw new StartupError('kube-apiserver: --data-dir or a --config with storageConfig.urls (file:///<data dir>/store) is required');
  const bind = one(args, 'bind-address')!;
  const sans = listItems(args['tls-san'] ?? []).filter(Boolean);
  const isLoopback = (s: string) => /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(s);
  const delayMs = parseDuration(one(args, 'shutdown-delay-duration')!);
  const serving = config?.servingInfo;
  const read = (path: PathSegment[], value: string) => fileText(file, path, value, files);
  const v = one(args, 'v');
  const grace = config?.gracefulTerminationDuration;
  let profile;
  try {
    profile = tlsProfile(serving?.minTLSVersion, serving?.cipherSuites);
  } catch (err) {
    throw configError(file, [{ path: ['servingInfo'], message: (err as Error).message }]);
  }
  const imagePolicy = config?.imagePolicyConfig;
  return {
    dataDir: flagDataDir ? resolve(flagDataDir) : store!.dataDir,
    storeDir: flagDataDir ? undefined : store!.storeDir,
    port: Number(one(args, 'secure-port')),
    bind,
    advertiseUrl: one(args, 'advertise-url'),
    advertiseAddress: one(args, 'advertise-address'),
    apiAudiences: listItems(args['api-audiences'] ?? []).filter(Boolean),
    ipAddresses: sans.filter(isLoopback),
    dnsNames: sans.filter((s) => !isLoopback(s)),
    storeDurability: one(args, 'store-durability') as ApiServerOptions['storeDurability'],
    serviceClusterIpRange: one(args, 'service-cluster-ip-range'),
    serviceNodePortRange: portRange(one(args, 'service-node-port-range')!),
    logLevel: v === undefined ? undefined : logLevelForVerbosity(Number(v)),
    shutdown: {
      delayMs,
      watchGraceMs: parseDuration(one(args, 'shutdown-watch-termination-grace-period')!),
      // The kubelet kills the server gracefulTerminationDuration after SIGTERM: in-flight
      // requests get what is left after the shutdown delay, less 5 s to spare.
      requestTimeoutMs: grace === undefined ? undefined : Math.max(1000, Number(grace) * 1000 - delayMs - 5000),
    },
    tls: {
      ...profile,
      servingCert: serving?.certFile && serving.keyFile ? { certPem: read(['servingInfo', 'certFile'], serving.certFile), keyPem: read(['servingInfo', 'keyFile'], serving.keyFile) } : undefined,
      clientCaPem: serving?.clientCA ? read(['servingInfo', 'clientCA'], serving.clientCA) : undefined,
      namedCertificates: (serving?.namedCertificates ?? []).map((c, i) => ({
        names: c.names ?? [],
        certPem: read(['servingInfo', 'namedCertificates', i, 'certFile'], c.certFile!),
        keyPem: read(['servingInfo', 'namedCertificates', i, 'keyFile'], c.keyFile!),
      })),
    },
    corsAllowedOrigins: config?.corsAllowedOrigins,
    restrictedEndpointCIDRs: config ? restrictedCIDRs(file, config, args, files) : [],
    recorded: imagePolicy ? { imagePolicyConfig: imagePolicy } : undefined,
    audit: auditOptions(config, args, files),
  };
}
