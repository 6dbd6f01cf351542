/**
 * Endpoints for every Service with a selector: the pods it selects, ready ones under
 * `addresses` and the others under `notReadyAddresses`, with ports resolved from each
 * Service port's targetPort (a number, or a container port's name). Written only when the
 * result differs, so pod churn elsewhere costs no writes.
 */
import type { V1EndpointAddress, CoreV1EndpointPort, V1EndpointSubset, V1Endpoints, V1Pod, V1Service } from '@kubernetes/client-node';
import { isPodReady } from '../../api/pod-status.ts';
import { isAlreadyExists, isNotFound } from '../../runtime/client.ts';
import { NAMESPACE_INDEX } from '../../runtime/cache.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, splitKey } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { compareStrings } from '../../api/compare.ts';

function matches(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

function targetPort(pod: DeepReadonly<V1Pod>, target: number | string | undefined, fallback: number): number | undefined {
  if (target === undefined) return fallback;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === target) return p.containerPort;
  return undefined;
}

export function desiredSubsets(svc: DeepReadonly<V1Service>, pods: readonly DeepReadonly<V1Pod>[]): V1EndpointSubset[] {
  const bySignature = new Map<string, { ports: CoreV1EndpointPort[]; ready: V1EndpointAddress[]; notReady: V1EndpointAddress[] }>();
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  for (const pod of pods) {
    const ip = pod.status?.podIP;
    if (!ip || pod.metadata?.deletionTimestamp || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const ports: CoreV1EndpointPort[] = [];
    for (const sp of svc.spec?.ports ?? []) {
      const port = targetPort(pod, sp.targetPort as number | string | undefined, sp.port);
      if (port !== undefined) ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP' });
    }
    if (!ports.length) continue;
    const sig = JSON.stringify(ports);
    let entry = bySignature.get(sig);
    if (!entry) bySignature.set(sig, (entry = { ports, ready: [], notReady: [] }));
    const address: V1EndpointAddress = {
      ip,
      ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid },
    };
    (publishNotReady || isPodReady(pod as V1Pod) ? entry.ready : entry.notReady).push(address);
  }
  return [...bySignature.values()]
    .map((e) => ({
      ...(e.ready.length ? { addresses: e.ready.sort((a, b) => compareStrings(a.ip, b.ip)) } : {}),
      ...(e.notReady.length ? { notReadyAddresses: e.notReady.sort((a, b) => compareStrings(a.ip, b.ip)) } : {}),
      ports: e.ports,
    }))
    .filter((s) => s.addresses || s.notReadyAddresses);
}

export function createEndpointsController(ctx: ControllerContext): Controller {
  const services = ctx.informers.informer<V1Service>(resources.services);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  const endpoints = ctx.informers.informer<V1Endpoints>(resources.endpoints);

  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const svc = services.store.get(key);
    const current = endpoints.store.get(key);
    if (!svc) {
      // Endpoints of a deleted Service go with it (the garbage collector would, but later).
      if (current && current.metadata?.labels?.['endpoints.kubernetes.io/managed-by'] === 'endpoint-controller') await ctx.client.deleteIfExists(resources.endpoints, namespace, name);
      return;
    }
    const selector = svc.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) return;
    const selected = pods.store.byIndex(NAMESPACE_INDEX, namespace!).filter((p) => matches(selector, p.metadata?.labels));
    const subsets = desiredSubsets(svc, selected);
    const labels = { ...(svc.metadata?.labels ?? {}), 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' };
    if (current && JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) && JSON.stringify(current.metadata?.labels ?? {}) === JSON.stringify(labels)) return;
    const body: V1Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels }, subsets };
    if (current) {
      await ctx.client.update(resources.endpoints, { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } });
    } else {
      try {
        await ctx.client.create(resources.endpoints, body);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        throw new Error(`endpoints ${key} appeared meanwhile; retrying`);
      }
    }
  };

  const controller = new Controller({ name: 'endpoints', reconcile: async (key) => {
    try {
      await reconcile(key);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }, workers: 4, observer: ctx.metrics?.forController('endpoints') });
  controller.watch(services);
  controller.watch(endpoints);
  controller.watchMapped(pods, (p) =>
    services.store
      .byIndex(NAMESPACE_INDEX, p.metadata?.namespace ?? '')
      .filter((s) => s.spec?.selector && Object.keys(s.spec.selector).length && matches(s.spec.selector, p.metadata?.labels))
      .map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`),
  );
  return controller;
}
