/**
 * Test support: a freshly started API server on a temporary data directory, and a real
 * kubectl pointed at it (its own discovery cache, so tests do not share one).
 * kubectl runs asynchronously: the server lives in this process and must keep serving.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../src/apiserver/server.ts';
import { createDisruptionController } from '../../src/cluster/disruption/controller.ts';
import { createGarbageCollector } from '../../src/cluster/garbagecollector/controller.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import type { Controller } from '../../src/runtime/controller.ts';
import { startManager } from '../../src/runtime/manager.ts';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface TestServer {
  readonly server: RunningApiServer;
  readonly dataDir: string;
  /** Runs kubectl; never throws on a non-zero exit (assert on `code`). */
  kubectl(args: readonly string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<KubectlResult>;
  /** Starts a long-running kubectl (e.g. `get -w`); kill it when done. */
  spawnKubectl(args: readonly string[]): ChildProcess;
  /** An authenticated request with Node's fetch-less https client; returns status, headers and body text. */
  request(method: string, path: string, opts?: { body?: string | Buffer; contentType?: string; accept?: string; token?: string | null }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>;
  /** Stops the controllers and the server; calling it again waits for the first call. */
  stop(): Promise<void>;
}

export interface TestServerOptions extends Partial<ApiServerOptions> {
  /**
   * Controllers to run in this process against the server, as the controller-manager would:
   * `true` means the ones API semantics rely on (the garbage collector, PodDisruptionBudget
   * status); a function builds others.
   */
  readonly controllers?: true | ((ctx: ControllerContext) => Controller[]);
}

/** The controllers that finish what the API starts: cascading deletion and disruption budgets. */
export const apiSemanticsControllers = (ctx: ControllerContext): Controller[] => [createGarbageCollector(ctx, { resyncPeriodMs: 2000 }), createDisruptionController(ctx)];

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'shipyard-test-'));
  // A directory made here is removed here: by stop(), or at once if the server does not start.
  const removeDataDir = () => {
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const { controllers, ...serverOptions } = options;
  const server = await startApiServer({ port: 0, logger: pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' }), compactionIntervalMs: 0, ...serverOptions, dataDir }).catch((err: unknown) => {
    removeDataDir();
    throw err;
  });
  const stopControllers = new AbortController();
  let manager: Promise<void> = Promise.resolve();
  if (controllers) {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(server.kubeconfigPath);
    manager = startManager({
      component: 'test-controllers',
      kubeConfig,
      signal: stopControllers.signal,
      logger: pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' }),
      controllers: controllers === true ? apiSemanticsControllers : controllers,
    }).done;
  }
  const cacheDir = join(dataDir, 'kubectl-cache');
  const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: cacheDir, HOME: dataDir };
  const https = await import('node:https');
  let stopping: Promise<void> | undefined;
  return {
    server,
    dataDir,
    kubectl(args, opts = {}) {
      return new Promise((resolve) => {
        const child = execFile('kubectl', ['--cache-dir', cacheDir, ...args], { env: { ...env, ...(opts.env ?? {}) }, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        });
        if (opts.input !== undefined) {
          // kubectl may exit (a usage error, say) before reading its input: the closed pipe is not the test's failure.
          child.stdin?.on('error', () => {});
          child.stdin?.end(opts.input);
        }
      });
    },
    spawnKubectl(args) {
      return spawn('kubectl', ['--cache-dir', cacheDir, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    },
    request(method, path, opts = {}) {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = {};
        const token = opts.token === undefined ? server.adminToken : opts.token;
        if (token !== null) headers.authorization = `Bearer ${token}`;
        if (opts.contentType) headers['content-type'] = opts.contentType;
        if (opts.accept) headers.accept = opts.accept;
        // Without a length Node would send the body unframed on a DELETE, and the server would read it as a new request.
        if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
        const req = https.request(server.url + path, { method, headers, ca: server.caCertPem }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        if (opts.body !== undefined) req.end(opts.body);
        else req.end();
      });
    },
    stop() {
      return (stopping ??= (async () => {
        try {
          stopControllers.abort();
          await manager.catch(() => {});
          await server.close();
        } finally {
          removeDataDir();
        }
      })());
    },
  };
}
