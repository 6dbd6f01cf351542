/**
 * The scheduler: binds each pending pod addressed to it to a node, as kube-scheduler does.
 *
 * Informer events keep the cache's per-node totals current and put pending pods on the work
 * queue (keys only, style example 2). A reconcile decides synchronously (filters, scores,
 * assume), so concurrent workers never hand out the same slot twice, and only then awaits the
 * binding; the workers exist so that many bindings are in flight at once.
 *
 * A pod that fits nowhere gets kube's `FailedScheduling` Warning event and a
 * `PodScheduled=False` condition (reason `Unschedulable`) carrying the same message, then
 * waits: it is retried after a backoff (1 s doubling to 10 s, kube's podInitialBackoff and
 * podMaxBackoff), and at once when something that could make room happens: a node is added
 * or changes what the filters read, a pod is deleted or finishes, or (for pods waiting on
 * pod affinity) a pod is placed.
 */
import type { V1Namespace, V1Node, V1Pod } from '@kubernetes/client-node';
import { formatTimestamp } from '../../api/time.ts';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import { objectKey } from '../../runtime/cache.ts';
import type { Cancel } from '../../runtime/clock.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { objectPath, resources } from '../../runtime/resources.ts';
import { schedulePod } from './algorithm.ts';
import { SchedulerCache } from './cache.ts';
import { truncateEventMessage } from './fit-error.ts';
import { ERR_REASON_AFFINITY_RULES } from './plugins/inter-pod-affinity.ts';
import { awaitsScheduling, DEFAULT_SCHEDULER_NAME, isTerminal, podInfo } from './pod-info.ts';
import type { Node, Pod } from './types.ts';

export interface SchedulerOptions {
  /** Pods whose `spec.schedulerName` is this (or empty, for the default) are ours. */
  schedulerName?: string;
  /** Reconciles in flight, i.e. bindings sent concurrently. Default 16. */
  workers?: number;
  /** Retry delay for a pod that fit nowhere: kube's podInitialBackoff (1 s) doubling to podMaxBackoff (10 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** kube's percentageOfNodesToScore; 0 adapts to the cluster size. */
  percentageOfNodesToScore?: number;
}

export interface Scheduler {
  readonly controllers: Controller[];
  /** Read-only use only (tests, diagnostics): the controller owns it. */
  readonly cache: SchedulerCache;
}

const CONTROLLER_NAME = 'scheduler';

/** What the filters read of a node; a change elsewhere (heartbeats, conditions) cannot make room. */
function schedulingFields(n: Node): string {
  return JSON.stringify([n.metadata?.labels, n.spec?.taints, n.spec?.unschedulable ?? false, n.status?.allocatable]);
}

/** What the filters read of a pending pod (its status is the scheduler's own output). */
function schedulingInput(p: Pod): string {
  return JSON.stringify([p.spec, p.metadata?.labels]);
}

function podRef(pod: Pod) {
  const m = pod.metadata ?? {};
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion } };
}

export function createScheduler(ctx: ControllerContext, options: SchedulerOptions = {}): Scheduler {
  const schedulerName = options.schedulerName ?? DEFAULT_SCHEDULER_NAME;
  const initialBackoff = options.backoff?.initialMs ?? 1000;
  const maxBackoff = options.backoff?.maxMs ?? 10_000;
  const logger = ctx.logger.child({ controller: CONTROLLER_NAME });
  const cache = new SchedulerCache();
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const namespaces = ctx.informers.informer<V1Namespace>(resources.namespaces);

  /** Failed attempts per pod since it was last placed, for the backoff. */
  const attempts = new Map<string, number>();
  /** Pods whose last attempt found no node. */
  const unschedulable = new Set<string>();
  /** The subset that failed on pod affinity, which only a newly placed pod can satisfy. */
  const waitingForPods = new Set<string>();
  let nextStart = 0;

  const controller = new Controller({
    name: CONTROLLER_NAME,
    reconcile: (key) => schedule(key),
    workers: options.workers ?? 16,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(CONTROLLER_NAME),
    onError: (r) => logger.warn({ key: r.key, err: String(r.error) }, 'scheduling attempt failed'),
  });

  // Many events in a row (a hundred nodes registering) cost one pass over the waiting pods.
  let wakeAll = false;
  let wakePending: Cancel | undefined;
  const flushWake = (): void => {
    wakePending = undefined;
    const keys = wakeAll ? unschedulable : waitingForPods;
    wakeAll = false;
    for (const key of keys) controller.enqueue(key);
  };
  const wake = (all: boolean): void => {
    if (unschedulable.size === 0) return;
    wakeAll ||= all;
    wakePending ??= ctx.clock.setTimeout(flushWake, 0);
  };

  const settled = (key: string): void => {
    attempts.delete(key);
    unschedulable.delete(key);
    waitingForPods.delete(key);
  };

  nodes.on('add', (n) => {
    cache.setNode(n);
    wake(true);
  });
  nodes.on('update', (n, old) => {
    cache.setNode(n);
    if (schedulingFields(n) !== schedulingFields(old)) wake(true);
  });
  nodes.on('delete', (n) => cache.removeNode(n.metadata?.name ?? ''));

  namespaces.on('add', (ns) => cache.setNamespace(ns.metadata?.name ?? '', ns.metadata?.labels));
  namespaces.on('update', (ns) => cache.setNamespace(ns.metadata?.name ?? '', ns.metadata?.labels));
  namespaces.on('delete', (ns) => cache.removeNamespace(ns.metadata?.name ?? ''));

  pods.on('add', (p) => {
    cache.updatePod(p);
    if (awaitsScheduling(p, schedulerName)) controller.enqueue(objectKey(p));
    else if (p.spec?.nodeName) wake(false);
  });
  pods.on('update', (p, old) => {
    cache.updatePod(p);
    const key = objectKey(p);
    if (awaitsScheduling(p, schedulerName)) {
      // Our own PodScheduled=False write comes back as an update: only a change to what the
      // filters read is worth an attempt ahead of the backoff.
      if (!awaitsScheduling(old, schedulerName) || schedulingInput(p) !== schedulingInput(old)) controller.enqueue(key);
      return;
    }
    settled(key);
    if (unschedulable.size === 0 || !p.spec?.nodeName) return;
    if (isTerminal(p) && !isTerminal(old)) wake(true);
    else if (!old.spec?.nodeName) wake(false);
    else if (JSON.stringify(p.metadata?.labels) !== JSON.stringify(old.metadata?.labels)) wake(true);
  });
  pods.on('delete', (p) => {
    cache.removePod(p);
    const key = objectKey(p);
    settled(key);
    if (p.spec?.nodeName) wake(true);
  });

  function backoffMs(key: string): number {
    const n = attempts.get(key) ?? 0;
    attempts.set(key, n + 1);
    return Math.min(initialBackoff * 2 ** n, maxBackoff);
  }

  async function schedule(key: string): Promise<{ requeueAfterMs: number } | void> {
    const pod = pods.store.get(key);
    if (!pod || !awaitsScheduling(pod, schedulerName)) {
      settled(key);
      return;
    }
    // Bound by us a moment ago; the informer has not caught up yet.
    if (cache.isAssumed(key)) return;

    // Everything up to cache.assume runs without an await: no other worker can take the slot.
    const info = podInfo(pod);
    const result = schedulePod(info, cache, { start: nextStart, percentageOfNodesToScore: options.percentageOfNodesToScore });
    nextStart = cache.numNodes ? (nextStart + result.processed) % cache.numNodes : 0;

    if (result.kind === 'unschedulable') {
      unschedulable.add(key);
      if ([...result.failures.values()].some((f) => f.reasons.includes(ERR_REASON_AFFINITY_RULES))) waitingForPods.add(key);
      else waitingForPods.delete(key);
      logger.debug({ key, message: result.message }, 'no node fits');
      ctx.recorder.event(podRef(pod), 'Warning', 'FailedScheduling', truncateEventMessage(result.message));
      await markUnschedulable(pod, cache.numNodes === 0 ? 'SchedulerError' : 'Unschedulable', result.message);
      return { requeueAfterMs: backoffMs(key) };
    }

    cache.assume(info, result.node);
    unschedulable.delete(key);
    waitingForPods.delete(key);
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? '';
    try {
      await ctx.client.request('POST', objectPath(resources.pods, namespace, name, 'binding'), {
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid: pod.metadata?.uid }, target: { apiVersion: 'v1', kind: 'Node', name: result.node } },
      });
    } catch (err) {
      cache.forget(key);
      if (isNotFound(err)) return;
      // Bound by someone else, or being deleted: the informer will say which; look again later.
      if (isConflict(err)) return { requeueAfterMs: backoffMs(key) };
      throw err;
    }
    attempts.delete(key);
    logger.debug({ key, node: result.node, feasible: result.feasible, evaluated: result.processed }, 'bound');
    ctx.recorder.event(podRef(pod), 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${result.node}`);
  }

  /** PodScheduled=False with the FailedScheduling message, written only when it changes. */
  async function markUnschedulable(pod: Pod, reason: string, message: string): Promise<void> {
    const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === reason && current.message === message) return;
    const lastTransitionTime = current?.status === 'False' && current.lastTransitionTime ? current.lastTransitionTime : formatTimestamp(ctx.clock.wallNow());
    const patch = { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null, lastTransitionTime }] } };
    try {
      await ctx.client.patch(resources.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', patch, { type: 'strategic', subresource: 'status' });
    } catch (err) {
      // Deleted meanwhile: nothing left to report on.
      if (!isNotFound(err)) throw err;
    }
  }

  return { controllers: [controller], cache };
}
