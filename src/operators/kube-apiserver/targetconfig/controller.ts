/**
 * The target-config controller (issue 17, item 3; the operator's targetconfigcontroller): from
 * the KubeAPIServer `cluster` spec it renders ConfigMaps `config` and `kube-apiserver-pod` in
 * the operand namespace (render.ts), writing each only when its data differ from what is there,
 * so an unchanged spec never touches them and the revision controller cuts nothing. A config
 * that fails the operand's schema or value rules writes nothing — no revision is cut from it —
 * and sets `TargetConfigControllerDegraded=True` reason `InvalidConfig` with one
 * `<layer>: <path>: <problem>` line per error; a good one sets it False. It also keeps
 * `UnsupportedConfigOverridesUpgradeable`, which makes the ClusterOperator not Upgradeable while
 * overrides are set.
 *
 * One key, the singleton CR; events on the two ConfigMaps map to it, so an edit by hand is
 * rendered back.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { setConditions } from '../../../api/config/conditions.ts';
import { KubeAPIServer, kubeAPIServerNamespace, kubeAPIServerOperatorNamespace, kubeAPIServerRenderedConfigMaps, type KubeAPIServerStatus } from '../../../api/operator/index.ts';
import { errorText, isAlreadyExists } from '../../../runtime/client.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { getPath } from '../../../runtime/sparse-config.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { renderConfig, renderPodData, targetConfigDegradedCondition, unsupportedOverridesCondition, type PodSettings } from './render.ts';

const NAME = 'target-config';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);

export interface TargetConfigControllerOptions {
  readonly pod: PodSettings;
  /** The operator's version, written as the pod ConfigMap's `version` (a new one rolls a revision). */
  readonly operatorVersion: string;
  /** The operand namespace; `openshift-kube-apiserver` unless given. */
  readonly namespace?: string;
  /** What the events are about: the operator's Deployment unless given. */
  readonly eventSubject?: EventSubject;
  /**
   * Paths of `spec.observedConfig` without which nothing is rendered (upstream's gate, reference
   * §5): a revision cut before the observers have written them would start servers without,
   * e.g., their store. A missing one is a Warning event `ConfigMissing` and no write; the
   * observer's write of the CR brings the sync back.
   */
  readonly requiredObservedConfig?: readonly (readonly string[])[];
}

const managed = (state: string | undefined): boolean => state === 'Managed' || state === 'Force';

export function createTargetConfigController(ctx: ControllerContext, o: TargetConfigControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace });
  const subject: EventSubject = o.eventSubject ?? { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace: kubeAPIServerOperatorNamespace } };
  const rendered = new Set<string>(Object.values(kubeAPIServerRenderedConfigMaps));

  /** Writes the ConfigMap when its data differ from what is there; a stale cache meets a 409 and the retry reads again. */
  const applyData = async (name: string, data: Record<string, string>): Promise<void> => {
    let live: V1ConfigMap | undefined = configMaps.store.get(`${namespace}/${name}`) as V1ConfigMap | undefined;
    if (!live) {
      try {
        await ctx.client.create<V1ConfigMap>(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
        ctx.recorder.event(subject, 'Normal', 'ConfigMapCreated', `Created ConfigMap/${name} -n ${namespace} because it was missing`);
        return;
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        // Created meanwhile and not in the cache yet: compare with the server's.
        live = await ctx.client.get<V1ConfigMap>(resources.configMaps, namespace, name);
      }
    }
    if (isDeepStrictEqual({ ...(live.data ?? {}) }, data)) return;
    await ctx.client.update<V1ConfigMap>(resources.configMaps, { ...structuredClone(live), data });
    ctx.recorder.event(subject, 'Normal', 'ConfigMapUpdated', `Updated ConfigMap/${name} -n ${namespace}: cause by changes in data`);
  };

  /** upstream's SynchronizationError text: `"configmap/<name>": <error>`. */
  const sync = async (name: string, data: Record<string, string>): Promise<string | undefined> => {
    try {
      await applyData(name, data);
      return undefined;
    } catch (err) {
      return `"configmap/${name}": ${errorText(err)}`;
    }
  };

  const reconcile = async (key: string) => {
    const cr = crs.store.get(key);
    if (!cr || key !== CR_NAME || !managed(cr.spec?.managementState)) return;
    const observed = cr.spec?.observedConfig;
    const missing = (o.requiredObservedConfig ?? []).find((path) => {
      const v = getPath(observed, path);
      return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
    });
    if (missing) {
      ctx.recorder.event(subject, 'Warning', 'ConfigMissing', `${missing.join('.')} missing from config`);
      logger.info({ path: missing.join('.') }, 'observed config incomplete; nothing rendered');
      return;
    }
    const config = renderConfig(cr.spec);
    let syncError: string | undefined;
    if (config.ok) {
      // The config first: a revision cut between the two writes then carries the new config, never only the new pod.
      const configError = await sync(kubeAPIServerRenderedConfigMaps.config, config.data);
      const podError = configError ? undefined : await sync(kubeAPIServerRenderedConfigMaps.pod, renderPodData(cr.spec, config.config, { ...o.pod, operatorVersion: o.operatorVersion }));
      syncError = configError ?? podError;
    } else {
      logger.info({ errors: config.message }, 'rendered config is invalid; nothing written');
    }
    const degraded = syncError === undefined ? targetConfigDegradedCondition(config) : { type: 'TargetConfigControllerDegraded', status: 'True' as const, reason: 'SynchronizationError', message: syncError };
    await updateStatus<KubeAPIServerStatus>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      status.conditions = setConditions(status.conditions, [degraded, unsupportedOverridesCondition(cr.spec?.unsupportedConfigOverrides)], ctx.clock.wallNow());
    });
    if (syncError !== undefined) throw new Error(syncError);
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'target config sync failed'),
  });
  controller.watch(crs);
  controller.watchMapped(configMaps, (cm) => (rendered.has(cm.metadata?.name ?? '') ? [CR_NAME] : []));
  return controller;
}
