/**
 * The cloud's HTTP API, JSON over plain HTTP on a loopback address, every `/v1` route behind
 * the bearer token (`token.ts`):
 *
 * ```
 * POST   /v1/instances                     {name, type, zone?, userData?, tags?} → 201 instance
 * GET    /v1/instances[?name=&state=&tag:<key>=<value>]                        → {items}
 * GET    /v1/instances/{id}                                                   → instance
 * POST   /v1/instances/{id}/stop|start|reboot                                 → instance
 * DELETE /v1/instances/{id}                                                   → instance (shutting-down)
 * GET    /v1/zones, /v1/instance-types                                        → {items}
 * GET    /healthz (no token)
 * ```
 * Errors are `{code, reason, message, field?}` (`errors.ts`). Bad input — malformed JSON, wrong
 * types, oversized bodies, unknown routes — is a 4xx, never a crash. Instances are returned
 * without their user data: it may hold secrets, and no client needs it back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { instanceTypes, region, zones } from './catalog.ts';
import { assertLoopbackHost, dialAddress } from '../cloudclient/loopback.ts';
import { instanceStates as states, type InstanceFilter, type InstanceState, type InstanceView } from '../cloudclient/types.ts';
import type { Cloud } from './cloud.ts';
import { maxUserDataBytes } from './run-input.ts';
import { CloudError } from './errors.ts';
import type { Instance } from './state.ts';
import { ensureCloudToken, tokensEqual } from './token.ts';

export interface CloudServerOptions {
  readonly cloud: Cloud;
  readonly dataDir: string;
  /** Loopback address to bind; default 127.0.0.1. */
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Overrides the token file (tests); otherwise `<dataDir>/cloud/token`, made if missing. */
  readonly token?: string;
  readonly logger?: Logger;
}

export interface CloudServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** User data plus room for the rest of a launch request. */
const maxBodyBytes = maxUserDataBytes * 2 + 64 * 1024;

export function instanceView(i: Instance): InstanceView {
  const { userData: _omitted, ...view } = i;
  return view;
}

export async function startCloudServer(options: CloudServerOptions): Promise<CloudServer> {
  const host = options.host ?? '127.0.0.1';
  assertLoopbackHost(host, 'to serve the cloud API');
  const token = options.token ?? (await ensureCloudToken(options.dataDir));
  const log = options.logger ?? pino({ enabled: false });
  const server = createServer((req, res) => {
    handle(req, res, options.cloud, token, log).catch((err: unknown) => {
      log.error({ err: (err as Error).message }, 'cloud API handler failed');
      if (!res.headersSent) send(res, 500, new CloudError('InternalError', 'internal error').toJSON());
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await listen(server, dialAddress(host), options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  log.info({ host, port }, 'cloud API listening');
  return {
    url: `http://${host}:${port}`,
    host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, cloud: Cloud, token: string, log: Logger): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://cloud.invalid');
  const method = req.method ?? 'GET';
  log.debug({ method, path: url.pathname }, 'request');
  if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
  if (!authorized(req, token)) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    req.resume();
    return send(res, 401, new CloudError('Unauthorized', 'a valid bearer token is required').toJSON());
  }
  try {
    const result = await route(method, url, req, cloud);
    send(res, result.status, result.body);
  } catch (err) {
    req.resume();
    if (err instanceof CloudError) {
      if (err instanceof MethodNotAllowed) res.setHeader('Allow', err.allowed.join(', '));
      return send(res, err.code, err.toJSON());
    }
    throw err;
  }
}

function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return !!m && tokensEqual(m[1]!, token);
}

type Result = { status: number; body: unknown };

async function route(method: string, url: URL, req: IncomingMessage, cloud: Cloud): Promise<Result> {
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] !== 'v1') throw new CloudError('NotFound', `no route for ${url.pathname}`);
  const [, collection, id, action, ...rest] = parts;
  if (collection === 'zones' && parts.length === 2) {
    allow(method, ['GET']);
    return ok({ region, items: zones.map((name) => ({ name, region, state: 'available' })) });
  }
  if (collection === 'instance-types' && parts.length === 2) {
    allow(method, ['GET']);
    return ok({ items: instanceTypes });
  }
  if (collection !== 'instances' || rest.length > 0) throw new CloudError('NotFound', `no route for ${url.pathname}`);
  if (id === undefined) {
    allow(method, ['GET', 'POST']);
    if (method === 'GET') return ok({ items: cloud.list(filterFrom(url)).map(instanceView) });
    const body = await readJson(req);
    return { status: 201, body: instanceView(await cloud.runInstance(body as Parameters<Cloud['runInstance']>[0])) };
  }
  if (action === undefined) {
    allow(method, ['GET', 'DELETE']);
    if (method === 'DELETE') return ok(instanceView(await cloud.terminate(id)));
    const instance = cloud.get(id);
    if (!instance) throw new CloudError('InstanceNotFound', `instance "${id}" does not exist`);
    return ok(instanceView(instance));
  }
  allow(method, ['POST']);
  if (action === 'stop') return ok(instanceView(await cloud.stop(id)));
  if (action === 'start') return ok(instanceView(await cloud.start(id)));
  if (action === 'reboot') return ok(instanceView(await cloud.reboot(id)));
  throw new CloudError('NotFound', `unknown action "${action}" (known: stop, start, reboot)`);
}

function ok(body: unknown): Result {
  return { status: 200, body };
}

class MethodNotAllowed extends CloudError {
  constructor(
    method: string,
    readonly allowed: readonly string[],
  ) {
    super('MethodNotAllowed', `method ${method} is not allowed here (allowed: ${allowed.join(', ')})`);
  }
}

function allow(method: string, methods: readonly string[]): void {
  if (!methods.includes(method)) throw new MethodNotAllowed(method, methods);
}

function filterFrom(url: URL): InstanceFilter {
  const tags: Record<string, string> = {};
  let name: string | undefined;
  let state: InstanceState | undefined;
  for (const [key, value] of url.searchParams) {
    if (key === 'name') name = value;
    else if (key === 'state') {
      if (!(states as readonly string[]).includes(value)) throw new CloudError('InvalidParameterValue', `state "${value}" is unknown (known: ${states.join(', ')})`, 'state');
      state = value as InstanceState;
    } else if (key.startsWith('tag:') && key.length > 4) tags[key.slice(4)] = value;
    else throw new CloudError('InvalidParameterValue', `unknown query parameter "${key}" (known: name, state, tag:<key>)`, key);
  }
  return { ...(name !== undefined ? { name } : {}), ...(state ? { state } : {}), ...(Object.keys(tags).length ? { tags } : {}) };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new CloudError('UnsupportedMediaType', `content type must be application/json, not ${JSON.stringify(type || 'none')}`);
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) throw new CloudError('PayloadTooLarge', `request body exceeds ${maxBodyBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new CloudError('PayloadTooLarge', `request body exceeds ${maxBodyBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new CloudError('BadRequest', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}
