/**
 * Every Active namespace has a ServiceAccount named `default` (kube-controller-manager's
 * serviceaccount controller): the identity a pod runs as when it names none, and so the one
 * the kubelet asks a token for. One deleted is created again. Namespaces that are going away
 * are left alone, or the controller would fight their deletion.
 */
import type { V1Namespace, V1ServiceAccount } from '@kubernetes/client-node';
import { isAlreadyExists, isNamespaceTerminating, isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

function isActive(ns: DeepReadonly<V1Namespace> | undefined): boolean {
  return !!ns && !ns.metadata?.deletionTimestamp && (ns.status?.phase ?? 'Active') === 'Active';
}

export function createServiceAccountController(ctx: ControllerContext): Controller {
  const namespaces = ctx.informers.informer<V1Namespace>(resources.namespaces);
  const serviceAccounts = ctx.informers.informer<V1ServiceAccount>(resources.serviceAccounts);

  // The key is a namespace's name: what this controller makes is one object per namespace.
  const reconcile = async (namespace: string): Promise<void> => {
    if (!isActive(namespaces.store.get(namespace))) return;
    if (serviceAccounts.store.get(`${namespace}/${DEFAULT_SERVICE_ACCOUNT}`)) return;
    try {
      await ctx.client.create(resources.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } });
      ctx.logger.debug({ controller: 'serviceaccount', namespace }, 'created the default ServiceAccount');
    } catch (err) {
      // Already there (the cache was behind), or the namespace went away meanwhile.
      if (isAlreadyExists(err) || isNotFound(err)) return;
      if (isNamespaceTerminating(err)) return;
      throw err;
    }
  };

  const controller = new Controller({ name: 'serviceaccount', reconcile, workers: 2, observer: ctx.metrics?.forController('serviceaccount') });
  controller.watch(namespaces);
  controller.watchMapped(serviceAccounts, (sa) => (sa.metadata?.name === DEFAULT_SERVICE_ACCOUNT && sa.metadata.namespace ? [sa.metadata.namespace] : []));
  return controller;
}
