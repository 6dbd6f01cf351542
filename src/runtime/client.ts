/**
 * A raw-JSON REST client for any resource, in the spirit of client-go's dynamic client.
 *
 * Controllers need the exact JSON the server sent: @kubernetes/client-node's typed clients turn
 * timestamps into Date objects while its Watch hands out plain JSON, so a cache fed by both
 * would hold two shapes of one object. This client takes its connection settings (server, CA,
 * client certificate, bearer token) from a kubeconfig (client-node's KubeConfig or the lighter
 * ClientConfig of kubeconfig.ts), keeps connections alive, and turns non-2xx responses into `ApiError`s carrying the
 * Kubernetes `Status` (code, reason, message), so callers branch on `reason`, not on text.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import type { KubernetesObject, KubernetesListObject } from '@kubernetes/client-node';
import { clusterEndpoint, type KubeAccess } from './kubeconfig.ts';
import { ApiError, isAlreadyExists, isNotFound, type Status } from '../api/status.ts';
import { collectionPath, objectPath, type ResourceRef } from './resources.ts';

// The error is defined once, in api/ (the apiserver raises the same class); the client's users import it from here.
export { ApiError, errorText, isAlreadyExists, isConflict, isNamespaceTerminating, isNotFound, isTooManyRequests, statusCodeOf } from '../api/status.ts';

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';
const patchContentType: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface RequestOptionsLite {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** Return the body as text instead of parsing JSON (pods/log). */
  raw?: boolean;
  /** The Accept header; default `application/json`. */
  accept?: string;
}

export interface ApiClientOptions {
  /** Sent as User-Agent, so the server's logs and managedFields can tell components apart. */
  userAgent?: string;
  /** Keep-alive sockets per host; default 16. */
  maxSockets?: number;
  /** Per-request deadline in ms; default 60 s (a watch does not go through this client). */
  timeoutMs?: number;
  /**
   * How long a kept-alive socket may sit idle before this client closes it; default 30 s, well
   * inside the API server's 65 s. Node's agent never closes an idle socket itself (a server's
   * `Keep-Alive: timeout` hint only shortens a timeout the agent already has), so the server
   * closes it, and a request handed to the socket as that close arrives fails with "socket hang
   * up". That is likeliest just after the process was busy, because timers run before I/O: a
   * node host of 5,000 kubelets lost 38 pod syncs at once that way. The side that knows the
   * socket is idle closes it, as Go's transport does with IdleConnTimeout.
   */
  idleSocketTimeoutMs?: number;
}

interface Connection {
  url: URL;
  headers: Record<string, string>;
  agent: Agent | HttpAgent;
}

export class ApiClient {
  readonly kubeConfig: KubeAccess;
  private readonly options: ApiClientOptions;
  private connection: Promise<Connection> | undefined;

  constructor(kubeConfig: KubeAccess, options: ApiClientOptions = {}) {
    this.kubeConfig = kubeConfig;
    this.options = options;
  }

  private connect(): Promise<Connection> {
    this.connection ??= (async () => {
      const { url, headers, tls } = await clusterEndpoint(this.kubeConfig);
      if (this.options.userAgent) headers['User-Agent'] = this.options.userAgent;
      const maxSockets = this.options.maxSockets ?? 16;
      // An agent's timeout is the idle timeout of its free sockets; a request's own deadline
      // (timeoutMs) replaces it while the request runs.
      const timeout = this.options.idleSocketTimeoutMs ?? 30_000;
      const agent =
        url.protocol === 'https:'
          ? new Agent({ keepAlive: true, maxSockets, timeout, ...tls })
          : new HttpAgent({ keepAlive: true, maxSockets, timeout });
      return { url, headers, agent };
    })();
    return this.connection;
  }

  /** Closes idle keep-alive sockets, so a stopping component does not hold its process open. */
  close(): void {
    void this.connection?.then((c) => c.agent.destroy(), () => {});
  }

  async request<T>(method: string, path: string, opts: RequestOptionsLite = {}): Promise<T> {
    const conn = await this.connect();
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const fullPath = (conn.url.pathname.replace(/\/$/, '') + path) + (qs.size ? `?${qs}` : '');
    const payload =
      opts.body === undefined ? undefined : typeof opts.body === 'string' || Buffer.isBuffer(opts.body) ? Buffer.from(opts.body as string) : Buffer.from(JSON.stringify(opts.body));
    const headers: Record<string, string> = { ...conn.headers, Accept: opts.accept ?? 'application/json' };
    if (payload) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const send = conn.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        {
          protocol: conn.url.protocol,
          hostname: conn.url.hostname,
          port: conn.url.port,
          method,
          path: fullPath,
          headers,
          agent: conn.agent,
          signal: opts.signal,
          timeout: this.options.timeoutMs ?? 60_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) {
              if (opts.raw) return resolve(text as T);
              try {
                resolve((text ? JSON.parse(text) : undefined) as T);
              } catch (err) {
                reject(new Error(`${method} ${path}: response is not JSON: ${(err as Error).message}`));
              }
              return;
            }
            let status: Partial<Status> = { message: text.slice(0, 500) };
            try {
              const parsed = JSON.parse(text) as Partial<Status>;
              if (parsed && typeof parsed === 'object') status = parsed;
            } catch {
              // Not a Status body (a proxy's error page, say); the text is kept as the message.
            }
            reject(ApiError.received(`${method} ${path}`, code, status));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  get<T extends KubernetesObject>(ref: ResourceRef, namespace: string | undefined, name: string, opts: { signal?: AbortSignal } = {}): Promise<T> {
    return this.request<T>('GET', objectPath(ref, namespace, name), opts);
  }

  list<T extends KubernetesObject>(ref: ResourceRef, namespace?: string, opts: ListOptions & { signal?: AbortSignal; accept?: string } = {}): Promise<KubernetesListObject<T>> {
    const { signal, accept, ...query } = opts;
    return this.request<KubernetesListObject<T>>('GET', collectionPath(ref, namespace), { query: { ...query }, signal, accept });
  }

  /** Lists every page (limit/continue), so a large collection is not fetched in one response. */
  async listAll<T extends KubernetesObject>(ref: ResourceRef, namespace?: string, opts: Omit<ListOptions, 'limit' | 'continue'> & { pageSize?: number; signal?: AbortSignal; accept?: string } = {}): Promise<KubernetesListObject<T>> {
    const { pageSize = 500, ...rest } = opts;
    const items: T[] = [];
    let cont: string | undefined;
    let last: KubernetesListObject<T>;
    do {
      last = await this.list<T>(ref, namespace, { ...rest, limit: pageSize, continue: cont });
      items.push(...last.items);
      cont = last.metadata?._continue ?? (last.metadata as { continue?: string } | undefined)?.continue;
    } while (cont);
    return { ...last, items };
  }

  create<T extends KubernetesObject>(ref: ResourceRef, obj: T, opts: { namespace?: string; fieldManager?: string; dryRun?: boolean } = {}): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    return this.request<T>('POST', collectionPath(ref, namespace), { body: obj, query: { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined } });
  }

  /** PUT, optimistic on `metadata.resourceVersion` when it is set (409 Conflict on a stale write). */
  update<T extends KubernetesObject>(ref: ResourceRef, obj: T, opts: { subresource?: string; fieldManager?: string } = {}): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`update ${ref.resource}: object has no metadata.name`);
    return this.request<T>('PUT', objectPath(ref, obj.metadata?.namespace, name, opts.subresource), { body: obj, query: { fieldManager: opts.fieldManager } });
  }

  updateStatus<T extends KubernetesObject>(ref: ResourceRef, obj: T): Promise<T> {
    return this.update(ref, obj, { subresource: 'status' });
  }

  patch<T extends KubernetesObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    opts: { type?: PatchType; subresource?: string; fieldManager?: string; force?: boolean } = {},
  ): Promise<T> {
    const type = opts.type ?? 'merge';
    return this.request<T>('PATCH', objectPath(ref, namespace, name, opts.subresource), {
      body: type === 'apply' && typeof patch !== 'string' ? JSON.stringify(patch) : patch,
      contentType: patchContentType[type],
      query: { fieldManager: opts.fieldManager, force: opts.force },
    });
  }

  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<unknown> {
    const body = Object.keys(opts).length ? { apiVersion: 'v1', kind: 'DeleteOptions', ...opts } : undefined;
    return this.request('DELETE', objectPath(ref, namespace, name), { body });
  }

  /** The object, or undefined when there is none of that name. */
  async getIfExists<T extends KubernetesObject>(ref: ResourceRef, namespace: string | undefined, name: string, opts: { signal?: AbortSignal } = {}): Promise<T | undefined> {
    try {
      return await this.get<T>(ref, namespace, name, opts);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Creates `obj` unless an object of that name exists; resolves with the created object, or undefined if it existed. */
  async createIfMissing<T extends KubernetesObject>(ref: ResourceRef, obj: T): Promise<T | undefined> {
    try {
      return await this.create(ref, obj);
    } catch (err) {
      if (isAlreadyExists(err)) return undefined;
      throw err;
    }
  }

  /** Deletes, treating "already gone" as success: most reconcilers want exactly that. */
  async deleteIfExists(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<boolean> {
    try {
      await this.delete(ref, namespace, name, opts);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}
