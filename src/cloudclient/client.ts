/**
 * A client for the cloud API (`cloud/server.ts`), for the Machine API provider and the CLI.
 * Errors come back as `CloudApiError` carrying the server's status, reason and field, so a
 * caller can tell "no such instance" (404 `InstanceNotFound`) from "bad request". Only loopback
 * URLs are accepted: the token must never leave the machine.
 */
import { Agent, request } from 'node:http';
import { assertLoopbackUrl, dialAddress } from './loopback.ts';
import type { CloudReason, InstanceFilter, InstanceType, InstanceView, RunInstanceInput, Zone } from './types.ts';

export interface CloudClientOptions {
  /** e.g. `http://127.0.0.1:6500`. */
  readonly url: string;
  readonly token: string;
  readonly timeoutMs?: number;
}

export class CloudApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: CloudReason | string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CloudApiError';
  }
}

export class CloudClient {
  private readonly base: URL;
  private readonly token: string;
  private readonly timeoutMs: number;
  /**
   * Keeps connections between calls: a controller polling hundreds of instances would otherwise
   * open one per call. Idle ones close before the server's keep-alive timeout (Node's agent
   * honours its `Keep-Alive` hint) and never hold a process open.
   */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });

  constructor(options: CloudClientOptions) {
    this.base = assertLoopbackUrl(options.url, 'to use a cloud API that is not on loopback');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  runInstance(input: RunInstanceInput): Promise<InstanceView> {
    return this.call('POST', '/v1/instances', input);
  }

  async listInstances(filter: InstanceFilter = {}): Promise<InstanceView[]> {
    const q = new URLSearchParams();
    if (filter.name !== undefined) q.set('name', filter.name);
    if (filter.state !== undefined) q.set('state', filter.state);
    for (const [k, v] of Object.entries(filter.tags ?? {})) q.set(`tag:${k}`, v);
    const query = q.toString();
    return (await this.call<{ items: InstanceView[] }>('GET', `/v1/instances${query ? `?${query}` : ''}`)).items;
  }

  /** The instance, or undefined if the cloud does not know it. */
  async getInstance(id: string): Promise<InstanceView | undefined> {
    try {
      return await this.call('GET', `/v1/instances/${encodeURIComponent(id)}`);
    } catch (err) {
      if (err instanceof CloudApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  stopInstance(id: string): Promise<InstanceView> {
    return this.call('POST', `/v1/instances/${encodeURIComponent(id)}/stop`);
  }

  startInstance(id: string): Promise<InstanceView> {
    return this.call('POST', `/v1/instances/${encodeURIComponent(id)}/start`);
  }

  rebootInstance(id: string): Promise<InstanceView> {
    return this.call('POST', `/v1/instances/${encodeURIComponent(id)}/reboot`);
  }

  terminateInstance(id: string): Promise<InstanceView> {
    return this.call('DELETE', `/v1/instances/${encodeURIComponent(id)}`);
  }

  async zones(): Promise<Zone[]> {
    return (await this.call<{ items: Zone[] }>('GET', '/v1/zones')).items;
  }

  async instanceTypes(): Promise<InstanceType[]> {
    return (await this.call<{ items: InstanceType[] }>('GET', '/v1/instance-types')).items;
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          host: dialAddress(this.base.hostname),
          port: this.base.port || 80,
          path,
          method,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
            ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(parsed as T);
            const e = (parsed ?? {}) as { reason?: string; message?: string; field?: string };
            reject(new CloudApiError(status, e.reason ?? 'Unknown', `${method} ${path}: ${e.message ?? `HTTP ${status}`}`, e.field));
          });
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}
