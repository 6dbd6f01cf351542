/**
 * A component's `/metrics` endpoint: its metrics registry in Prometheus' text format over plain
 * HTTP on one address (a pod's IP, as controllers serve theirs), plus `/healthz`. It serves
 * only what the registry holds; whatever guards it (an authenticating proxy in the pod) is the
 * deployment's business. Stops when the signal aborts.
 *
 * Or on a Unix socket, for a component on the host network whose proxy shares a volume with it
 * (the machine-config daemon): a fixed loopback port would be taken by the first node's daemon,
 * since every node of a Shipyard datacenter shares the machine's loopback.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { socketPath } from './unix-socket.ts';

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** `host:port`; the host must be a 127.0.0.0/8 address (every Shipyard address is loopback). Port 0 picks one. */
  readonly address?: string;
  /** A Unix socket path instead of `address`; a socket file left there by an earlier run is replaced. */
  readonly socketPath?: string;
  readonly signal: AbortSignal;
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
  const server: Server = createServer((req, res) => {
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
  });
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
