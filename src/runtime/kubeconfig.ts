/**
 * How a component finds the API server, in client-go's order: an explicit kubeconfig path,
 * then `KUBECONFIG`, then in-cluster configuration (the `kubernetes` Service's
 * `KUBERNETES_SERVICE_HOST/PORT` and the pod's service-account token and `ca.crt`).
 *
 * client-node's own `loadFromCluster` reads the token from its fixed path under /var/run; a
 * process pod's files are under its rootfs instead, so the paths go through `containerPath`.
 *
 * The configuration is held by `ClientConfig`, not client-node's KubeConfig: importing any of
 * client-node loads all its generated models and APIs (about 80 MiB of a process's memory,
 * more than a controller holds at idle otherwise), and a component needs only the server, its
 * CA and the credentials. The runtime takes either (`KubeAccess`), so tests and callers that
 * have a client-node KubeConfig pass it as it is.
 */
import { readFileSync, existsSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { containerPath } from './container-path.ts';

/** A kubeconfig cluster entry, as client-node names its fields. */
export interface ClusterInfo {
  readonly name: string;
  readonly server: string;
  readonly caData?: string;
  readonly caFile?: string;
  readonly skipTLSVerify?: boolean;
  readonly tlsServerName?: string;
}

export interface UserInfo {
  readonly name: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly certData?: string;
  readonly certFile?: string;
  readonly keyData?: string;
  readonly keyFile?: string;
  readonly username?: string;
  readonly password?: string;
}

export interface ContextInfo {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string;
}

/** What the runtime needs of a kubeconfig; client-node's KubeConfig and ClientConfig both have it. */
export interface KubeAccess {
  getCurrentCluster(): ClusterInfo | null;
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** Where requests go and what they carry: the server URL, the credential headers, and the TLS options for an agent. */
export interface ClusterEndpoint {
  readonly url: URL;
  readonly headers: Record<string, string>;
  /** `ca`, `cert`, `key`, `rejectUnauthorized` and `servername` for an https agent. */
  readonly tls: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;
}

/** The current cluster of `kubeConfig` as a request needs it: the one reading for the API client and the watch client. */
export async function clusterEndpoint(kubeConfig: KubeAccess): Promise<ClusterEndpoint> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const opts: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(opts);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = String(v);
  const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, rejectUnauthorized: opts.rejectUnauthorized ?? true, servername: opts.servername };
  return { url: new URL(cluster.server), headers, tls };
}

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const named = (v: unknown): Doc[] => (Array.isArray(v) ? v.map(obj).filter((e) => typeof e.name === 'string') : []);

/**
 * A kubeconfig: clusters (server, CA, TLS server name, insecure-skip-tls-verify), users
 * (bearer token or token file, client certificate, basic auth) and contexts. Exec and
 * auth-provider plugins are refused when the configuration is used, not silently ignored.
 */
/**
 * The YAML parser, loaded on the first kubeconfig file read: a pod that talks to the API server
 * as its ServiceAccount (in-cluster, no file) never loads it, ~8 MiB less in each such process.
 */
const parseYaml = (text: string): unknown => (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);

export class ClientConfig implements KubeAccess {
  clusters: ClusterInfo[] = [];
  users: UserInfo[] = [];
  contexts: ContextInfo[] = [];
  currentContext = '';
  private unsupported = new Map<string, string>();

  loadFromFile(path: string): void {
    this.loadFromString(readFileSync(path, 'utf8'), dirname(path));
  }

  /** Kubeconfig YAML (or JSON); relative file paths in it are relative to `baseDir` (the file's directory). */
  loadFromString(text: string, baseDir = process.cwd()): void {
    const doc = obj(parseYaml(text));
    const file = (v: unknown): string | undefined => {
      const p = str(v);
      return p === undefined ? undefined : isAbsolute(p) ? p : resolve(baseDir, p);
    };
    this.clusters = named(doc.clusters).map((e) => {
      const c = obj(e.cluster);
      return {
        name: e.name as string,
        server: str(c.server) ?? '',
        caData: str(c['certificate-authority-data']),
        caFile: file(c['certificate-authority']),
        skipTLSVerify: c['insecure-skip-tls-verify'] === true,
        tlsServerName: str(c['tls-server-name']),
      };
    });
    this.unsupported.clear();
    this.users = named(doc.users).map((e) => {
      const u = obj(e.user);
      if (u.exec || u['auth-provider']) this.unsupported.set(e.name as string, u.exec ? 'exec' : 'auth-provider');
      return {
        name: e.name as string,
        token: str(u.token),
        tokenFile: file(u.tokenFile),
        certData: str(u['client-certificate-data']),
        certFile: file(u['client-certificate']),
        keyData: str(u['client-key-data']),
        keyFile: file(u['client-key']),
        username: str(u.username),
        password: str(u.password),
      };
    });
    this.contexts = named(doc.contexts).map((e) => {
      const c = obj(e.context);
      return { name: e.name as string, cluster: str(c.cluster) ?? '', user: str(c.user) ?? '', namespace: str(c.namespace) };
    });
    this.currentContext = str(doc['current-context']) ?? '';
  }

  loadFromOptions(o: { clusters: ClusterInfo[]; users: UserInfo[]; contexts: ContextInfo[]; currentContext: string }): void {
    this.clusters = [...o.clusters];
    this.users = [...o.users];
    this.contexts = [...o.contexts];
    this.currentContext = o.currentContext;
    this.unsupported.clear();
  }

  /** The configuration as kubeconfig JSON (what another ClientConfig, or client-node, loads). */
  exportConfig(): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: this.clusters.map((c) => ({
        name: c.name,
        cluster: { server: c.server, 'certificate-authority-data': c.caData, 'certificate-authority': c.caFile, 'insecure-skip-tls-verify': c.skipTLSVerify || undefined, 'tls-server-name': c.tlsServerName },
      })),
      users: this.users.map((u) => ({
        name: u.name,
        user: { token: u.token, tokenFile: u.tokenFile, 'client-certificate-data': u.certData, 'client-certificate': u.certFile, 'client-key-data': u.keyData, 'client-key': u.keyFile, username: u.username, password: u.password },
      })),
      contexts: this.contexts.map((c) => ({ name: c.name, context: { cluster: c.cluster, user: c.user, namespace: c.namespace } })),
      'current-context': this.currentContext,
    });
  }

  getCurrentContext(): ContextInfo | null {
    return this.contexts.find((c) => c.name === this.currentContext) ?? null;
  }

  getCurrentCluster(): ClusterInfo | null {
    const ctx = this.getCurrentContext();
    return (ctx && this.clusters.find((c) => c.name === ctx.cluster)) ?? null;
  }

  getCurrentUser(): UserInfo | null {
    const ctx = this.getCurrentContext();
    return (ctx && this.users.find((u) => u.name === ctx.user)) ?? null;
  }

  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    const plugin = user && this.unsupported.get(user.name);
    if (plugin) throw new Error(`kubeconfig user "${user.name}" authenticates with an ${plugin} plugin, which components here do not run; use a token or a client certificate`);
    if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster?.caData) opts.ca = Buffer.from(cluster.caData, 'base64');
    else if (cluster?.caFile) opts.ca = readFileSync(cluster.caFile);
    if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
    if (user?.certData) opts.cert = Buffer.from(user.certData, 'base64');
    else if (user?.certFile) opts.cert = readFileSync(user.certFile);
    if (user?.keyData) opts.key = Buffer.from(user.keyData, 'base64');
    else if (user?.keyFile) opts.key = readFileSync(user.keyFile);
    const token = user?.token ?? (user?.tokenFile ? readFileSync(user.tokenFile, 'utf8').trim() : undefined);
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (user?.username !== undefined && user.password !== undefined) headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
    opts.headers = { ...opts.headers, ...headers };
  }
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadOptions {
  kubeconfig?: string;
  env?: Readonly<Record<string, string | undefined>>;
  rootfs?: string;
}

export function loadKubeConfig(opts: LoadOptions = {}): ClientConfig {
  const env = opts.env ?? process.env;
  const kc = new ClientConfig();
  const path = opts.kubeconfig ?? env.KUBECONFIG;
  if (path) {
    kc.loadFromFile(path);
    return kc;
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenPath = containerPath(`${SERVICE_ACCOUNT_DIR}/token`, opts.rootfs ?? env.SHIPYARD_ROOTFS);
  if (!host || !port || !existsSync(tokenPath)) {
    throw new Error('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a pod (KUBERNETES_SERVICE_HOST/PORT and a service-account token)');
  }
  const caPath = containerPath(`${SERVICE_ACCOUNT_DIR}/ca.crt`, opts.rootfs ?? env.SHIPYARD_ROOTFS);
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server, caData: Buffer.from(readFileSync(caPath)).toString('base64'), skipTLSVerify: false }],
    users: [{ name: 'in-cluster', token: readFileSync(tokenPath, 'utf8').trim() }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster' }],
    currentContext: 'in-cluster',
  });
  return kc;
}

/**
 * The PEM of the CA the current cluster's server certificate must chain to, from the
 * kubeconfig (`certificate-authority-data` or `certificate-authority`), or undefined when it
 * names none (the system trust store would then apply).
 */
export function clusterCaPem(kc: KubeAccess): string | undefined {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) return readFileSync(cluster.caFile, 'utf8');
  return undefined;
}
