/**
 * The config operator (OpenShift's cluster-config-operator, reduced to what Shipyard's
 * cluster needs): the cluster-wide configuration singletons (`infrastructures`, `networks`,
 * `images`, `featuregates`, all named `cluster`) are written by the installer, and every
 * other operator reads them. This operator checks they are there, publishes which feature
 * gates this release turns on (FeatureGate status, per version), and reports the result on
 * its ClusterOperator, `config-operator`, at the release's version — which is what the CVO
 * waits for before it calls an install or update done.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { FeatureGate, FeatureGateDetails } from '../../api/config/index.ts';
import { reportClusterOperatorStatus } from '../../runtime/cluster-operator-status.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../runtime/update-status.ts';

const config = (resource: string, kind: string): ResourceRef => ({ group: 'config.openshift.io', version: 'v1', resource, kind, namespaced: false });
export const singletons = [config('infrastructures', 'Infrastructure'), config('networks', 'Network'), config('images', 'Image'), config('featuregates', 'FeatureGate')] as const;
const featureGates = singletons[3];

export const OPERATOR_NAME = 'config-operator';
export const OPERATOR_NAMESPACE = 'openshift-config-operator';

export interface ConfigOperatorOptions {
  /** The release version this operator belongs to (RELEASE_VERSION in its Deployment). */
  readonly releaseVersion: string;
}

/** Feature gates per feature set; this release has none of its own yet, so every set is empty. */
export function gatesFor(featureSet: string | undefined, custom: { enabled?: readonly string[]; disabled?: readonly string[] } | undefined, version: string): FeatureGateDetails {
  const enabled = featureSet === 'CustomNoUpgrade' ? [...(custom?.enabled ?? [])] : [];
  const disabled = featureSet === 'CustomNoUpgrade' ? [...(custom?.disabled ?? [])] : [];
  return { version, enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) };
}

export function createConfigOperator(ctx: ControllerContext, o: ConfigOperatorOptions): Controller {
  const informers = singletons.map((ref) => ctx.informers.informer<KubernetesObject>(ref));
  const KEY = 'cluster';

  const reconcile = async (): Promise<void> => {
    const missing = singletons.filter((ref, i) => !informers[i]!.store.get('cluster')).map((ref) => `${ref.resource}.${ref.group}/cluster`);
    const fg = informers[3]!.store.get('cluster') as FeatureGate | undefined;
    if (fg) {
      const details = gatesFor(fg.spec?.featureSet, fg.spec?.customNoUpgrade as never, o.releaseVersion);
      await updateStatus<NonNullable<FeatureGate['status']>>(ctx.client, statusTargetOf(featureGates, fg), (status) => {
        const current = status.featureGates ?? [];
        if (JSON.stringify(current.find((g) => g.version === o.releaseVersion)) === JSON.stringify(details)) return;
        // Older versions' entries stay while the cluster may still run them (an update in flight).
        return { ...status, featureGates: [details, ...current.filter((g) => g.version !== o.releaseVersion)].slice(0, 5) };
      });
    }
    const degraded = missing.length > 0;
    await reportClusterOperatorStatus(ctx.client, OPERATOR_NAME, {
      available: { status: 'True', reason: 'AsExpected', message: `All is well` },
      progressing: { status: 'False', reason: 'AsExpected', message: '' },
      degraded: degraded
        ? { status: 'True', reason: 'ConfigMissing', message: `The cluster configuration is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist (the installer creates them)` }
        : { status: 'False', reason: 'AsExpected', message: '' },
      versions: [{ name: 'operator', version: o.releaseVersion }],
      relatedObjects: [
        { group: 'operator.openshift.io', resource: 'namespaces', name: OPERATOR_NAMESPACE },
        ...singletons.map((ref) => ({ group: ref.group, resource: ref.resource, name: 'cluster' })),
      ],
    }, ctx.clock.wallNow());
  };

  const controller = new Controller({ name: 'config-operator', workers: 1, reconcile, observer: ctx.metrics?.forController('config-operator') });
  for (const informer of informers) controller.watchMapped(informer, () => [KEY]);
  controller.watchMapped(ctx.informers.informer<KubernetesObject>(resources.clusterOperators, { fieldSelector: `metadata.name=${OPERATOR_NAME}` }), () => [KEY]);
  controller.enqueue(KEY);
  return controller;
}
