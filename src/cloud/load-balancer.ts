/**
 * A TCP load balancer, as a cloud's network load balancer fronts the kube-apiserver replicas at
 * the address in the admin kubeconfig (127.0.0.1:6443). Each connection goes to the next
 * healthy backend in round-robin order; if that backend refuses the connection, the next is
 * tried and the failed one is marked unhealthy until health checks pass again. Health checks
 * run every `intervalMs`: a TCP connect, or an HTTPS GET whose 2xx/3xx answer means healthy
 * (the apiserver's `/readyz`); `unhealthyThreshold` failures in a row take a backend out of
 * rotation and `healthyThreshold` passes put it back, as a cloud load balancer's target health
 * does. With the default thresholds of 1, a replica whose `/readyz` starts failing (one that
 * is shutting down) gets no new connection after the next check. Established connections are
 * never cut by the balancer: they end when the backend or the client ends them, which is what
 * lets a replica that is shutting down finish what it is answering. When no backend is healthy
 * every backend is still tried, as cloud load balancers fail open. TLS passes through
 * untouched; the balancer never sees it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { request } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import pino, { type Logger } from 'pino';
import { assertLoopbackHost, dialAddress } from '../cloudclient/loopback.ts';

export interface Backend {
  readonly host: string;
  readonly port: number;
}

export type HealthCheck =
  | { readonly kind: 'tcp' }
  /** Without `ca` the certificate is not verified: the probe asks "is it up", not "is it who it says". With it, the chain is. */
  | { readonly kind: 'https'; readonly path: string; readonly ca?: string | Buffer };

export interface LoadBalancerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly backends: readonly Backend[];
  /** Default: TCP connect. */
  readonly healthCheck?: HealthCheck;
  /** Default 5 s. */
  readonly intervalMs?: number;
  /** Failed checks in a row that take a backend out of rotation (default 1). */
  readonly unhealthyThreshold?: number;
  /** Passed checks in a row that put it back (default 1). */
  readonly healthyThreshold?: number;
  /** Per health check and per backend connect attempt. Default 2 s. */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

export interface BackendStatus extends Backend {
  readonly healthy: boolean;
}

export interface LoadBalancer {
  readonly host: string;
  readonly port: number;
  /** Replaces the backend list; backends kept keep their health, new ones are checked at once. */
  setBackends(backends: readonly Backend[]): void;
  backends(): BackendStatus[];
  /** Runs one round of health checks now (also what the interval does). */
  checkNow(): Promise<void>;
  close(): Promise<void>;
}

interface Entry extends Backend {
  healthy: boolean;
  /** Checks in a row that disagreed with `healthy`. */
  streak: number;
  /** The check under way: a slow one delays no other backend's. */
  probing?: Promise<void>;
}

const keyOf = (b: Backend): string => `${b.host}:${b.port}`;

export async function startLoadBalancer(options: LoadBalancerOptions): Promise<LoadBalancer> {
  assertLoopbackHost(options.host, 'to bind the load balancer');
  const check = options.healthCheck ?? { kind: 'tcp' };
  // Made once: a CA given per request is parsed into a new context at every probe (six a
  // second in a 3-master datacenter), which left `shipyard up`'s malloc heap at 16 MiB
  // instead of 5 and cost a fifth more CPU per probe (measured over 1,500 probes).
  const tlsContext = check.kind === 'https' && check.ca ? createSecureContext({ ca: check.ca }) : undefined;
  const intervalMs = options.intervalMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  const unhealthyThreshold = threshold(options.unhealthyThreshold, 'unhealthyThreshold');
  const healthyThreshold = threshold(options.healthyThreshold, 'healthyThreshold');
  const log = options.logger ?? pino({ enabled: false });
  let entries: Entry[] = [];
  let cursor = 0;
  let closed = false;
  const sockets = new Set<Socket>();

  const markHealth = (e: Entry, healthy: boolean): void => {
    if (e.healthy !== healthy) log.info({ backend: keyOf(e), healthy }, 'backend health changed');
    e.healthy = healthy;
    e.streak = 0;
  };

  const probeOnce = async (e: Entry): Promise<void> => {
    const healthy = check.kind === 'tcp' ? await tcpProbe(e, timeoutMs) : await httpsProbe(e, check, tlsContext, timeoutMs);
    // The backend may have been removed while the probe ran; only a current entry is updated.
    if (!entries.includes(e)) return;
    if (healthy === e.healthy) e.streak = 0;
    else if (++e.streak >= (healthy ? healthyThreshold : unhealthyThreshold)) markHealth(e, healthy);
  };
  const probe = (e: Entry): Promise<void> =>
    (e.probing ??= probeOnce(e).finally(() => {
      e.probing = undefined;
    }));
  const checkNow = (): Promise<void> => Promise.all(entries.map(probe)).then(() => undefined);

  const setBackends = (backends: readonly Backend[]): void => {
    for (const b of backends) assertLoopbackHost(b.host, `to use ${keyOf(b)} as a load balancer backend`);
    const old = new Map(entries.map((e) => [keyOf(e), e]));
    const fresh: Entry[] = [];
    entries = backends.map((b) => {
      const existing = old.get(keyOf(b));
      if (existing) return existing;
      const e: Entry = { host: b.host, port: b.port, healthy: true, streak: 0 };
      fresh.push(e);
      return e;
    });
    // Start optimistic, then find out: a backend added while the cluster comes up is usually fine.
    for (const e of fresh) void probe(e);
  };
  setBackends(options.backends);

  /** Healthy backends from the round-robin cursor on, then the unhealthy ones as a last resort. */
  const order = (): Entry[] => {
    const n = entries.length;
    if (n === 0) return [];
    const start = cursor++ % n;
    const rotated = [...entries.slice(start), ...entries.slice(0, start)];
    return [...rotated.filter((e) => e.healthy), ...rotated.filter((e) => !e.healthy)];
  };

  const forward = async (client: Socket): Promise<void> => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    for (const backend of order()) {
      const upstream = await dial(backend, timeoutMs).catch(() => undefined);
      if (client.destroyed || closed) {
        upstream?.destroy();
        return;
      }
      if (!upstream) {
        markHealth(backend, false);
        continue;
      }
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      splice(client, upstream);
      client.resume();
      return;
    }
    log.warn('no backend accepted the connection');
    client.destroy();
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => void forward(client));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, dialAddress(options.host), () => {
      server.off('error', reject);
      resolve();
    });
  });
  const timer = setInterval(() => void checkNow(), intervalMs);
  timer.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  log.info({ host: options.host, port, backends: entries.map(keyOf) }, 'load balancer listening');

  return {
    host: options.host,
    port,
    setBackends,
    backends: () => entries.map((e) => ({ host: e.host, port: e.port, healthy: e.healthy })),
    checkNow,
    close: async () => {
      closed = true;
      clearInterval(timer);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await stopped;
    },
  };
}

function threshold(value: number | undefined, name: string): number {
  if (value === undefined) return 1;
  if (!Number.isInteger(value) || value < 1) throw new Error(`load balancer: ${name} must be a whole number of checks, at least 1 (got ${value})`);
  return value;
}

function dial(b: Backend, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: dialAddress(b.host), port: b.port });
    s.setTimeout(timeoutMs, () => s.destroy(new Error('connect timeout')));
    s.once('connect', () => {
      s.setTimeout(0);
      s.removeListener('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/** Bytes both ways; when one side goes away the other is ended once its writes are flushed. */
function splice(a: Socket, b: Socket): void {
  a.setNoDelay(true);
  b.setNoDelay(true);
  a.pipe(b);
  b.pipe(a);
  const closeOther = (other: Socket) => () => {
    if (other.destroyed) return;
    other.end();
    other.once('finish', () => other.destroy());
  };
  a.on('close', closeOther(b));
  b.on('close', closeOther(a));
  a.on('error', () => a.destroy());
  b.on('error', () => b.destroy());
}

async function tcpProbe(b: Backend, timeoutMs: number): Promise<boolean> {
  try {
    (await dial(b, timeoutMs)).destroy();
    return true;
  } catch {
    return false;
  }
}

function httpsProbe(b: Backend, check: Extract<HealthCheck, { kind: 'https' }>, tlsContext: SecureContext | undefined, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: dialAddress(b.host),
        port: b.port,
        path: check.path,
        method: 'GET',
        agent: false,
        // With a CA the chain is checked but not the name: backends are dialled by address, and
        // whether a replica's certificate names that address is the clients' concern, not the probe's.
        ...(tlsContext ? { secureContext: tlsContext, checkServerIdentity: () => undefined } : { rejectUnauthorized: false }),
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(status >= 200 && status < 400);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}
