/**
 * `shipyard node stop-kubelet|start-kubelet|reboot NODE` reaches the running `shipyard up`
 * through a Unix socket in its data directory (`run/control.sock`, mode 0600): the kubelets
 * live in that process, and only its owner may stop them.
 */
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';

export type NodeAction = 'stop-kubelet' | 'start-kubelet' | 'reboot';
export const nodeActions: readonly NodeAction[] = ['stop-kubelet', 'start-kubelet', 'reboot'];

export interface ControlHandlers {
  node(action: NodeAction, name: string): Promise<string>;
}

export function controlSocketPath(dataDir: string): string {
  return join(dataDir, 'run', 'control.sock');
}

export async function startControlServer(dataDir: string, handlers: ControlHandlers): Promise<Server> {
  const path = controlSocketPath(dataDir);
  mkdirSync(join(dataDir, 'run'), { recursive: true });
  if (existsSync(path)) rmSync(path);
  const server = createServer((req, res) => {
    const m = /^\/nodes\/([^/]+)\/([a-z-]+)$/.exec(req.url ?? '');
    const reply = (code: number, message: string): void => {
      res.writeHead(code, { 'Content-Type': 'text/plain' });
      res.end(message + '\n');
    };
    if (req.method !== 'POST' || !m) return reply(404, `no such operation: ${req.method} ${req.url}`);
    const action = m[2] as NodeAction;
    if (!nodeActions.includes(action)) return reply(400, `unknown node action "${action}"; known: ${nodeActions.join(', ')}`);
    handlers.node(action, decodeURIComponent(m[1]!)).then(
      (msg) => reply(200, msg),
      (err: unknown) => reply(400, err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

export function sendNodeAction(dataDir: string, action: NodeAction, name: string): Promise<string> {
  const socketPath = controlSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.reject(new Error(`no running cluster in ${dataDir} (start it with \`shipyard up --data-dir ${dataDir}\`)`));
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method: 'POST', path: `/nodes/${encodeURIComponent(name)}/${action}` }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => ((res.statusCode ?? 500) < 300 ? resolve(body.trim()) : reject(new Error(body.trim()))));
    });
    req.on('error', (err) => reject(new Error(`cannot reach the running cluster in ${dataDir}: ${err.message}`)));
    req.end();
  });
}
