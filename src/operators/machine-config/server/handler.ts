/**
 * The machine-config server's HTTP handler: `GET|HEAD /config/<pool>` and `/healthz`, as the
 * MCO's server routes them, with a bootstrap token required for everything but `/healthz`
 * (checked before the path, so an unauthenticated caller learns nothing, not even which pools
 * exist). Failures answer with a Kubernetes `Status` naming the object and what was wrong;
 * 5xx answers are what a booting machine's Ignition retries (the pool not rendered yet, the API
 * server unreachable), 4xx what it must not (a version it cannot get, a pool that does not exist).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatProblem, type ConfigProblem } from '../../../api/ignition/index.ts';
import { group, machineConfigServer, type MachineConfig, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { isDns1123Subdomain } from '../../../api/names.ts';
import { ApiError, type StatusCause, type StatusDetails } from '../../../api/status.ts';
import type { ApiClient } from '../../../runtime/client.ts';
import type { Logger } from '../../../runtime/logger.ts';
import { resources } from '../../../runtime/resources.ts';
import { negotiateVersion } from './accept.ts';
import { checkBearer } from './bootstrap-token.ts';
import { mintServiceAccountToken, nodeBootstrapKubeconfig } from './node-kubeconfig.ts';
import { servedConfig, servedConfigName } from './served-config.ts';

export interface ConfigHandlerOptions {
  readonly client: ApiClient;
  readonly logger: Logger;
  /** The bootstrap token now, or undefined while its Secret is not there. */
  readonly bootstrapToken: () => string | undefined;
  /** The API server as a joining node reaches it: the served kubeconfig's URL and CA. */
  readonly apiServer: () => Promise<{ readonly url: string; readonly caPem: string }>;
  /** Where the node-bootstrapper ServiceAccount lives. */
  readonly namespace: string;
  readonly nodeTokenExpirationSeconds: number;
}

const poolResource = { group, kind: 'machineconfigpools' };
const configResource = { group, kind: 'machineconfigs' };

export function createConfigHandler(options: ConfigHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(options, req, res).catch((err: unknown) => {
      const e = toServerError(err);
      options.logger.error({ url: req.url, err: e.message }, 'request failed');
      if (!res.headersSent) writeStatus(req, res, e);
      else res.destroy();
    });
  };
}

async function handle(options: ConfigHandlerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'https://machine-config-server').pathname;
  const readOnly = req.method === 'GET' || req.method === 'HEAD';
  if (path === '/healthz') {
    if (!readOnly) return writeStatus(req, res, methodNotAllowed());
    return write(req, res, 200, 'text/plain; charset=utf-8', 'ok');
  }
  const expected = options.bootstrapToken();
  if (!expected) {
    return writeStatus(req, res, new ApiError(503, 'ServiceUnavailable', `the machine-config server has no bootstrap token yet (Secret ${options.namespace}/${machineConfigServer.bootstrapTokenSecret}, key "${machineConfigServer.bootstrapTokenKey}")`), { 'Retry-After': '5' });
  }
  const check = checkBearer(req.headers.authorization, expected);
  if (check === 'missing') {
    const err = new ApiError(401, 'Unauthorized', 'Unauthorized: the machine-config server answers only a bootstrap token (Authorization: Bearer <token>)');
    return writeStatus(req, res, err, { 'WWW-Authenticate': 'Bearer realm="machine-config-server"' });
  }
  if (check === 'wrong') return writeStatus(req, res, new ApiError(403, 'Forbidden', 'forbidden: the bearer token is not the machine-config server\'s bootstrap token'));

  const m = /^\/config\/([^/]+)$/.exec(path);
  if (!m) return writeStatus(req, res, new ApiError(404, 'NotFound', 'the server could not find the requested resource'));
  if (!readOnly) return writeStatus(req, res, methodNotAllowed());
  let poolName: string;
  try {
    poolName = decodeURIComponent(m[1]!);
  } catch {
    poolName = m[1]!;
  }
  const nameProblems = isDns1123Subdomain(poolName);
  if (nameProblems.length > 0) {
    const message = `invalid pool name ${JSON.stringify(poolName)}: ${nameProblems.join(', ')}`;
    return writeStatus(req, res, badRequest(message, { name: poolName, ...poolResource, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: nameProblems.join(', ') }] }));
  }
  const accept = req.headers.accept;
  options.logger.info({ pool: poolName, address: req.socket.remoteAddress, userAgent: req.headers['user-agent'], accept }, 'pool requested');
  const negotiated = negotiateVersion(accept);
  if (!negotiated.ok) {
    return writeStatus(req, res, badRequest(negotiated.message, { name: poolName, ...poolResource, causes: [{ reason: 'FieldValueNotSupported', field: 'Accept', message: negotiated.message }] }));
  }

  const pool = await options.client.getIfExists<MachineConfigPool>(resources.machineConfigPools, undefined, poolName);
  if (!pool) return writeStatus(req, res, notFound(poolResource, poolName));
  const renderedName = servedConfigName(pool);
  if (!renderedName) {
    return writeStatus(req, res, new ApiError(503, 'ServiceUnavailable', `MachineConfigPool "${poolName}" has no rendered configuration yet`, { name: poolName, ...poolResource, retryAfterSeconds: 5 }), { 'Retry-After': '5' });
  }
  const rendered = await options.client.getIfExists<MachineConfig>(resources.machineConfigs, undefined, renderedName);
  if (!rendered) {
    return writeStatus(req, res, new ApiError(500, 'InternalError', `MachineConfig "${renderedName}", which MachineConfigPool "${poolName}" serves, does not exist`, { name: renderedName, ...configResource }));
  }

  const apiServer = await options.apiServer();
  const token = await mintServiceAccountToken(options.client, {
    namespace: options.namespace,
    serviceAccount: machineConfigServer.nodeBootstrapperServiceAccount,
    expirationSeconds: options.nodeTokenExpirationSeconds,
  });
  const served = servedConfig({
    renderedName,
    config: rendered.spec?.config,
    bootstrapKubeconfig: nodeBootstrapKubeconfig({ server: apiServer.url, caPem: apiServer.caPem, token }),
    version: negotiated.version,
  });
  if (!served.ok) {
    const causes = served.problems.map((p) => cause(p));
    if (served.reason === 'unreadable') {
      return writeStatus(req, res, new ApiError(500, 'InternalError', `MachineConfig "${renderedName}" holds an Ignition config that does not parse: ${served.problems.map(formatProblem).join('; ')}`, { name: renderedName, ...configResource, causes }));
    }
    const message = `MachineConfig "${renderedName}" cannot be served as Ignition ${negotiated.version}: ${served.problems.map((p) => formatProblem({ ...p, path: configField(p.path) })).join('; ')}`;
    return writeStatus(req, res, badRequest(message, { name: renderedName, ...configResource, causes }));
  }
  options.logger.info({ pool: poolName, config: renderedName, version: negotiated.version }, 'served config');
  // The body carries a credential: nothing on the way may keep it.
  return write(req, res, 200, 'application/json', JSON.stringify(served.body), { 'Cache-Control': 'no-store' });
}

function configField(ignitionPath: string): string {
  return ignitionPath ? `spec.config.${ignitionPath}` : 'spec.config';
}

function cause(p: ConfigProblem): StatusCause {
  return { reason: 'FieldValueNotSupported', field: configField(p.path), message: p.message };
}

function badRequest(message: string, details: StatusDetails): ApiError {
  return new ApiError(400, 'BadRequest', message, details);
}

function notFound(resource: { group: string; kind: string }, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${resource.kind}.${resource.group} "${name}" not found`, { name, ...resource });
}

function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

/** An API server's answer passed on would mislead (its 403 is about our ServiceAccount, not the caller): every such failure is the server's. */
function toServerError(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(500, 'InternalError', `the machine-config server could not serve the config: ${message}`);
}

function writeStatus(req: IncomingMessage, res: ServerResponse, err: ApiError, headers: Record<string, string> = {}): void {
  const extra = err.code === 405 ? { Allow: 'GET, HEAD', ...headers } : headers;
  write(req, res, err.code, 'application/json', JSON.stringify(err.toStatus()), extra);
}

function write(req: IncomingMessage, res: ServerResponse, code: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': String(bytes.length), ...headers });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}
