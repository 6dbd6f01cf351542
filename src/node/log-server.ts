/**
 * The kubelet's HTTPS endpoint for container logs (kubelet's :10250 `/containerLogs`), which the
 * API server calls to serve `kubectl logs`. Every node binds its own InternalIP, so many nodes
 * of one host each have theirs; a request without the kubelet API token gets 401.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { currentLogPath, previousLogPath, readLog } from './logs.ts';

export interface LogServerOptions {
  host: string;
  port: number;
  tls: { cert: string; key: string };
  token: string;
  nodeDir: string;
}

export interface LogServer {
  readonly port: number;
  close(): Promise<void>;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The newest log directory of a pod's container (a pod name may have had several uids). */
export function findLogDir(nodeDir: string, namespace: string, pod: string, container: string): string | undefined {
  const root = join(nodeDir, 'logs');
  if (!existsSync(root)) return undefined;
  const prefix = `${namespace}_${pod}_`;
  const dirs = readdirSync(root)
    .filter((d) => d.startsWith(prefix) && existsSync(join(root, d, container)))
    .map((d) => join(root, d, container))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return dirs[0];
}

export async function startLogServer(o: LogServerOptions): Promise<LogServer> {
  const expected = digest(`Bearer ${o.token}`);
  const server = createServer({ cert: o.tls.cert, key: o.tls.key }, (req, res) => {
    const presented = req.headers.authorization ?? '';
    if (!timingSafeEqual(digest(presented), expected)) {
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('Unauthorized\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !m) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no such endpoint: ${url.pathname}\n`);
      return;
    }
    const [ns, pod, container] = m.slice(1).map(decodeURIComponent) as [string, string, string];
    const dir = findLogDir(o.nodeDir, ns, pod, container);
    const previous = url.searchParams.get('previous') === 'true';
    const path = dir && (previous ? previousLogPath(dir) : currentLogPath(dir));
    if (!path || !existsSync(path)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no ${previous ? 'previous ' : ''}log for container "${container}" in pod ${ns}/${pod}\n`);
      return;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const tail = url.searchParams.get('tailLines');
    const limit = url.searchParams.get('limitBytes');
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    void (async () => {
      try {
        for await (const line of readLog(path, {
          follow: url.searchParams.get('follow') === 'true' && !previous,
          timestamps: url.searchParams.get('timestamps') === 'true',
          tailLines: tail && /^\d+$/.test(tail) ? Number(tail) : undefined,
          limitBytes: limit && /^\d+$/.test(limit) ? Number(limit) : undefined,
          signal: abort.signal,
        })) {
          if (!res.write(line)) await new Promise((r) => res.once('drain', r));
        }
      } catch {
        // The client went away or the file vanished; either way this response is over.
      }
      res.end();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  server.on('error', () => {});
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
