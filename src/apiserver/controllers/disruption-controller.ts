/**
 * Keeps PodDisruptionBudget status current, as kube-controller-manager's disruption
 * controller does: expected, healthy and desired pod counts, `disruptionsAllowed`, the
 * `DisruptionAllowed` condition, and pruning of `disruptedPods` entries that have been
 * deleted or have waited more than two minutes. The eviction subresource reads this status.
 */
import { isPodReady } from '../../api/pod-status.ts';
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/resource.ts';
import { nowTimestamp, type ObjectStore } from '../registry/store.ts';
import { matchLabelSelector } from '../selectors/label-selector.ts';
import type { StoreEventSource } from './event-source.ts';
import { KeyedQueue } from './queue.ts';

const disruptedPodTimeoutMs = 2 * 60 * 1000;

function scaled(value: unknown, expected: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.endsWith('%')) return Math.ceil((expected * parseInt(value, 10)) / 100);
  return 0;
}

/** The status a budget should have, given the pods of its namespace. Pure, for tests. */
export function budgetStatus(pdb: KubeObject, pods: KubeObject[], now: number): KubeObject {
  const selector = pdb.spec?.selector;
  const matching = selector ? pods.filter((p) => matchLabelSelector(selector, p.metadata.labels ?? {})) : [];
  const live = matching.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const disrupted: Record<string, string> = {};
  for (const [name, at] of Object.entries((pdb.status?.disruptedPods ?? {}) as Record<string, string>)) {
    const pod = live.find((p) => p.metadata.name === name);
    if (pod && !pod.metadata.deletionTimestamp && now - Date.parse(at) < disruptedPodTimeoutMs) disrupted[name] = at;
  }
  const expectedPods = live.length;
  const currentHealthy = live.filter((p) => isPodReady(p) && !p.metadata.deletionTimestamp && !disrupted[p.metadata.name]).length;
  let desiredHealthy: number;
  if (pdb.spec?.minAvailable !== undefined) desiredHealthy = scaled(pdb.spec.minAvailable, expectedPods);
  else if (pdb.spec?.maxUnavailable !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(pdb.spec.maxUnavailable, expectedPods));
  else desiredHealthy = Math.min(1, expectedPods);
  const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
  const old = (pdb.status?.conditions ?? []).find((c: KubeObject) => c.type === 'DisruptionAllowed');
  const allowed = disruptionsAllowed > 0;
  const condition = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: pdb.metadata.generation,
    lastTransitionTime: old && old.status === (allowed ? 'True' : 'False') ? old.lastTransitionTime : nowTimestamp(new Date(now)),
  };
  const status: KubeObject = { observedGeneration: pdb.metadata.generation, disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods, conditions: [condition] };
  if (Object.keys(disrupted).length) status.disruptedPods = disrupted;
  return status;
}

export class DisruptionController {
  readonly queue: KeyedQueue;
  private readonly budgetsByNamespace = new Map<string, Set<string>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
  ) {
    this.queue = new KeyedQueue((key) => this.sync(key), { onError, concurrency: 2 });
  }

  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('policy/poddisruptionbudgets', (ev) => {
      const { namespace, name } = ev.object.metadata;
      const set = this.budgetsByNamespace.get(namespace) ?? new Set<string>();
      if (ev.type === 'delete') set.delete(name);
      else set.add(name);
      this.budgetsByNamespace.set(namespace, set);
      if (ev.type !== 'delete') this.queue.add(`${namespace}/${name}`);
    });
    events.subscribe('core/pods', (ev) => {
      const ns = ev.key.split('/')[4]!; // /registry/core/pods/<namespace>/<name>: no need to decode the pod
      for (const name of this.budgetsByNamespace.get(ns) ?? []) this.queue.add(`${ns}/${name}`);
    });
    const def = this.registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
    for (const pdb of (await this.store.list(def, undefined)).items) {
      const set = this.budgetsByNamespace.get(pdb.metadata.namespace) ?? new Set<string>();
      set.add(pdb.metadata.name);
      this.budgetsByNamespace.set(pdb.metadata.namespace, set);
      this.queue.add(`${pdb.metadata.namespace}/${pdb.metadata.name}`);
    }
  }

  stop(): void {
    this.queue.stop();
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const pdbDef = this.registry.lookup('policy', 'v1', 'poddisruptionbudgets')!;
    const podDef = this.registry.lookup('', 'v1', 'pods')!;
    let pdb: KubeObject;
    try {
      pdb = await this.store.get(pdbDef, namespace, name);
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'NotFound') return;
      throw e;
    }
    const pods = (await this.store.list(podDef, namespace)).items;
    const status = budgetStatus(pdb, pods, Date.now());
    if (isDeepStrictEqual(status, pdb.status)) return;
    const next = { ...pdb, status };
    await this.store.update(pdbDef, namespace, name, next, { manager: 'disruption-controller', subresource: 'status' });
    // Entries in disruptedPods expire; look again when the oldest would.
    if (status.disruptedPods) this.queue.addAfter(key, disruptedPodTimeoutMs);
  }
}
