/**
 * The installer controller's state machine (issue 17, item 5; library-go's static-pod installer
 * controller), as one pure function: from the node statuses, the latest revision, the installer
 * and mirror pods the cache holds and the time, it decides the next node statuses, the pods to
 * create or delete, the events to record and when to look again. The shell writes the statuses
 * first and records the events after, as upstream does, so the state stays readable from outside
 * the process at every step.
 *
 * One master at a time: each sync walks the nodes round-robin from a start node and stops at the
 * first whose status changes, and a node only follows the one before it once that one is done.
 * A node is current when its mirror pod carries the target revision and is Ready; a node is
 * given a new target only once every Ready mirror pod has been Ready for `minReadyMs`, unless
 * it has no replica to take down. A failed installer is
 * retried with backoff under `installer-N-retry-K-<node>`; a newer revision fast-forwards a node
 * still installing an older one.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { installerPodName, mirrorPodName, revisionLabels, type LastFailedReason, type NodeStatus } from '../../../api/operator/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export interface BackoffSettings {
  /** Installer retries: `baseMs × factor^lastFailedCount`, at most `maxMs`. Upstream: 10 s × 1.5ⁿ, 10 min. */
  readonly installer: { readonly baseMs: number; readonly factor: number; readonly maxMs: number };
  /** After a fallback to the previous revision: 10 min × 2ⁿ, at most 2 h. */
  readonly fallback: { readonly baseMs: number; readonly factor: number; readonly maxMs: number };
}

export const defaultBackoff: BackoffSettings = {
  installer: { baseMs: 10_000, factor: 1.5, maxMs: 10 * 60_000 },
  fallback: { baseMs: 10 * 60_000, factor: 2, maxMs: 2 * 60 * 60_000 },
};

/** How long every Ready mirror pod must have been Ready before the next node is touched (upstream's minReadyDuration). */
export const defaultMinReadyMs = 30_000;

export interface InstallerStateInput {
  readonly nodeStatuses: readonly DeepReadonly<NodeStatus>[];
  readonly latestAvailableRevision: number;
  /** Installer pods in the operand namespace, by name. */
  readonly installerPods: ReadonlyMap<string, DeepReadonly<V1Pod>>;
  /** Mirror pods `kube-apiserver-<node>`, by name. */
  readonly mirrorPods: ReadonlyMap<string, DeepReadonly<V1Pod>>;
  /** Log tails of failed installer pods, by pod name: the errors when the container left no termination message. */
  readonly installerLogs?: ReadonlyMap<string, string>;
  /** Wall-clock time, ms since the epoch. */
  readonly now: number;
  readonly backoff?: BackoffSettings;
  readonly minReadyMs?: number;
  /** The operand namespace, for the "see `oc get`" hint. */
  readonly namespace: string;
  /**
   * Masters running the bootstrap API server (its mirror pod `bootstrap-kube-apiserver-<node>`):
   * among masters without a revision they go last, so the others' replicas carry the traffic
   * when the bootstrap server is replaced. Upstream's bootstrap runs on a node of its own.
   */
  readonly bootstrapNodes?: ReadonlySet<string>;
}

export type InstallerAction =
  | { readonly kind: 'createInstallerPod'; readonly name: string; readonly nodeName: string; readonly revision: number; readonly retry: number }
  | { readonly kind: 'deleteInstallerPod'; readonly name: string };

export interface InstallerEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface InstallerConditionUpdate {
  readonly type: 'StaticPodsAvailable' | 'NodeInstallerProgressing' | 'NodeInstallerDegraded';
  readonly status: 'True' | 'False';
  readonly reason?: string;
  readonly message: string;
}

export interface InstallerDecision {
  readonly nodeStatuses: NodeStatus[];
  /** Whether `nodeStatuses` differ from the input (the shell then writes them before anything else). */
  readonly changed: boolean;
  readonly actions: InstallerAction[];
  readonly events: InstallerEvent[];
  readonly conditions: InstallerConditionUpdate[];
  /** Look again after this long even if nothing changes (a backoff or the minimum ready time). */
  readonly requeueAfterMs?: number;
}

/** Retry number K of a node's current installer: upstream counts installer failures and fallbacks together. */
export const retryOf = (n: DeepReadonly<NodeStatus>): number => (n.lastFailedCount ?? 0) + (n.lastFallbackCount ?? 0);

const backoffMs = (b: BackoffSettings['installer'], count: number): number => Math.min(b.maxMs, b.baseMs * b.factor ** count);

/** The delay before retrying a node whose target failed, by the kind of failure. */
export function retryDelayMs(n: DeepReadonly<NodeStatus>, backoff: BackoffSettings = defaultBackoff): number {
  return n.lastFailedReason === 'OperandFailedFallback' ? backoffMs(backoff.fallback, n.lastFallbackCount ?? 0) : backoffMs(backoff.installer, n.lastFailedCount ?? 0);
}

const podReady = (pod: DeepReadonly<V1Pod>) => pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
const podRevision = (pod: DeepReadonly<V1Pod>): number | undefined => {
  const v = pod.metadata?.labels?.[revisionLabels.revision];
  const n = Number(v);
  return v !== undefined && v !== '' && Number.isInteger(n) ? n : undefined;
};

type MirrorState = { kind: 'absent' } | { kind: 'other'; revision: number | undefined } | { kind: 'ready' } | { kind: 'failed'; errors: string[] } | { kind: 'pending' };

/** What the node's mirror pod says about `revision`. */
function mirrorState(pod: DeepReadonly<V1Pod> | undefined, revision: number): MirrorState {
  if (!pod) return { kind: 'absent' };
  const found = podRevision(pod);
  if (found !== revision) return { kind: 'other', revision: found };
  const phase = pod.status?.phase;
  if (phase === 'Failed') return { kind: 'failed', errors: [pod.status?.message ?? ''] };
  if ((phase === 'Running' || phase === 'Succeeded') && podReady(pod)) return { kind: 'ready' };
  return { kind: 'pending' };
}

/**
 * Which node the walk starts from, and why (the `because` of NodeTargetRevisionChanged): the
 * node being installed; else one whose last failure is newer than any current revision; else the
 * oldest not-ready mirror pod; else a node without one (one running the bootstrap API server
 * last); else one whose mirror pod runs another
 * revision than its status says; else the lowest current revision (first on ties).
 */
export function startNode(nodes: readonly DeepReadonly<NodeStatus>[], mirrorPods: ReadonlyMap<string, DeepReadonly<V1Pod>>, bootstrapNodes: ReadonlySet<string> = new Set()): { index: number; reason: string } {
  const targeted = nodes.findIndex((n) => (n.targetRevision ?? 0) !== 0);
  if (targeted >= 0) return { index: targeted, reason: `node ${nodes[targeted]!.nodeName} is progressing towards ${nodes[targeted]!.targetRevision}` };
  const newestCurrent = Math.max(...nodes.map((n) => n.currentRevision ?? 0));
  const failed = nodes.findIndex((n) => (n.lastFailedRevision ?? 0) > newestCurrent);
  if (failed >= 0) return { index: failed, reason: `node ${nodes[failed]!.nodeName} failed revision ${nodes[failed]!.lastFailedRevision}` };
  const mirror = (i: number) => mirrorPods.get(mirrorPodName(nodes[i]!.nodeName));
  let oldestNotReady = -1;
  let oldestNotReadyRevision = Infinity;
  nodes.forEach((_, i) => {
    const pod = mirror(i);
    const revision = pod ? podRevision(pod) : undefined;
    if (pod && revision !== undefined && !podReady(pod) && revision < oldestNotReadyRevision) {
      oldestNotReady = i;
      oldestNotReadyRevision = revision;
    }
  });
  if (oldestNotReady >= 0) return { index: oldestNotReady, reason: `node ${nodes[oldestNotReady]!.nodeName} with revision ${oldestNotReadyRevision} is the oldest not ready` };
  const withoutMirror = nodes.map((_, i) => i).filter((i) => !mirror(i));
  const missing = withoutMirror.find((i) => !bootstrapNodes.has(nodes[i]!.nodeName)) ?? withoutMirror[0] ?? -1;
  if (missing >= 0) return { index: missing, reason: `node ${nodes[missing]!.nodeName} static pod not found` };
  let mismatched = -1;
  let mismatchedRevision = Infinity;
  nodes.forEach((n, i) => {
    const revision = podRevision(mirror(i)!) ?? 0;
    if (revision !== (n.currentRevision ?? 0) && revision < mismatchedRevision) {
      mismatched = i;
      mismatchedRevision = revision;
    }
  });
  if (mismatched >= 0) {
    const n = nodes[mismatched]!;
    return { index: mismatched, reason: `node ${n.nodeName} with revision ${mismatchedRevision} is the oldest not matching its expected revision ${n.currentRevision ?? 0}` };
  }
  let oldest = 0;
  nodes.forEach((n, i) => {
    if ((n.currentRevision ?? 0) < (nodes[oldest]!.currentRevision ?? 0)) oldest = i;
  });
  return { index: oldest, reason: `node ${nodes[oldest]!.nodeName} with revision ${nodes[oldest]!.currentRevision ?? 0} is the oldest` };
}

/** How long until every Ready mirror pod has been Ready for `minReadyMs`; 0 when none is that young. */
export function minReadyWaitMs(nodes: readonly DeepReadonly<NodeStatus>[], mirrorPods: ReadonlyMap<string, DeepReadonly<V1Pod>>, now: number, minReadyMs: number): number {
  let wait = 0;
  for (const n of nodes) {
    const pod = mirrorPods.get(mirrorPodName(n.nodeName));
    const since = pod && podReady(pod)?.lastTransitionTime;
    if (!since) continue;
    const remaining = new Date(since as unknown as string | Date).getTime() + minReadyMs - now;
    if (remaining > wait) wait = remaining;
  }
  return wait;
}

/** The revision an idle node moves to (0: none): the start node to the latest, a later one to the previous node's once that one is done. */
function revisionToStart(curr: DeepReadonly<NodeStatus>, prev: DeepReadonly<NodeStatus> | undefined, latest: number): number {
  if (!prev) return (curr.currentRevision ?? 0) !== latest ? latest : 0;
  const prevTarget = prev.targetRevision ?? 0;
  if (prevTarget !== 0 && prevTarget !== (prev.currentRevision ?? 0)) return 0;
  const prevCurrent = prev.currentRevision ?? 0;
  if (prevCurrent > (curr.currentRevision ?? 0) && (curr.lastFailedRevision ?? 0) !== prevCurrent) return prevCurrent;
  return 0;
}

/** A failure of `target` on `n`: the count restarts for a revision that had not failed before. */
function recordFailure(n: DeepReadonly<NodeStatus>, target: number, reason: LastFailedReason, errors: string[], now: number): NodeStatus {
  const count = (n.lastFailedRevision ?? 0) === target ? (n.lastFailedCount ?? 0) : 0;
  return { ...structuredClone(n as NodeStatus), lastFailedRevision: target, lastFailedReason: reason, lastFailedCount: count + 1, lastFailedTime: formatTimestamp(now), lastFailedRevisionErrors: errors };
}

/** The errors of a failed installer pod: each container's termination message (upstream's FallbackToLogsOnError gives the log tail), else the tail we were given, else where to look. */
function installerErrors(pod: DeepReadonly<V1Pod>, logs: ReadonlyMap<string, string> | undefined, namespace: string): string[] {
  const name = pod.metadata?.name ?? '';
  const errors: string[] = [];
  for (const s of pod.status?.containerStatuses ?? []) {
    const message = s.state?.terminated?.message || (logs?.get(name) ?? '');
    if (message) errors.push(`${s.name}: ${message}`);
  }
  if (errors.length === 0 && logs?.get(name)) errors.push(`installer: ${logs.get(name)}`);
  return errors.length ? errors : [`no detailed termination message, see \`oc get -oyaml -n "${namespace}" pods "${name}"\``];
}

const equalStatus = (a: DeepReadonly<NodeStatus>, b: DeepReadonly<NodeStatus>): boolean => JSON.stringify(a) === JSON.stringify(b);

export function decideInstallerState(input: InstallerStateInput): InstallerDecision {
  const nodes = input.nodeStatuses.map((n) => structuredClone(n as NodeStatus));
  const latest = input.latestAvailableRevision;
  const actions: InstallerAction[] = [];
  const events: InstallerEvent[] = [];
  const done = (changed: boolean, requeueAfterMs?: number): InstallerDecision => ({
    nodeStatuses: nodes,
    changed,
    actions,
    events,
    conditions: installerConditions(nodes, latest),
    ...(requeueAfterMs !== undefined && requeueAfterMs > 0 ? { requeueAfterMs } : {}),
  });
  // Nothing to install yet, or no master known.
  if (nodes.length === 0 || latest === 0) return done(false);

  const start = startNode(nodes, input.mirrorPods, input.bootstrapNodes);
  // The minimum ready time keeps the replicas just started serving for a while before another
  // master's is taken down, so it holds back only a new target on a master with a replica (a
  // mirror pod or the bootstrap server). A master about to get its first replica takes nothing
  // down: at install the masters without one get theirs back to back, beyond upstream, whose
  // bootstrap runs elsewhere. Also beyond upstream, which waits before looking at any node: a
  // node whose new replica is Ready is recorded current at once, so its status (and
  // StaticPodsAvailable) says so without lagging 30 s behind the pods.
  const minReadyWait = (n: DeepReadonly<NodeStatus>): number =>
    !input.mirrorPods.has(mirrorPodName(n.nodeName)) && !input.bootstrapNodes?.has(n.nodeName) ? 0 : minReadyWaitMs(nodes, input.mirrorPods, input.now, input.minReadyMs ?? defaultMinReadyMs);

  for (let step = 0; step < nodes.length; step++) {
    const i = (start.index + step) % nodes.length;
    const curr = nodes[i]!;
    const prev = step > 0 ? nodes[(start.index + step - 1) % nodes.length] : undefined;
    const why = step === 0 ? start.reason : `node ${curr.nodeName} is the next node in the line`;
    const current = curr.currentRevision ?? 0;
    const target = curr.targetRevision ?? 0;

    if (target > current) {
      const retry = retryOf(curr);
      const podName = installerPodName(target, curr.nodeName, retry);
      const pod = input.installerPods.get(podName);
      const mirror = mirrorState(input.mirrorPods.get(mirrorPodName(curr.nodeName)), target);
      const installed = pod?.status?.phase === 'Succeeded';

      if (installed && mirror.kind === 'ready') {
        // Success closes the failure record too, as upstream does: an old failure must not steer the start node.
        const { lastFailedRevision: _r, lastFailedTime: _t, lastFailedReason: _s, lastFailedCount: _c, lastFallbackCount: _f, lastFailedRevisionErrors: _e, ...rest } = curr;
        nodes[i] = { ...rest, currentRevision: target, targetRevision: 0 };
        events.push({ type: 'Normal', reason: 'NodeCurrentRevisionChanged', message: `Updated node "${curr.nodeName}" from revision ${current} to ${target} because static pod is ready` });
        return done(true);
      }
      if (latest > target) {
        // A newer revision makes this one moot: stop its installer, no backoff for the new one.
        if (pod && !installed && pod.status?.phase !== 'Failed') actions.push({ kind: 'deleteInstallerPod', name: podName });
        nodes[i] = { ...curr, targetRevision: latest };
        events.push({ type: 'Normal', reason: 'NodeTargetRevisionChanged', message: `Updating node "${curr.nodeName}" from revision ${current} to ${latest} because new revision ${latest} is available` });
        return done(true);
      }
      if (!pod) {
        if ((curr.lastFailedRevision ?? 0) === target && curr.lastFailedTime) {
          const retryAt = new Date(curr.lastFailedTime as unknown as string).getTime() + retryDelayMs(curr, input.backoff);
          if (input.now < retryAt) return done(false, retryAt - input.now);
        }
        actions.push({ kind: 'createInstallerPod', name: podName, nodeName: curr.nodeName, revision: target, retry });
        return done(false);
      }
      if (pod.status?.phase === 'Failed') {
        const errors = installerErrors(pod, input.installerLogs, input.namespace);
        nodes[i] = recordFailure(curr, target, 'InstallerFailed', errors, input.now);
        events.push({ type: 'Warning', reason: 'InstallerPodFailed', message: `installer errors: ${errors.join('\n')}` });
        // The retry's pod has the next name; it waits for the backoff.
        return done(true, retryDelayMs(nodes[i]!, input.backoff));
      }
      if (installed && mirror.kind === 'failed') {
        nodes[i] = { ...recordFailure(curr, target, 'OperandFailed', mirror.errors, input.now), targetRevision: 0 };
        events.push({ type: 'Warning', reason: 'OperandFailed', message: `static pod of revision ${target} on node "${curr.nodeName}" failed: ${mirror.errors.join('\n')}` });
        return done(true);
      }
      // Installer pending or running, or the static pod not (yet) at the target or not Ready: wait for their events.
      return done(false);
    }

    const next = revisionToStart(curr, prev, latest);
    if (next === 0 || next === target) continue;
    const wait = minReadyWait(curr);
    if (wait > 0) return done(false, wait);
    nodes[i] = { ...curr, targetRevision: next };
    events.push({ type: 'Normal', reason: 'NodeTargetRevisionChanged', message: `Updating node "${curr.nodeName}" from revision ${current} to ${next} because ${why}` });
    return done(!equalStatus(nodes[i]!, curr));
  }
  return done(false);
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** `1 node is at revision 3; 2 nodes are at revision 4`, with `; 0 nodes have achieved new revision N` when none is at the latest. */
export function revisionDescription(nodes: readonly DeepReadonly<NodeStatus>[], latest: number): string {
  const counts = new Map<number, number>();
  for (const n of nodes) counts.set(n.currentRevision ?? 0, (counts.get(n.currentRevision ?? 0) ?? 0) + 1);
  const parts = [...counts.keys()].sort((a, b) => a - b).map((rev) => `${counts.get(rev)} ${plural(counts.get(rev)!, 'node is', 'nodes are')} at revision ${rev}`);
  if (!counts.has(latest)) parts.push(`0 nodes have achieved new revision ${latest}`);
  return parts.join('; ');
}

/** StaticPodsAvailable, NodeInstallerProgressing and NodeInstallerDegraded for these statuses (upstream's wording). */
export function installerConditions(nodes: readonly DeepReadonly<NodeStatus>[], latest: number): InstallerConditionUpdate[] {
  const description = revisionDescription(nodes, latest);
  const active = nodes.filter((n) => (n.currentRevision ?? 0) !== 0).length;
  const available: InstallerConditionUpdate =
    active > 0
      ? { type: 'StaticPodsAvailable', status: 'True', message: `${active} nodes are active; ${description}` }
      : { type: 'StaticPodsAvailable', status: 'False', reason: 'ZeroNodesActive', message: `${active} nodes are active; ${description}` };
  const progressing: InstallerConditionUpdate = nodes.some((n) => (n.currentRevision ?? 0) !== latest)
    ? { type: 'NodeInstallerProgressing', status: 'True', message: description }
    : { type: 'NodeInstallerProgressing', status: 'False', reason: 'AllNodesAtLatestRevision', message: description };
  const failing = new Map<number, { count: number; errors: string[] }>();
  for (const n of nodes) {
    const rev = n.lastFailedRevision ?? 0;
    // An old failure the node has moved past, or a fallback the node already recovered from, is not degraded.
    if (rev === 0 || rev !== (n.targetRevision ?? 0) || n.lastFailedReason === 'OperandFailedFallback') continue;
    const f = failing.get(rev) ?? { count: 0, errors: [] };
    f.count++;
    f.errors.push(...(n.lastFailedRevisionErrors ?? []));
    failing.set(rev, f);
  }
  const degraded: InstallerConditionUpdate =
    failing.size > 0
      ? {
          type: 'NodeInstallerDegraded',
          status: 'True',
          reason: 'InstallerPodFailed',
          message: [...failing.keys()]
            .sort((a, b) => a - b)
            .map((rev) => `${failing.get(rev)!.count} nodes are failing on revision ${rev}:\n${failing.get(rev)!.errors.join('\n')}`)
            .join('; '),
        }
      : { type: 'NodeInstallerDegraded', status: 'False', message: '' };
  return [available, progressing, degraded];
}
