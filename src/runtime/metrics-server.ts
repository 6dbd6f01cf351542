/**
 * A component's `/metrics` endpoint: its metrics registry in Prometheus' text format over plain
 * HTTP on one address (a pod's IP, as controllers serve theirs), plus `/healthz`. Stops when
 * the signal aborts.
 *
 * Or guarded, as controller-runtime's secure metrics serving does it (no proxy process beside
 * the component): HTTPS with a mounted serving certificate, reloaded when it changes
 * (serving-cert.ts), and every request let through only once the API server has said who the
 * caller is and that they may read it (delegated-auth.ts).
 *
 * Or on a Unix socket, for a reader in the same pod: on the host network a fixed loopback port
 * would be taken by the first node's component, since every node of a Shipyard datacenter
 * shares the machine's loopback.
 */
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from '../api/prometheus.ts';
import type { Cancel } from './clock.ts';
import type { DelegatedAuth } from './delegated-auth.ts';
import type { Logger } from './logger.ts';
import { MIN_TLS_VERSION, readServingPair, reloadServingCert } from './serving-cert.ts';
import { socketPath } from './unix-socket.ts';

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** `host:port`; the host must be a 127.0.0.0/8 address (every Shipyard address is loopback). Port 0 picks one. */
  readonly address?: string;
  /** A Unix socket path instead of `address`; a socket file left there by an earlier run is replaced. */
  readonly socketPath?: string;
  readonly signal: AbortSignal;
  /** Serve HTTPS with this pair (read again every `reloadIntervalMs`, default 30 s); needs `logger`. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly reloadIntervalMs?: number };
  /** Answer only callers it allows, every path included; needs `logger` (for reviews that fail). */
  readonly auth?: DelegatedAuth;
  readonly logger?: Logger;
}

export interface RunningMetricsServer {
  /** Where it listens, as `host:port` (or `unix:<path>`). */
  readonly address: string;
  /** Resolves once the server has closed, after the signal aborted. */
  readonly closed: Promise<void>;
}

/** Splits `host:port`, refusing anything but a loopback IPv4 address and a port number. */
export function parseMetricsAddress(address: string): { host: string; port: number } {
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(address);
  if (!m || m[1]!.split('.').some((o) => Number(o) > 255) || Number(m[2]) > 65535) {
    throw new Error(`metrics address "${address}" must be host:port with a host in 127.0.0.0/8`);
  }
  return { host: m[1]!, port: Number(m[2]) };
}

export async function serveMetrics(o: MetricsServerOptions): Promise<RunningMetricsServer> {
  if ((o.address === undefined) === (o.socketPath === undefined)) throw new Error('metrics server: give either an address or a socket path');
  const tcp = o.address === undefined ? undefined : parseMetricsAddress(o.address);
  // Container paths are long; a socket's may not be (unix-socket.ts).
  const socket = o.socketPath === undefined ? undefined : socketPath(o.socketPath);
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      return;
    }
    o.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': o.registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
    );
  };
  const guarded = o.auth === undefined ? serve : guard(o.auth, o.logger, serve);
  let server: Server | HttpsServer;
  let stopReload: Cancel = () => {};
  if (o.tls) {
    if (!o.logger) throw new Error('metrics server: serving TLS needs a logger');
    const pair = readServingPair(o.tls.certFile, o.tls.keyFile);
    const https = createHttpsServer({ ...pair, minVersion: MIN_TLS_VERSION }, guarded);
    server = https;
    stopReload = reloadServingCert(https, { certFile: o.tls.certFile, keyFile: o.tls.keyFile, initial: pair, logger: o.logger, intervalMs: o.tls.reloadIntervalMs });
  } else server = createServer(guarded);
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => {
      socket?.close();
      reject(err);
    };
    server.once('error', failed);
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    if (tcp) server.listen(tcp.port, tcp.host, listening);
    else {
      // A socket file outlives the process that made it; a restarted component would find it in the way.
      rmSync(o.socketPath!, { force: true });
      server.listen(socket!.path, listening);
    }
  });
  const closed = new Promise<void>((resolve) => {
    const close = () => {
      stopReload();
      server.close(() => {
        socket?.close();
        resolve();
      });
      server.closeAllConnections();
    };
    if (o.signal.aborted) close();
    else o.signal.addEventListener('abort', close, { once: true });
  });
  if (!tcp) return { address: `unix:${o.socketPath}`, closed };
  const bound = server.address() as AddressInfo;
  return { address: `${bound.address}:${bound.port}`, closed };
}

function guard(auth: DelegatedAuth, logger: Logger | undefined, next: (req: IncomingMessage, res: ServerResponse) => void) {
  if (!logger) throw new Error('metrics server: a guarded one needs a logger');
  return (req: IncomingMessage, res: ServerResponse): void => {
    void auth.check(req).then((d) => {
      if (d.allowed) return next(req, res);
      if (d.cause) logger.warn({ err: d.cause, path: req.url }, 'metrics request not reviewed');
      res.writeHead(d.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${d.message}\n`);
    });
  };
}
