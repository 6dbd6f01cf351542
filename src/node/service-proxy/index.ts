/**
 * The service proxy: kube-proxy's userspace mode on the loopback device. Every Service
 * ClusterIP is a 127.64.x.y address, which Linux already routes to lo, so the proxy simply
 * listens on `clusterIP:port` and pipes each connection to a ready endpoint, round-robin,
 * trying the next when one refuses. One proxy serves every node: they share the device.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { V1Endpoints, V1Service } from '@kubernetes/client-node';
import type { InformerFactory } from '../../runtime/informer-factory.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';

export interface ServiceProxyOptions {
  informers: InformerFactory;
  logger: Logger;
  signal: AbortSignal;
  retryMs?: number;
}

export interface ServiceProxy {
  status(): { listeners: number };
  readonly done: Promise<void>;
}

interface Listener {
  server?: Server;
  key: string;
  service: string;
  portName: string;
  next: number;
  retry?: NodeJS.Timeout;
  closed: boolean;
}

export function startServiceProxy(o: ServiceProxyOptions): ServiceProxy {
  const services = o.informers.informer<V1Service>(resources.services);
  const endpoints = o.informers.informer<V1Endpoints>(resources.endpoints);
  const listeners = new Map<string, Listener>();
  const retryMs = o.retryMs ?? 2000;

  const targets = (service: string, portName: string): { host: string; port: number }[] => {
    const ep = endpoints.store.get(service);
    const out: { host: string; port: number }[] = [];
    for (const subset of ep?.subsets ?? []) {
      const port = (subset.ports ?? []).find((p) => (p.name ?? '') === portName) ?? (subset.ports?.length === 1 ? subset.ports[0] : undefined);
      if (!port) continue;
      for (const a of subset.addresses ?? []) out.push({ host: a.ip, port: port.port });
    }
    return out;
  };

  const forward = (l: Listener, client: Socket): void => {
    const list = targets(l.service, l.portName);
    o.logger.debug({ service: l.service, endpoints: list.map((t) => `${t.host}:${t.port}`), next: l.next }, 'proxying a connection');
    if (!list.length) {
      // As kube-proxy's REJECT: fail fast rather than hang the client.
      client.destroy();
      return;
    }
    client.pause();
    let attempt = 0;
    const tryNext = (): void => {
      if (attempt >= list.length) {
        client.destroy();
        return;
      }
      const t = list[(l.next + attempt) % list.length]!;
      attempt++;
      const upstream = connect({ host: t.host, port: t.port });
      upstream.once('connect', () => {
        l.next = (l.next + attempt) % Math.max(1, list.length);
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      upstream.once('error', (err) => {
        o.logger.debug({ service: l.service, endpoint: `${t.host}:${t.port}`, err: err.message }, 'endpoint refused; trying the next');
        tryNext();
      });
    };
    tryNext();
  };

  const open = (l: Listener, host: string, port: number): void => {
    const server = createServer((c) => forward(l, c));
    server.on('error', (err: NodeJS.ErrnoException) => {
      o.logger.warn({ service: l.service, address: `${host}:${port}`, code: err.code }, 'service proxy cannot listen; retrying');
      server.close();
      if (!l.closed) l.retry = setTimeout(() => open(l, host, port), retryMs);
    });
    server.listen(port, host, () => {
      if (l.closed) server.close();
    });
    l.server = server;
  };

  const sync = (svc: DeepReadonly<V1Service>): void => {
    const name = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    const ip = svc.spec?.clusterIP;
    const wanted = new Map<string, { port: number; portName: string }>();
    if (ip && ip !== 'None' && /^127\./.test(ip)) {
      for (const p of svc.spec?.ports ?? []) if ((p.protocol ?? 'TCP') === 'TCP') wanted.set(`${name}|${ip}:${p.port}`, { port: p.port, portName: p.name ?? '' });
    }
    for (const [key, l] of listeners) {
      if (l.service === name && !wanted.has(key)) close(key);
    }
    for (const [key, w] of wanted) {
      if (listeners.has(key)) continue;
      const l: Listener = { key, service: name, portName: w.portName, next: 0, closed: false };
      listeners.set(key, l);
      open(l, ip!, w.port);
    }
  };

  const close = (key: string): void => {
    const l = listeners.get(key);
    if (!l) return;
    l.closed = true;
    clearTimeout(l.retry);
    l.server?.close();
    listeners.delete(key);
  };

  services.on('add', sync);
  services.on('update', sync);
  services.on('delete', (svc) => {
    const name = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    for (const [key, l] of listeners) if (l.service === name) close(key);
  });

  const done = new Promise<void>((resolve) => {
    const stop = (): void => {
      for (const key of [...listeners.keys()]) close(key);
      resolve();
    };
    if (o.signal.aborted) stop();
    else o.signal.addEventListener('abort', stop, { once: true });
  });
  return { status: () => ({ listeners: [...listeners.values()].filter((l) => l.server?.listening).length }), done };
}
