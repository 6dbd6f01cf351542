/**
 * The machine controller component, what the platform's provider image runs in the
 * `machine-controller` container of `machine-api-controllers`, flagged as OpenShift's
 * `/machine-controller-manager` (accepted as a first argument; runtime/manager-component.ts:
 * `--kubeconfig`, `--namespace` default `openshift-machine-api`, `""` for every namespace, leader
 * election, `--metrics-bind-address`, `--v`), plus `--requeue-after D`, `--drain-requeue-after D`,
 * `--drain-timeout D` and `--max-concurrent-reconciles N` (Machines reconciled at once by the
 * machine controller, and drained at once by its drain controller; default 10: each reconcile
 * waits mostly on the cloud and the API server, and Machines are independent, so one worker
 * would launch a scale-up's instances one after another). The delays default to OpenShift's
 * (30 s between looks at an instance, 20 s between drain attempts, 20 s per attempt); tests and
 * benchmarks shorten them. The provider is the one for the cluster's platform
 * (`infrastructure.config.openshift.io/cluster` `status.platformStatus.type`), read once at start:
 * a platform this image has no provider for is refused then, naming it. Leader election on the
 * Lease `cluster-api-provider-shipyard-leader`; `/metrics` on POD_IP at 9442.
 */
import { Infrastructure } from '../../../api/config/infrastructure.ts';
import { parseDuration } from '../../../api/duration.ts';
import { machineAPINamespace } from '../../../api/machine/index.ts';
import { ApiClient } from '../../../runtime/client.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import type { KubeAccess } from '../../../runtime/kubeconfig.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { refOf } from '../../../runtime/resources.ts';
import { assertSupportedPlatform, providerFor } from '../providers/registry.ts';
import { machineControllers } from './controllers.ts';

export const COMPONENT = 'machine-controller';
export const METRICS_PORT = 9442;
export const LEASE_NAME = 'cluster-api-provider-shipyard-leader';
export const DEFAULT_WORKERS = 10;
/** The program name OpenShift's provider images run. */
const PROGRAM = '/machine-controller-manager';

function duration(flag: string, value: unknown): number {
  try {
    return parseDuration(String(value));
  } catch (err) {
    throw new Error(`${COMPONENT}: --${flag}: ${(err as Error).message}`);
  }
}

/** The cluster's platform type, as the Machine API operator reads it. */
export async function clusterPlatform(kubeConfig: KubeAccess): Promise<string | undefined> {
  const client = new ApiClient(kubeConfig, { userAgent: COMPONENT });
  try {
    const infra = await client.get<Infrastructure>(refOf(Infrastructure), undefined, 'cluster');
    return infra.status?.platformStatus?.type || infra.status?.platform || undefined;
  } catch (err) {
    throw new Error(`${COMPONENT}: reading infrastructure.config.openshift.io/cluster: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}

interface Settings {
  readonly platform: string;
  readonly requeueAfterMs: number;
  readonly drainRequeueAfterMs: number;
  readonly drainTimeoutMs: number;
}

function settingsFrom(values: Readonly<Record<string, unknown>>, platform: string): Settings {
  return {
    platform,
    requeueAfterMs: duration('requeue-after', values['requeue-after']),
    drainRequeueAfterMs: duration('drain-requeue-after', values['drain-requeue-after']),
    drainTimeoutMs: duration('drain-timeout', values['drain-timeout']),
  };
}

export function start(ctx: ComponentContext): Promise<void> {
  let settings: Settings | undefined;
  return runManagerComponent(
    { ...ctx, args: ctx.args[0] === PROGRAM ? ctx.args.slice(1) : ctx.args },
    {
      component: COMPONENT,
      leaseName: LEASE_NAME,
      defaultNamespace: machineAPINamespace,
      metricsPort: METRICS_PORT,
      defaultWorkers: DEFAULT_WORKERS,
      flags: {
        'requeue-after': { type: 'string', default: '30s' },
        'drain-requeue-after': { type: 'string', default: '20s' },
        'drain-timeout': { type: 'string', default: '20s' },
      },
      // Before campaigning: bad flags or a platform this image cannot serve are configuration errors, said at once.
      prepare: async ({ kubeConfig, values }) => {
        settingsFrom(values, '');
        const platform = await clusterPlatform(kubeConfig);
        try {
          assertSupportedPlatform(platform);
        } catch (err) {
          throw new Error(`${COMPONENT}: ${(err as Error).message}`);
        }
        settings = settingsFrom(values, platform);
      },
      controllers: (c, { namespace, workers }) => {
        const s = settings!;
        return machineControllers(c, {
          provider: providerFor(s.platform, { client: c.client, requeueAfterMs: s.requeueAfterMs }),
          namespace,
          requeueAfterMs: s.requeueAfterMs,
          workers,
          drainRequeueAfterMs: s.drainRequeueAfterMs,
          drainTimeoutMs: s.drainTimeoutMs,
        });
      },
    },
  );
}
