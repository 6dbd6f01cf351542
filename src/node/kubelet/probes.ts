/**
 * One probe of one container (readiness, liveness or startup), run on its period with
 * Kubernetes' thresholds: `failureThreshold` failures in a row flip it to failing,
 * `successThreshold` successes back. httpGet counts 200–399 as success (HTTPS without
 * verifying the certificate, as the kubelet does), tcpSocket a completed connect, exec exit 0.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1ContainerPort, V1Probe } from '@kubernetes/client-node';
import type { RunningContainer } from '../container-runtime.ts';

export type ProbeResult = { ok: boolean; message: string };

function resolvePort(port: number | string | undefined, ports: readonly V1ContainerPort[] | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return ports?.find((p) => p.name === port)?.containerPort;
}

export async function runProbe(probe: V1Probe, host: string, ports: readonly V1ContainerPort[] | undefined, container: RunningContainer): Promise<ProbeResult> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec) {
    if (!container.exec) return { ok: true, message: '' };
    const r = await container.exec(probe.exec.command ?? [], timeoutMs);
    return { ok: r.exitCode === 0, message: r.exitCode === 0 ? '' : `command ${JSON.stringify(probe.exec.command)} exited with ${r.exitCode}: ${r.output.trim().slice(0, 200)}` };
  }
  if (probe.httpGet) {
    const port = resolvePort(probe.httpGet.port as number | string, ports);
    if (port === undefined) return { ok: false, message: `port ${String(probe.httpGet.port)} is not a container port` };
    const scheme = (probe.httpGet.scheme ?? 'HTTP').toUpperCase();
    const target = probe.httpGet.host ?? host;
    const path = probe.httpGet.path ?? '/';
    return new Promise((resolve) => {
      const send = scheme === 'HTTPS' ? httpsRequest : httpRequest;
      const req = send({ host: target, port, path, method: 'GET', timeout: timeoutMs, rejectUnauthorized: false, headers: Object.fromEntries((probe.httpGet!.httpHeaders ?? []).map((h) => [h.name, h.value])) }, (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 400 ? { ok: true, message: '' } : { ok: false, message: `HTTP probe failed with statuscode: ${code}` });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (err) => resolve({ ok: false, message: `Get "${scheme.toLowerCase()}://${target}:${port}${path}": ${err.message}` }));
      req.end();
    });
  }
  if (probe.tcpSocket) {
    const port = resolvePort(probe.tcpSocket.port as number | string, ports);
    if (port === undefined) return { ok: false, message: `port ${String(probe.tcpSocket.port)} is not a container port` };
    return new Promise((resolve) => {
      const s = connect({ host: probe.tcpSocket!.host ?? host, port, timeout: timeoutMs });
      s.once('connect', () => {
        s.destroy();
        resolve({ ok: true, message: '' });
      });
      s.once('timeout', () => s.destroy(new Error('timeout')));
      s.once('error', (err) => resolve({ ok: false, message: `dial tcp ${host}:${port}: ${err.message}` }));
    });
  }
  return { ok: true, message: '' };
}

export type ProbeKind = 'readiness' | 'liveness' | 'startup';

export interface ProbeRunnerOptions {
  readonly kind: ProbeKind;
  readonly probe: V1Probe;
  readonly check: () => Promise<ProbeResult>;
  /**
   * Before the first attempt; defaults to `initialDelaySeconds`. Probes held back by a startup
   * probe pass what is left of their initial delay, which counts from the container's start.
   */
  readonly firstDelayMs?: number;
  /** Each failed attempt, below the threshold too: the kubelet records one Unhealthy event per failure. */
  readonly onFailure?: (message: string) => void;
  /** The verdict flipped (readiness either way, liveness to failing, startup either way). */
  readonly onChange: (ok: boolean, message: string) => void;
}

export class ProbeRunner {
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private state: boolean;
  private stopped = false;
  private readonly o: ProbeRunnerOptions;
  private readonly successThreshold: number;
  private readonly failureThreshold: number;

  constructor(o: ProbeRunnerOptions) {
    this.o = o;
    // A container is presumed alive until proven otherwise, but neither ready nor started.
    this.state = o.kind === 'liveness';
    // The API only accepts 1 for liveness and startup probes; a stray value must not delay a kill or a start.
    this.successThreshold = o.kind === 'readiness' ? Math.max(1, o.probe.successThreshold ?? 1) : 1;
    this.failureThreshold = Math.max(1, o.probe.failureThreshold ?? 3);
    this.timer = setTimeout(() => void this.tick(), Math.max(0, o.firstDelayMs ?? (o.probe.initialDelaySeconds ?? 0) * 1000));
  }

  get ok(): boolean {
    return this.state;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const r = await this.o.check().catch((err: unknown) => ({ ok: false, message: String(err) }));
    if (this.stopped) return;
    if (r.ok) {
      this.failures = 0;
      this.successes++;
      if (!this.state && this.successes >= this.successThreshold) {
        this.state = true;
        this.o.onChange(true, '');
      }
    } else {
      this.successes = 0;
      this.failures++;
      this.o.onFailure?.(r.message);
      if (this.stopped) return;
      // A probe that starts out failing (readiness, startup) reports its first verdict once, at the threshold.
      if (this.failures >= this.failureThreshold && (this.state || this.failures === this.failureThreshold)) {
        this.state = false;
        this.o.onChange(false, r.message);
      }
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), (this.o.probe.periodSeconds ?? 10) * 1000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
