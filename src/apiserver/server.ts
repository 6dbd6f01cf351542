/**
 * The embedded Kubernetes-compatible API server: HTTPS with bearer-token authentication (the
 * token file's tokens and the service-account tokens it signs) on a revisioned SQLite store,
 * serving the built-in resources and CustomResourceDefinitions to unmodified kubectl and
 * @kubernetes/client-node, and keeping the `default/kubernetes` Service that in-cluster clients
 * reach it by. `startApiServer` creates the data directory's PKI, signing key, admin token and
 * kubeconfig on first start and resumes them afterwards.
 */
import { createKubeletLogSource, ensureKubeletApiToken } from './handlers/kubelet-logs.ts';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { openSqliteBackend, type StoreDurability } from '../storage/sqlite.ts';
import type { Backend } from '../storage/types.ts';
import { Compactor } from '../storage/compactor.ts';
import { writeKubeconfig } from './auth/kubeconfig.ts';
import { ensureServingPki } from './auth/pki.ts';
import { ensureTokenAuthenticator, type TokenAuthenticator, type UserInfo } from './auth/tokens.ts';
import { createJwtAuthenticator, looksLikeJwt } from './auth/jwt-authenticator.ts';
import { SERVICE_ACCOUNT_ISSUER } from './auth/service-account-claims.ts';
import { ensureServiceAccountKeys } from './auth/service-account-keys.ts';
import { DEFAULT_SERVICE_CIDR, KubernetesServiceReconciler } from './controllers/kubernetes-service.ts';
import { addressAt } from '../api/cidr.ts';
import { CrdController } from './controllers/crd-controller.ts';
import { StoreEventSource } from './controllers/event-source.ts';
import { NamespaceCache } from './controllers/namespace-cache.ts';
import { NamespaceController } from './controllers/namespace-controller.ts';
import { Discovery } from './discovery/discovery.ts';
import { ApiError, errors } from './errors.ts';
import type { LogSource, ServerContext } from './handlers/context.ts';
import { attachBuiltinSchemas, ensureSystemNamespaces, managedFieldsHook, gracefulDeletionHook, serviceAdmission, type PortRange } from './bootstrap.ts';
import { createRestrictedEndpointsAdmission } from './authz/restricted-endpoints.ts';
import { corsFilter } from './http/cors.ts';
import { sniCallback, type NamedCertificate } from './http/sni.ts';
import type { TlsProfile } from './http/tls-profile.ts';
import { writeError } from './http/respond.ts';
import { ApiServerMetrics } from './metrics.ts';
import { OpenApiService } from './openapi-service.ts';
import { builtinResources } from './registry/builtin/catalogue.ts';
import { ResourceRegistry } from './registry/registry.ts';
import { checkSchema } from './registry/schema-checks.ts';
import { ObjectStore } from './registry/store.ts';
import { routeRequest } from './router.ts';
import { createAuthzAdmission } from './authz/admission.ts';
import { createAuthorizer } from './authz/authorizer.ts';
import { reconcileBootstrapPolicy } from './authz/bootstrap-reconcile.ts';
import { NodeGraph } from './authz/node-authorizer.ts';
import { RbacIndex } from './authz/rbac-index.ts';
import { reviewHandlers } from './authz/reviews.ts';
import { renderTable } from './tables-service.ts';
import { HealthEndpoints, pingCheck, shutdownCheck } from './health.ts';
import { GracefulShutdown, isLongRunning } from './shutdown.ts';
import { Auditor, type AuditorOptions } from './audit/auditor.ts';
import { createdNameOf } from './audit/created-name.ts';
import type { RequestInfo } from './http/request-info.ts';

export interface ApiServerOptions {
  readonly dataDir: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly bind?: string;
  readonly logger?: Logger;
  /** Extra SANs for the serving certificate (load balancer, node IPs, ClusterIP). */
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  /** The URL written into the kubeconfig (defaults to https://<bind>:<port>). */
  readonly advertiseUrl?: string;
  /**
   * The address this replica publishes in the `kubernetes` Service's Endpoints: an IPv4
   * address in 127.0.0.0/8, by default the bind address.
   */
  readonly advertiseAddress?: string;
  /** Where ClusterIPs come from; its first address is the `kubernetes` Service's (default 127.64.0.0/16). */
  readonly serviceClusterIpRange?: string;
  /** Audiences accepted in service-account tokens besides `https://kubernetes.default.svc`. */
  readonly apiAudiences?: readonly string[];
  /** Timing of the `kubernetes` Service's lease and checks (defaults 10 s and 30 s). */
  readonly kubernetesService?: { readonly intervalMs?: number; readonly leaseDurationSeconds?: number };
  readonly bookmarkIntervalMs?: number;
  /**
   * Automatic compaction: how often (0 disables), and how many revisions to keep at least. Each
   * run also keeps everything since the previous run, as kube-apiserver's compactor does; with
   * several replicas on one store, one of them compacts per interval.
   */
  readonly compactionIntervalMs?: number;
  readonly compactionKeepRevisions?: number;
  /**
   * What an acknowledged write survives: `fsync` (default) power loss and OS crash too, as
   * etcd; `process-crash-only` a killed process only, and may lose the last acknowledged writes
   * on power loss or OS crash (no fsync per commit).
   */
  readonly storeDurability?: StoreDurability;
  readonly logs?: LogSource;
  /**
   * Graceful termination (`shutdown()`, shutdown.ts): how long the replica keeps serving with
   * `/readyz` failing before it stops listening (default 0, kube's), over how long watches are
   * then ended (default 0: at once), and the longest wait for in-flight requests (default 60 s).
   */
  readonly shutdown?: { readonly delayMs?: number; readonly watchGraceMs?: number; readonly requestTimeoutMs?: number };
  /** pino's level for the default logger (default: $SHIPYARD_LOG_LEVEL, else info); see component.ts for --v. */
  readonly logLevel?: string;
  /** The directory holding `state.db` (default `<dataDir>/store`). */
  readonly storeDir?: string;
  /** `--service-node-port-range` (default 30000-32767). */
  readonly serviceNodePortRange?: PortRange;
  /**
   * The serving TLS setup (`servingInfo`): the minimum version and ciphers; a certificate and key
   * served instead of the one issued from the data directory's CA; the CA bundle client
   * certificates are checked against (default the data directory's CA); SNI certificates.
   */
  readonly tls?: TlsProfile & {
    readonly servingCert?: { readonly certPem: string; readonly keyPem: string };
    readonly clientCaPem?: string;
    readonly namedCertificates?: readonly NamedCertificate[];
  };
  /** `corsAllowedOrigins`: regular expressions of the Origins that get CORS headers. */
  readonly corsAllowedOrigins?: readonly string[];
  /** openshift.io/RestrictedEndpointsAdmission's restrictedCIDRs (none: the plugin admits everything). */
  readonly restrictedEndpointCIDRs?: readonly string[];
  /** Settings accepted for the record but used by nothing in this server yet (imagePolicyConfig); logged at start. */
  readonly recorded?: Readonly<Record<string, unknown>>;
  /** The audit log (`auditConfig`, `--audit-*`): its policy, file and rotation; none: nothing is audited. */
  readonly audit?: Omit<AuditorOptions, 'onError'>;
}

export interface RunningApiServer {
  readonly url: string;
  readonly port: number;
  readonly kubeconfigPath: string;
  readonly caCertPem: string;
  readonly adminToken: string;
  readonly backend: Backend;
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly metrics: ApiServerMetrics;
  /**
   * Graceful termination, what SIGTERM does: `/readyz` fails at once, everything else is served
   * through the shutdown delay, then the listener closes, watches end cleanly and in-flight
   * requests are answered before the server stops.
   */
  shutdown(): Promise<void>;
  /** Stops now: connections are cut, and a graceful shutdown under way skips what it has left. */
  close(): Promise<void>;
}

export const serverVersion = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-shipyard',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-23T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function defaultLogger(level: string | undefined): Logger {
  return pino({ level: level ?? process.env.SHIPYARD_LOG_LEVEL ?? 'info', redact: { paths: ['req.headers.authorization', '*.token', '*.adminToken', 'token'], censor: '[redacted]' } }, pino.destination(2));
}

/** The audit event of a finished request, from what the router saw of it. */
function recordAudit(auditor: Auditor, req: IncomingMessage, res: ServerResponse, seen: { user?: UserInfo; impersonatedUser?: UserInfo; info?: RequestInfo }, receivedAt: number): void {
  const info = seen.info;
  const r = info?.kind === 'resource' ? info : undefined;
  auditor.record({
    requestURI: req.url ?? '/',
    verb: r ? r.verb : (req.method ?? 'GET').toLowerCase(),
    user: seen.user,
    impersonatedUser: seen.impersonatedUser,
    sourceIPs: req.socket.remoteAddress ? [req.socket.remoteAddress] : [],
    userAgent: req.headers['user-agent'],
    objectRef: r ? { resource: r.resource, namespace: r.namespace, name: r.name ?? createdNameOf(req), apiGroup: r.group, apiVersion: r.version, subresource: r.subresource } : undefined,
    code: res.statusCode,
    receivedAt,
    completedAt: Date.now(),
  });
}

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  const log = options.logger ?? defaultLogger(options.logLevel);
  const dataDir = options.dataDir;
  const bind = options.bind ?? '127.0.0.1';
  const advertiseAddress = options.advertiseAddress ?? (LOOPBACK.test(bind) ? bind : '127.0.0.1');
  if (!LOOPBACK.test(advertiseAddress)) throw new Error(`advertise address ${advertiseAddress} is not an IPv4 address in 127.0.0.0/8`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pkiDir = join(dataDir, 'pki');
  const serviceCIDR = options.serviceClusterIpRange ?? DEFAULT_SERVICE_CIDR;
  // Validated before anything starts: a bad range is a flag error, not a failure at the first Service.
  const kubernetesServiceIP = addressAt(serviceCIDR, 1);
  const pki = await ensureServingPki(pkiDir, { dnsNames: options.dnsNames, ipAddresses: [...(options.ipAddresses ?? []), kubernetesServiceIP] });
  if (pki.reissued) log.info({ reason: pki.reissued, dir: pkiDir }, 'serving certificate re-issued from the existing CA');
  const auth: TokenAuthenticator = ensureTokenAuthenticator(pkiDir);
  const saKeys = ensureServiceAccountKeys(pkiDir);
  const audiences = [...new Set([SERVICE_ACCOUNT_ISSUER, ...(options.apiAudiences ?? [])])];
  const storeDir = options.storeDir ?? join(dataDir, 'store');
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  const metrics = new ApiServerMetrics(() => backend.currentRevision());
  const storeDurability = options.storeDurability ?? 'fsync';
  const backend = await openSqliteBackend({
    path: join(storeDir, 'state.db'),
    durability: storeDurability,
    onBatchCommitted: (writes) => metrics.storageBatchWrites.observe(writes),
  });
  if (storeDurability !== 'fsync') log.warn({ storeDurability }, 'store commits are not fsynced: acknowledged writes survive a killed process, but the last ones may be lost on power loss or an OS crash');

  const registry = new ResourceRegistry();
  registry.register(attachBuiltinSchemas(builtinResources()));
  const namespaceCache = new NamespaceCache();
  const rbac = new RbacIndex();
  const nodeGraph = new NodeGraph();
  const authorizer = createAuthorizer(rbac, nodeGraph);
  const authzAdmission = createAuthzAdmission(rbac, authorizer);
  const restrictedEndpoints = createRestrictedEndpointsAdmission(options.restrictedEndpointCIDRs ?? [], authorizer);
  const store = new ObjectStore(backend, registry, {
    namespaceActive: (name) => namespaceCache.isActive(name),
    admit: (def, obj, old, ctx) => {
      authzAdmission.admit(def, obj, old, ctx);
      restrictedEndpoints.admit(def, obj, old, ctx);
    },
    admitDelete: (def, obj, ctx) => authzAdmission.admitDelete(def, obj, ctx),
    checkSchema,
    managedFields: managedFieldsHook,
    admitCreate: serviceAdmission(() => store, serviceCIDR, options.serviceNodePortRange),
    gracefulDeletionSeconds: gracefulDeletionHook(() => store, registry),
  });
  const uidOf = async (resource: string, namespace: string, name: string): Promise<string | undefined> => {
    const kv = await store.getRaw(registry.lookup('', 'v1', resource)!, namespace, name);
    return kv ? ((JSON.parse(kv.value) as { metadata?: { uid?: string } }).metadata?.uid ?? '') : undefined;
  };
  const jwtAuth = createJwtAuthenticator({
    keys: saKeys,
    audiences,
    lookup: { serviceAccountUid: (ns, name) => uidOf('serviceaccounts', ns, name), podUid: (ns, name) => uidOf('pods', ns, name) },
    onReject: (reason) => log.debug({ reason }, 'service-account token refused'),
  });
  // The token file first: it answers synchronously, and the admin token is the common case.
  const authenticate = (authorization: string | undefined): UserInfo | undefined | Promise<UserInfo | undefined> =>
    auth.authenticate(authorization) ?? (looksLikeJwt(authorization) ? jwtAuth.authenticate(authorization) : undefined);
  const discovery = new Discovery(registry);
  const openapi = new OpenApiService(registry, discovery);

  const onControllerError = (controller: string) => (key: string, err: unknown) => {
    if (err instanceof ApiError && (err.reason === 'Conflict' || err.reason === 'NotFound')) log.debug({ controller, key, err: err.message }, 'retrying');
    else log.warn({ controller, key, err: err instanceof Error ? err.message : String(err) }, 'controller sync failed; retrying');
  };
  const lifetime = new AbortController();
  const events = new StoreEventSource(store, registry, (err) => log.error({ err }, 'store event source failed'));
  const crds = new CrdController(store, registry, onControllerError('crd'));
  const namespaces = new NamespaceController(store, registry, onControllerError('namespace'));
  const startRevision = await backend.currentRevision();
  await events.start(startRevision, lifetime.signal);
  await crds.start(events);
  await namespaceCache.start(events, store, registry);
  await ensureSystemNamespaces(store, registry);
  await namespaces.start(events);
  await rbac.start(events, store, registry);
  await nodeGraph.start(events, store, registry);
  await reconcileBootstrapPolicy(store, registry);
  const reviews = reviewHandlers({ authorizer, rbac, nodes: nodeGraph, authenticate });
  const graceful = new GracefulShutdown(
    { delayMs: options.shutdown?.delayMs ?? 0, watchGraceMs: options.shutdown?.watchGraceMs ?? 0, requestTimeoutMs: options.shutdown?.requestTimeoutMs ?? 60_000 },
    log,
  );
  const health = new HealthEndpoints({ healthz: [pingCheck], livez: [pingCheck], readyz: [pingCheck, shutdownCheck(() => graceful.shuttingDown)] }, (endpoint, detail) =>
    log.debug(`${endpoint} check failed:\n${detail}`),
  );

  const ctx: ServerContext = {
    store,
    registry,
    logs:
      options.logs ??
      createKubeletLogSource({
        token: ensureKubeletApiToken(pkiDir),
        caCertPem: pki.caCertPem,
        lookupNode: (name) => store.get(registry.lookup('', 'v1', 'nodes')!, undefined, name).catch(() => undefined),
      }),
    watch: {
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      maxBufferedBytes: 64 * 1024 * 1024,
      onOpen: (def) => metrics.watchers.inc({ resource: def.resource }),
      onClose: (def) => metrics.watchers.dec({ resource: def.resource }),
      drain: graceful,
    },
    toTable: renderTable,
    tokenIssuer: { keys: saKeys, audiences, now: Date.now },
  };

  let compactionTimer: NodeJS.Timeout | undefined;
  const interval = options.compactionIntervalMs ?? 5 * 60_000;
  if (interval > 0) {
    // Every replica runs it; a compare-and-swap on the store's compaction key elects the one
    // that compacts each interval (storage/compactor.ts), as kube-apiserver's on etcd.
    const compactor = new Compactor({ backend, keepRevisions: options.compactionKeepRevisions });
    let running: Promise<unknown> = Promise.resolve();
    compactionTimer = setInterval(() => {
      running = running.then(() => compactor.run()).catch((err) => log.warn({ err: (err as Error).message }, 'compaction failed'));
    }, interval);
    compactionTimer.unref();
  }

  let address = '';
  const debug = log.isLevelEnabled('debug');
  const cors = corsFilter(options.corsAllowedOrigins);
  const auditor = options.audit ? new Auditor({ ...options.audit, onError: (err) => log.warn({ err: err.message }, 'audit log write failed; events lost') }) : undefined;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (cors?.(req, res)) return;
    const started = process.hrtime.bigint();
    let verb = 'unknown';
    let resource = '';
    graceful.admit(res);
    let seen: { user?: UserInfo; impersonatedUser?: UserInfo; info?: RequestInfo } = {};
    if (auditor) {
      const receivedAt = Date.now();
      // 'close', not 'finish': a request whose client went away is audited too, with the code it got.
      res.once('close', () => recordAudit(auditor, req, res, seen, receivedAt));
    }
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.requests.inc({ verb, resource, code: String(res.statusCode) });
      if (verb !== 'watch') metrics.latency.observe({ verb, resource }, seconds);
      // An access log at debug level; the path only (never headers, which carry the token).
      if (debug) log.debug({ method: req.method, path: req.url?.split('?')[0], verb, resource, code: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
    });
    const observe = auditor ? (s: typeof seen) => (seen = { ...seen, ...s }) : undefined;
    routeRequest(req, res, { ctx, auth: { authenticate }, authz: { authorizer, reviews }, discovery, openapi, health, metrics, version: serverVersion, serverAddress: () => address, observe }, (v, r) => {
      verb = v;
      resource = r;
      if (isLongRunning(v, r)) graceful.longRunning(res);
    }).catch((err: unknown) => {
      if (err instanceof ApiError) {
        writeError(res, err);
        return;
      }
      log.error({ err, method: req.method, url: req.url }, 'request failed');
      if (!res.headersSent) writeError(res, errors.internal(err instanceof Error ? err.message : String(err)));
      else res.destroy();
    });
  };

  // Client certificates are asked for, not required: a client without one authenticates by token.
  // servingInfo's TLS profile applies to the SNI certificates as well.
  const profile = { ca: options.tls?.clientCaPem ?? pki.caCertPem, minVersion: options.tls?.minVersion, ciphers: options.tls?.ciphers };
  const serving = options.tls?.servingCert ?? { certPem: pki.certPem, keyPem: pki.keyPem };
  const tls = { ...profile, cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false, SNICallback: sniCallback(options.tls?.namedCertificates ?? [], profile) };
  const server: Server = createServer({ ...tls, keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000, noDelay: true }, handler);
  // closeAllConnections() knows only connections that have begun a request: a client that has
  // just finished its TLS handshake (an informer reconnecting, say) would hold close() open.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    log.debug({ err: err.message }, 'client error');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 6443, bind, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${bind}:${port}`;
  const url = options.advertiseUrl ?? `https://${bind}:${port}`;
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, { server: url, caCertPem: pki.caCertPem, token: auth.adminToken });
  log.info({ url, dataDir }, 'API server listening');
  if (options.recorded) log.info(options.recorded, 'configuration accepted and recorded; nothing in this server uses it yet');

  // In the background: tests and clients need not wait for the Service to exist.
  const kubernetesService = new KubernetesServiceReconciler({
    serviceIP: kubernetesServiceIP,
    store,
    registry,
    advertiseAddress,
    port,
    events,
    intervalMs: options.kubernetesService?.intervalMs,
    leaseDurationSeconds: options.kubernetesService?.leaseDurationSeconds,
    onError: (step, err) => {
      if (err instanceof ApiError && (err.reason === 'Conflict' || err.reason === 'NotFound' || err.reason === 'AlreadyExists')) log.debug({ step, err: err.message }, 'kubernetes Service: retrying');
      else log.warn({ step, err: err instanceof Error ? err.message : String(err) }, 'kubernetes Service: reconcile failed; retrying');
    },
  });
  kubernetesService.start();
  let leaving: Promise<void> | undefined;
  const leaveEndpoints = (): Promise<void> => (leaving ??= kubernetesService.stop());
  const serverClosed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      lifetime.abort();
      if (compactionTimer) clearInterval(compactionTimer);
      for (const c of [crds, namespaces]) c.stop();
      server.close();
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await serverClosed;
      // After the last request: this replica leaves the kubernetes Endpoints (unless its
      // graceful shutdown did first), then the store closes.
      await leaveEndpoints();
      await auditor?.close();
      await backend.close();
    })());

  return {
    url,
    port,
    kubeconfigPath,
    caCertPem: pki.caCertPem,
    adminToken: auth.adminToken,
    backend,
    registry,
    store,
    metrics,
    async shutdown() {
      await graceful.run({ preShutdown: leaveEndpoints, stopListening: () => server.close() });
      await stop();
    },
    async close() {
      graceful.cutShort();
      await stop();
    },
  };
}
