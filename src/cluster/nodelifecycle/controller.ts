/**
 * Node lifecycle: a node whose kubelet stops renewing its Lease for the grace period (40 s by
 * default; 60 s for a node that never posted a Ready condition, kube's node startup grace period)
 * has its conditions marked Unknown, or added as Unknown if it never posted them
 * (conditions.ts), and is tainted `node.kubernetes.io/unreachable`; one reporting
 * Ready=False is tainted `node.kubernetes.io/not-ready`; both taints go when it is healthy.
 * Pods on a NoExecute-tainted node are evicted once their tolerations run out (300 s unless
 * they say otherwise). Silence is measured from when *this* controller saw the Lease change,
 * on its own clock, so clock skew between machines cannot mark a node dead, and a freshly
 * started controller gives every node a full grace period.
 */
import type { V1Lease, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { formatTimestamp } from '../../api/time.ts';
import { isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { allUnknown, silentNodeConditions } from './conditions.ts';
import { NOT_READY, UNREACHABLE, tolerationSeconds } from './taints.ts';

export interface NodeLifecycleOptions {
  nodeMonitorGracePeriodMs: number;
  /** How long a node that never posted a Ready condition may stay silent (kube's --node-startup-grace-period, 60 s). */
  nodeStartupGracePeriodMs?: number;
  defaultTolerationSeconds: number;
}

const BY_NODE = 'spec.nodeName';

export function createNodeLifecycleController(ctx: ControllerContext, opts: NodeLifecycleOptions): Controller {
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const leases = ctx.informers.informer<V1Lease>(resources.leases, { namespace: 'kube-node-lease' });
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  pods.addIndexer(BY_NODE, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
  const seen = new Map<string, { renew: string; at: number }>();
  const monitorGrace = opts.nodeMonitorGracePeriodMs;
  const startupGrace = opts.nodeStartupGracePeriodMs ?? 60_000;

  const lastHeard = (name: string, node: DeepReadonly<V1Node>): number => {
    const lease = leases.store.get(`kube-node-lease/${name}`);
    const heartbeat = node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
    const renew = `${lease?.spec?.renewTime ?? ''}|${String(heartbeat ?? '')}`;
    const prev = seen.get(name);
    if (!prev || prev.renew !== renew) {
      seen.set(name, { renew, at: ctx.clock.now() });
      return ctx.clock.now();
    }
    return prev.at;
  };

  const setTaints = async (node: DeepReadonly<V1Node>, want: { key: string; effect: string }[], drop: string[]): Promise<void> => {
    const current = (node.spec?.taints ?? []) as V1Taint[];
    const kept = current.filter((t) => !drop.includes(t.key) || want.some((w) => w.key === t.key && w.effect === t.effect));
    const added = want.filter((w) => !kept.some((t) => t.key === w.key && t.effect === w.effect)).map((w) => ({ ...w, timeAdded: formatTimestamp(ctx.clock.wallNow()) }) as unknown as V1Taint);
    if (!added.length && kept.length === current.length) return;
    await ctx.client.update(resources.nodes, { ...(node as V1Node), spec: { ...(node.spec as V1Node['spec']), taints: [...kept, ...added] } });
  };

  const markUnknown = async (node: DeepReadonly<V1Node>): Promise<void> => {
    const t = formatTimestamp(ctx.clock.wallNow());
    const created = node.metadata?.creationTimestamp ? formatTimestamp(new Date(node.metadata.creationTimestamp as unknown as string)) : undefined;
    const conditions = silentNodeConditions(node.status?.conditions, { now: t, created });
    await ctx.client.patch(resources.nodes, undefined, node.metadata!.name!, { status: { conditions } }, { type: 'strategic', subresource: 'status' });
    ctx.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.metadata?.name, uid: node.metadata?.uid } }, 'Normal', 'NodeNotReady', `Node ${node.metadata?.name} status is now: NodeNotReady`);
    // As kube's MarkPodsNotReady: traffic must stop going to pods nobody can vouch for.
    for (const p of pods.store.byIndex(BY_NODE, node.metadata!.name!)) {
      const conds = p.status?.conditions ?? [];
      if (!conds.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      const next = conds.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', reason: 'NodeNotReady', lastTransitionTime: t } : c));
      await ctx.client.patch(resources.pods, p.metadata!.namespace!, p.metadata!.name!, { status: { conditions: next } }, { type: 'merge', subresource: 'status' }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  };

  /** Deletes pods whose NoExecute tolerations ran out; returns ms until the next one is due. */
  const evict = async (node: DeepReadonly<V1Node>): Promise<number | undefined> => {
    const noExecute = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
    if (!noExecute.length) return undefined;
    // Wall time on both sides: timeAdded was written by whichever controller-manager tainted the node.
    const since = Math.max(...noExecute.map((t) => (t.timeAdded ? Date.parse(String(t.timeAdded)) : ctx.clock.wallNow())));
    let next: number | undefined;
    for (const p of pods.store.byIndex(BY_NODE, node.metadata!.name!)) {
      if (p.metadata?.deletionTimestamp || p.metadata?.annotations?.['kubernetes.io/config.mirror']) continue;
      const seconds = tolerationSeconds(p.spec?.tolerations ?? [], noExecute, opts.defaultTolerationSeconds);
      if (seconds === Infinity) continue;
      const due = since + seconds * 1000 - ctx.clock.wallNow();
      if (due <= 0) {
        ctx.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: p.metadata }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${p.metadata?.namespace}/${p.metadata?.name}`);
        await ctx.client.deleteIfExists(resources.pods, p.metadata!.namespace!, p.metadata!.name!);
      } else next = Math.min(next ?? Infinity, due);
    }
    return next;
  };

  const reconcile = async (name: string): Promise<{ requeueAfterMs?: number } | void> => {
    const node = nodes.store.get(name);
    if (!node) {
      seen.delete(name);
      return;
    }
    const silentFor = ctx.clock.now() - lastHeard(name, node);
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const grace = ready ? monitorGrace : startupGrace;
    let requeue = grace - silentFor + 50;
    if (silentFor >= grace) {
      if (!allUnknown(node.status?.conditions)) await markUnknown(node);
      await setTaints(node, [{ key: UNREACHABLE, effect: 'NoSchedule' }, { key: UNREACHABLE, effect: 'NoExecute' }], [NOT_READY]);
      requeue = grace;
    } else if (ready?.status === 'False') {
      await setTaints(node, [{ key: NOT_READY, effect: 'NoSchedule' }, { key: NOT_READY, effect: 'NoExecute' }], [UNREACHABLE]);
    } else if (ready?.status === 'True') {
      await setTaints(node, [], [UNREACHABLE, NOT_READY]);
    }
    const fresh = nodes.store.get(name) ?? node;
    const due = await evict(fresh);
    if (due !== undefined) requeue = Math.min(requeue, due + 50);
    return { requeueAfterMs: Math.max(100, requeue) };
  };

  const controller = new Controller({ name: 'nodelifecycle', reconcile, workers: 4, clock: ctx.clock, observer: ctx.metrics?.forController('nodelifecycle') });
  controller.watch(nodes);
  controller.watchMapped(leases, (l) => (l.metadata?.name ? [l.metadata.name] : []));
  return controller;
}
