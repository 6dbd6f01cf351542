/**
 * A watch stream: `GET <path>?watch=true&...`, read as newline-delimited JSON events. It takes
 * the place of @kubernetes/client-node's Watch, with the same call shape, so that a component
 * process need not load client-node at all: that package's every entry point loads all its
 * generated models and APIs, about 80 MiB of a process's memory, more than everything else a
 * controller holds at idle.
 *
 * Watches are long requests, so they get an agent of their own (no socket limit, no sockets
 * kept idle between watches), apart from the ApiClient's pool of short requests. A non-2xx answer ends the watch with an error whose
 * `statusCode` is the HTTP status (the informer relists on 410).
 */
import { Agent, request as httpsRequest } from 'node:https';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { clusterEndpoint, type KubeAccess } from './kubeconfig.ts';

export type WatchQuery = Record<string, string | number | boolean | undefined>;

export class WatchError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
    this.name = 'WatchError';
  }
}

interface Connection {
  url: URL;
  headers: Record<string, string>;
  agent: Agent | HttpAgent;
}

export class WatchClient {
  private connection: Promise<Connection> | undefined;

  constructor(
    private readonly kubeConfig: KubeAccess,
    private readonly accept = 'application/json',
  ) {}

  private connect(): Promise<Connection> {
    this.connection ??= (async () => {
      const { url, headers, tls } = await clusterEndpoint(this.kubeConfig);
      const agent =
        url.protocol === 'https:'
          ? new Agent({ keepAlive: false, ...tls })
          : new HttpAgent({ keepAlive: false });
      return { url, headers, agent };
    })();
    return this.connection;
  }

  /**
   * Starts a watch; `onEvent` gets each event's type and object, `done` is called exactly once
   * when the stream ends (undefined), fails, or is aborted through the returned controller.
   */
  async watch(path: string, query: WatchQuery, onEvent: (type: string, obj: unknown) => void, done: (err: unknown) => void): Promise<AbortController> {
    const conn = await this.connect();
    const qs = new URLSearchParams({ watch: 'true' });
    for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
    const controller = new AbortController();
    let finished = false;
    const finish = (err: unknown): void => {
      if (finished) return;
      finished = true;
      done(err);
    };
    const send = conn.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      {
        protocol: conn.url.protocol,
        hostname: conn.url.hostname,
        port: conn.url.port,
        method: 'GET',
        path: `${conn.url.pathname.replace(/\/$/, '')}${path}?${qs}`,
        headers: { ...conn.headers, Accept: this.accept },
        agent: conn.agent,
        signal: controller.signal,
      },
      (res: IncomingMessage) => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c.length + text.length > 4096 ? '' : c));
          res.on('end', () => finish(new WatchError(`watch ${path}: HTTP ${code}: ${text.slice(0, 500)}`, code)));
          res.on('error', finish);
          return;
        }
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (!line || finished) continue;
            let event: { type?: string; object?: unknown };
            try {
              event = JSON.parse(line) as { type?: string; object?: unknown };
            } catch (err) {
              controller.abort();
              finish(new Error(`watch ${path}: an event is not JSON: ${(err as Error).message}`));
              return;
            }
            onEvent(event.type ?? '', event.object);
          }
        });
        res.on('end', () => finish(undefined));
        res.on('error', finish);
        // A connection that drops mid-stream is a failure, not the end the server chose.
        res.on('close', () => finish(controller.signal.aborted ? controller.signal.reason : res.complete ? undefined : new Error(`watch ${path}: connection closed`)));
      },
    );
    req.on('error', finish);
    req.end();
    return controller;
  }
}

const shared = new WeakMap<KubeAccess, Map<string, WatchClient>>();

/** One watch client (one agent) per kubeconfig and Accept header, shared by its informers. */
export function watchClientFor(kubeConfig: KubeAccess, accept = 'application/json'): WatchClient {
  let byAccept = shared.get(kubeConfig);
  if (!byAccept) shared.set(kubeConfig, (byAccept = new Map()));
  let client = byAccept.get(accept);
  if (!client) byAccept.set(accept, (client = new WatchClient(kubeConfig, accept)));
  return client;
}
