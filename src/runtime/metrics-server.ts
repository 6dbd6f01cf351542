/**
 * A component's `/metrics` endpoint: its metrics registry in Prometheus' text format over plain
 * HTTP on one address (a pod's IP, as controllers serve theirs), plus `/healthz`. It serves
 * only what the registry holds; whatever guards it (an authenticating proxy in the pod) is the
 * deployment's business. Stops when the signal aborts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServerOptions {
  readonly registry: Registry;
  /** `host:port`; the host must be a 127.0.0.0/8 address (every Shipyard address is loopback). Port 0 picks one. */
  readonly address: string;
  readonly signal: AbortSignal;
}

export interface RunningMetricsServer {
  /** Where it listens, as `host:port`. */
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
  const { host, port } = parseMetricsAddress(o.address);
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
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const closed = new Promise<void>((resolve) => {
    const close = () => {
      server.close(() => resolve());
      server.closeAllConnections();
    };
    if (o.signal.aborted) close();
    else o.signal.addEventListener('abort', close, { once: true });
  });
  const bound = server.address() as AddressInfo;
  return { address: `${bound.address}:${bound.port}`, closed };
}
