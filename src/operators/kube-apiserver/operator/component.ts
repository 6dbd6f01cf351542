/**
 * The kube-apiserver operator program (`cluster-kube-apiserver-operator operator [flags]`, what
 * its Deployment runs): leader election on the Lease
 * `openshift-kube-apiserver-operator/kube-apiserver-operator-lock` (upstream's), then every
 * controller of operator.ts on one set of shared informers, and `/metrics` on the pod's IP.
 *
 * Flags, besides the shared ones (`--kubeconfig`, `--leader-elect*`):
 *   --operand-image       the kube-apiserver image of the static pods (env IMAGE, as upstream)
 *   --operator-image      this image, which installer pods run (env OPERATOR_IMAGE)
 *   --min-ready-seconds   a replica's time Ready before the next master moves (30)
 *   --installer-backoff, --installer-backoff-max   a failed installer's retry wait, ×1.5 per
 *                         failure up to the max (10s, 10m)
 *   --legacy-events-namespace   where events are mirrored (openshift-cluster-kube-apiserver-operator)
 *   --secure-port, --advertise-url, --tls-san   the operand's serving: every master's port
 *                         (6443, the load balancer's backends' whatever port it listens on); the URL defaults to
 *                         Infrastructure `cluster` status.apiServerURL, the names (serving.ts)
 *                         are read from the cluster once at start
 *   --metrics-bind-address   HOST:PORT; default POD_IP:8443 in a pod, none on a host
 *   --v                   accepted for upstream's command lines; the log level is SHIPYARD_LOG_LEVEL
 * The operator's version is OPERATOR_IMAGE_VERSION (upstream's), else RELEASE_VERSION.
 */
import { Infrastructure, Network } from '../../../api/config/index.ts';
import { parseDuration } from '../../../api/duration.ts';
import { kubeAPIServerLegacyEventNamespace, kubeAPIServerOperatorNamespace } from '../../../api/operator/index.ts';
import { ApiClient, errorText, isNotFound } from '../../../runtime/client.ts';
import { sleep } from '../../../runtime/clock.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { loadKubeConfig, type KubeAccess } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { refOf, type ResourceRef } from '../../../runtime/resources.ts';
import { defaultBackoff, type BackoffSettings } from '../installer/state.ts';
import { registerRevisionMetrics, type CurrentOperator } from './metrics.ts';
import { createKubeAPIServerOperator, operatorLeaseName, operatorName } from './operator.ts';
import { servingFrom, type Serving } from './serving.ts';

/** Upstream's metrics port (served there over TLS; here plain HTTP on the pod's own IP). */
export const metricsPort = 8443;
const RETRY_MS = 2_000;

function duration(flag: string, value: unknown): number {
  try {
    return parseDuration(String(value));
  } catch (err) {
    throw new Error(`${operatorName}: --${flag}: ${(err as Error).message}`);
  }
}

function required(flag: string, value: unknown, env: string): string {
  const v = typeof value === 'string' ? value : '';
  if (!v) throw new Error(`${operatorName}: --${flag} (or env ${env}) is required`);
  return v;
}

/**
 * The operand's serving names from the cluster's singletons, read until they can be: at
 * install the operator may start before the installer has written them.
 */
async function readServing(kubeConfig: KubeAccess, extraSans: readonly string[], log: (msg: string) => void, signal: AbortSignal): Promise<Serving | undefined> {
  const client = new ApiClient(kubeConfig, { userAgent: operatorName });
  try {
    while (!signal.aborted) {
      try {
        const get = <T extends Infrastructure | Network>(ref: ResourceRef) => client.get<T>(ref, undefined, 'cluster', { signal }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
        const [infra, network] = await Promise.all([get<Infrastructure>(refOf(Infrastructure)), get<Network>(refOf(Network))]);
        return servingFrom(infra, network, extraSans);
      } catch (err) {
        if (signal.aborted) break;
        log(errorText(err));
        await sleep(RETRY_MS, signal);
      }
    }
    return undefined;
  } finally {
    client.close();
  }
}

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags(operatorName, ctx.args, {
    v: { type: 'string' },
    'operand-image': { type: 'string', default: ctx.env.IMAGE ?? '' },
    'operator-image': { type: 'string', default: ctx.env.OPERATOR_IMAGE ?? '' },
    'min-ready-seconds': { type: 'string', default: '30' },
    'installer-backoff': { type: 'string', default: '10s' },
    'installer-backoff-max': { type: 'string', default: '10m' },
    'legacy-events-namespace': { type: 'string', default: kubeAPIServerLegacyEventNamespace },
    'secure-port': { type: 'string', default: '6443' },
    'advertise-url': { type: 'string' },
    'tls-san': { type: 'string', multiple: true },
    'metrics-bind-address': { type: 'string' },
  });
  const operandImage = required('operand-image', values['operand-image'], 'IMAGE');
  const operatorImage = required('operator-image', values['operator-image'], 'OPERATOR_IMAGE');
  const minReadySeconds = Number(values['min-ready-seconds']);
  if (!Number.isInteger(minReadySeconds) || minReadySeconds < 0) throw new Error(`${operatorName}: --min-ready-seconds must be a non-negative integer, got "${String(values['min-ready-seconds'])}"`);
  const securePort = Number(values['secure-port']);
  if (!Number.isInteger(securePort) || securePort < 1 || securePort > 65535) throw new Error(`${operatorName}: --secure-port must be a port number, got "${String(values['secure-port'])}"`);
  const backoff: BackoffSettings = { ...defaultBackoff, installer: { ...defaultBackoff.installer, baseMs: duration('installer-backoff', values['installer-backoff']), maxMs: duration('installer-backoff-max', values['installer-backoff-max']) } };
  const version = ctx.env.OPERATOR_IMAGE_VERSION || ctx.env.RELEASE_VERSION || '0.0.0-unknown';
  const extraSans = (values['tls-san'] as string[] | undefined) ?? [];

  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(operatorName, undefined, { collectDefaults: true });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: operatorName, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  let current: CurrentOperator = () => undefined;
  registerRevisionMetrics(metrics.registry, operatorName, () => current());
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${metricsPort}` : undefined);
  // Its own signal, so a manager that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  // Served by every replica, leader or not.
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    const given = values['advertise-url'] as string | undefined;
    const serving = given
      ? { advertiseUrl: given, tlsSans: extraSans }
      : await readServing(kubeConfig, extraSans, (msg) => logger.warn({ err: msg }, 'waiting for the cluster serving facts'), ctx.signal);
    if (!serving) return;
    logger.info({ operandImage, operatorImage, version, advertiseUrl: serving.advertiseUrl }, 'starting');
    const manager = startManager({
      component: operatorName,
      kubeConfig,
      signal: ctx.signal,
      metrics,
      logger,
      leaderElection: leaderElectionFor(kubeAPIServerOperatorNamespace, operatorLeaseName, common, ctx.env),
      // library-go's recorder writes every event: a rollout's dozens about the one Deployment must all
      // be there. A loop is still bounded, to one a second once the burst is spent.
      events: { spamBurst: 200, spamRefillMs: 1_000 },
      controllers: (c) => {
        const operator = createKubeAPIServerOperator(c, {
          pod: { image: operandImage, securePort, advertiseUrl: serving.advertiseUrl, tlsSans: serving.tlsSans },
          operatorImage,
          operatorVersion: version,
          minReadyMs: minReadySeconds * 1000,
          backoff,
          legacyEventsNamespace: String(values['legacy-events-namespace']),
        });
        current = operator.current;
        return operator.controllers;
      },
    });
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
