/**
 * Every Active namespace has a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA that
 * signed the API server's serving certificate (kube-controller-manager's root-ca-cert-publisher):
 * pods mount it beside their service-account token to verify the server they talk to. An
 * edited copy is put back and a deleted one re-created, since a pod trusting a wrong CA could
 * be talking to anyone.
 */
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { isAlreadyExists, isConflict, isNamespaceTerminating, isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'The CA bundle that signed the kube-apiserver serving certificate, for clients that reach it through the kubernetes Service or kubernetes.default.svc. Kept by the controller-manager; edits are reverted.';

export interface RootCaCertPublisherOptions {
  /** PEM of the CA, as `--root-ca-file` (or the controller-manager's kubeconfig) gives it. */
  readonly caCertPem: string;
}

function isActive(ns: DeepReadonly<V1Namespace> | undefined): boolean {
  return !!ns && !ns.metadata?.deletionTimestamp && (ns.status?.phase ?? 'Active') === 'Active';
}

/** The ConfigMap as found, brought back to what it must hold; undefined when it already does. */
export function desiredConfigMap(current: DeepReadonly<V1ConfigMap> | undefined, namespace: string, caCertPem: string): V1ConfigMap | undefined {
  const data = { 'ca.crt': caCertPem };
  const described = current?.metadata?.annotations?.[DESCRIPTION_ANNOTATION] === DESCRIPTION;
  if (current && described && isDeepStrictEqual(current.data ?? {}, data) && !Object.keys(current.binaryData ?? {}).length) return undefined;
  const base: V1ConfigMap = current ? (structuredClone(current) as V1ConfigMap) : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace } };
  base.metadata = { ...base.metadata, annotations: { ...(base.metadata?.annotations ?? {}), [DESCRIPTION_ANNOTATION]: DESCRIPTION } };
  base.data = data;
  delete base.binaryData;
  return base;
}

export function createRootCaCertPublisher(ctx: ControllerContext, o: RootCaCertPublisherOptions): Controller {
  if (!o.caCertPem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('root-ca-cert-publisher: the CA is not a PEM certificate');
  const namespaces = ctx.informers.informer<V1Namespace>(resources.namespaces);
  // Only the one ConfigMap per namespace: caching every ConfigMap's data would cost memory for nothing.
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });

  // The key is a namespace's name, since there is one ConfigMap per namespace.
  const reconcile = async (namespace: string): Promise<void> => {
    if (!isActive(namespaces.store.get(namespace))) return;
    const current = configMaps.store.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    const desired = desiredConfigMap(current, namespace, o.caCertPem);
    if (!desired) return;
    try {
      if (current) await ctx.client.update(resources.configMaps, desired);
      else await ctx.client.create(resources.configMaps, desired);
    } catch (err) {
      // The cache was behind; the watch event on its way brings this key back with the truth.
      if (isAlreadyExists(err) || isConflict(err) || isNotFound(err)) return;
      if (isNamespaceTerminating(err)) return;
      throw err;
    }
    const verb = current ? 'Restored' : 'Published';
    ctx.recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace } }, 'Normal', current ? 'Updated' : 'Created', `${verb} the cluster CA in ConfigMap ${namespace}/${ROOT_CA_CONFIGMAP}`);
  };

  const controller = new Controller({ name: 'root-ca-cert-publisher', reconcile, workers: 2, observer: ctx.metrics?.forController('root-ca-cert-publisher') });
  controller.watch(namespaces);
  controller.watchMapped(configMaps, (cm) => (cm.metadata?.name === ROOT_CA_CONFIGMAP && cm.metadata.namespace ? [cm.metadata.namespace] : []));
  return controller;
}
