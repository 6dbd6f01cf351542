/**
 * The kube-apiserver operator's controllers, assembled as upstream's operator starts them
 * (reference §3): the config observer (`spec.observedConfig` from the cluster's facts), the
 * target-config controller (ConfigMaps `config` and `kube-apiserver-pod`), the revision
 * controller (snapshots them as `revision-status-N` and `<name>-N`), the installer controller
 * (one master at a time, with installer pods of the operator's own image) and the status
 * controller (ClusterOperator `kube-apiserver`), the prune controller (revisions no node needs,
 * in the API and, with pruner pods, on the nodes) and the static-pod state controller
 * (`StaticPodsDegraded` naming a failing replica). They share one context, whose event sink writes
 * every event about the operator's Deployment in the operator namespace and again in its legacy
 * name (events.ts), so `kubectl get events` in either tells the whole story. Each looks at the
 * singleton again every minute whatever the events, as upstream's observer, target-config,
 * revision and status controllers do (reference §4–6, §11), and here the others too: a
 * controller whose last sync failed would otherwise wait out its failure backoff, up to 16
 * minutes, in a cluster where nothing else happens.
 */
import type { V1ConfigMap, V1Endpoints } from '@kubernetes/client-node';
import { Image } from '../../../api/config/index.ts';
import { KubeAPIServer, kubeAPIServerLegacyEventNamespace, kubeAPIServerOperatorNamespace, operatorSingletonName } from '../../../api/operator/index.ts';
import { createConfigObserverController } from '../../../runtime/config-observer.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import type { Controller } from '../../../runtime/controller.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import type { Inertia } from '../../../runtime/status-union.ts';
import { kubeAPIServerConfigObservers, type ConfigObservationListers } from '../configobserver/observers.ts';
import { restrictedCIDRsPath } from '../configobserver/network.ts';
import { hostEtcd, storageURLsPath } from '../configobserver/storage.ts';
import { createInstallerController } from '../installer/controller.ts';
import type { BackoffSettings } from '../installer/state.ts';
import { createPruneController } from '../prune/controller.ts';
import { createRevisionController, renderedRevisionInputs } from '../revision/controller.ts';
import { createStaticPodStateController } from '../staticpodstate/controller.ts';
import { createStatusController } from '../status/controller.ts';
import { createTargetConfigController } from '../targetconfig/controller.ts';
import type { PodSettings } from '../targetconfig/render.ts';
import { mirroredEvents } from './events.ts';
import type { CurrentOperator } from './metrics.ts';

/** The Deployment's name and container name, and what events are about. */
export const operatorName = 'kube-apiserver-operator';
/** How often every controller looks at the singleton with no event (upstream's resync period). */
export const operatorResyncMs = 60_000;
/** Upstream's leader-election Lease, in the operator namespace. */
export const operatorLeaseName = 'kube-apiserver-operator-lock';

export interface KubeAPIServerOperatorOptions {
  /** The operand's static pod: its image, port, advertised URL and serving names. */
  readonly pod: PodSettings;
  /** The operator's own image: installer (and pruner) pods run it. */
  readonly operatorImage: string;
  readonly operatorVersion: string;
  readonly operandVersion?: string;
  /** How long every Ready replica must have been Ready before the next master moves; 30 s unless given. */
  readonly minReadyMs?: number;
  readonly backoff?: BackoffSettings;
  /** Where events are mirrored; `openshift-cluster-kube-apiserver-operator` unless given. */
  readonly legacyEventsNamespace?: string;
  readonly degradedInertia?: Inertia;
  /** How long a replica may stay not Ready before StaticPodsDegraded says so; the controller's 5 min unless given. */
  readonly notReadyGraceMs?: number;
}

export interface KubeAPIServerOperator {
  readonly controllers: Controller[];
  /** The CR as the shared cache holds it (for the metrics). */
  readonly current: CurrentOperator;
}

export function createKubeAPIServerOperator(base: ControllerContext, o: KubeAPIServerOperatorOptions): KubeAPIServerOperator {
  const ctx: ControllerContext = { ...base, recorder: mirroredEvents(base.recorder, { from: kubeAPIServerOperatorNamespace, to: o.legacyEventsNamespace ?? kubeAPIServerLegacyEventNamespace }) };
  const deployment: EventSubject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: operatorName, namespace: kubeAPIServerOperatorNamespace } };
  const crs = ctx.informers.informer<KubeAPIServer>(refOf(KubeAPIServer));

  const endpoints = ctx.informers.informer<V1Endpoints>(resources.endpoints, { namespace: hostEtcd.namespace });
  const clusterConfigMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace: hostEtcd.namespace });
  const images = ctx.informers.informer<Image>(refOf(Image));
  const listers: ConfigObservationListers = { endpoints: endpoints.store, configMaps: clusterConfigMaps.store, images: images.store };

  const controllers = [
    createConfigObserverController(ctx, {
      operator: refOf(KubeAPIServer),
      observers: kubeAPIServerConfigObservers,
      listers,
      inputs: [endpoints, clusterConfigMaps, images],
      eventSubject: deployment,
    }),
    // Upstream's gate: no render, so no revision, before the store and the restricted ranges are observed.
    createTargetConfigController(ctx, { pod: o.pod, operatorVersion: o.operatorVersion, eventSubject: deployment, requiredObservedConfig: [storageURLsPath, restrictedCIDRsPath] }),
    createRevisionController(ctx, { inputs: renderedRevisionInputs, eventSubject: deployment }),
    createInstallerController(ctx, {
      image: o.operatorImage,
      inputs: renderedRevisionInputs,
      eventSubject: deployment,
      ...(o.backoff ? { backoff: o.backoff } : {}),
      ...(o.minReadyMs !== undefined ? { minReadyMs: o.minReadyMs } : {}),
    }),
    createPruneController(ctx, { image: o.operatorImage, eventSubject: deployment }),
    createStaticPodStateController(ctx, o.notReadyGraceMs !== undefined ? { notReadyGraceMs: o.notReadyGraceMs } : {}),
    // One subject: the sink mirrors it into the legacy namespace, as it does every controller's.
    createStatusController(ctx, {
      operatorVersion: o.operatorVersion,
      ...(o.operandVersion ? { operandVersion: o.operandVersion } : {}),
      ...(o.degradedInertia ? { degradedInertia: o.degradedInertia } : {}),
      eventSubjects: [deployment],
    }),
  ];
  for (const c of controllers) c.resyncEvery(operatorResyncMs, () => [operatorSingletonName]);
  return { controllers, current: () => crs.store.get(operatorSingletonName) };
}
