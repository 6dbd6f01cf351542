/**
 * What the static-pod state controller reports (issue 17, item 5; library-go's staticpodstate
 * controller, reference §10): for each master's mirror pod `kube-apiserver-<node>`, a container
 * waiting (a crash loop, an image that will not pull) or terminated with a non-zero exit makes
 * `StaticPodsDegraded=True` reason `Error`, naming the pod, the container's state and reason and,
 * beyond upstream, the last lines of its log — so a replica that crash-loops, which the installer
 * waits on forever without recording a failure, says why. A container that stays not ready past
 * a grace period, or a mirror pod that is missing, is only told (`False`, reason `Error`, with
 * the message): every container is not ready while it starts, and a mirror pod comes and goes
 * during its own node's rollout. Otherwise `False`/`AsExpected`.
 *
 * Pure: the log lines are fetched by the shell for the containers `logsWanted` names (those
 * whose kubelet termination message — the log tail, with FallbackToLogsOnError — is empty).
 */
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { mirrorPodName } from '../../../api/operator/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

/** The container states of a starting pod, not failures. */
const startingReasons = new Set(['PodInitializing', 'ContainerCreating']);
/** Lines of log shown per failing container. */
export const logTailLines = 10;
/** How long a running container may stay not ready before it is told. */
export const defaultNotReadyGraceMs = 5 * 60_000;

type Pod = DeepReadonly<V1Pod>;
type Status = DeepReadonly<V1ContainerStatus>;

export interface StaticPodsCondition {
  readonly status: 'True' | 'False';
  readonly reason: 'Error' | 'AsExpected';
  readonly message?: string;
}

export interface StaticPodStateInput {
  /** The masters, from the CR's nodeStatuses. */
  readonly nodes: readonly { readonly nodeName: string; readonly currentRevision?: number }[];
  /** The operand namespace's pods by name. */
  readonly pods: ReadonlyMap<string, Pod>;
  readonly now: number;
  readonly notReadyGraceMs?: number;
  /** Log tails the shell read, by `logKey`. */
  readonly logTails?: ReadonlyMap<string, string>;
}

export interface StaticPodStateDecision {
  readonly condition: StaticPodsCondition;
  /** When a not-ready container's grace ends. */
  readonly requeueAfterMs?: number;
}

export const logKey = (pod: string, container: string): string => `${pod}/${container}`;

const failingWaiting = (s: Status): boolean => !!s.state?.waiting && !startingReasons.has(s.state.waiting.reason ?? '');
const failingTerminated = (s: Status): boolean => !!s.state?.terminated && s.state.terminated.exitCode !== 0;

/** The kubelet's message about the container's last failure: FallbackToLogsOnError puts the log tail there. */
function terminationMessage(s: Status): string {
  return (s.state?.terminated?.message ?? (s.state?.waiting ? s.lastState?.terminated?.message : undefined) ?? '').trim();
}

/** The failing containers with no termination message, whose log the shell should read: the previous run's if it is waiting to restart. */
export function logsWanted(pod: Pod): { container: string; previous: boolean }[] {
  return (pod.status?.containerStatuses ?? [])
    .filter((s) => (failingWaiting(s) || failingTerminated(s)) && terminationMessage(s) === '')
    .map((s) => ({ container: s.name, previous: failingWaiting(s) }));
}

export function lastLines(text: string, n = logTailLines): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-n).join('\n');
}

const timeOf = (t: unknown): number | undefined => {
  if (t === undefined || t === null) return undefined;
  const ms = Date.parse(String(t instanceof Date ? t.toISOString() : t));
  return Number.isNaN(ms) ? undefined : ms;
};

/** Since when the pod has not been Ready: its Ready condition's transition, else the container's start. */
function notReadySince(pod: Pod, s: Status): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status !== 'True');
  return timeOf(ready?.lastTransitionTime) ?? timeOf(s.state?.running?.startedAt);
}

export function decideStaticPodState(input: StaticPodStateInput): StaticPodStateDecision {
  const grace = input.notReadyGraceMs ?? defaultNotReadyGraceMs;
  const lines: string[] = [];
  let failing = 0;
  let requeueAfterMs: number | undefined;
  for (const node of input.nodes) {
    const name = mirrorPodName(node.nodeName);
    const pod = input.pods.get(name);
    if (!pod) {
      // Before its first revision a master runs the bootstrap server, or nothing.
      if ((node.currentRevision ?? 0) > 0) lines.push(`pods "${name}" not found`);
      continue;
    }
    for (const s of pod.status?.containerStatuses ?? []) {
      const head = `pod/${name} container "${s.name}"`;
      const tail = () => {
        const text = terminationMessage(s) || input.logTails?.get(logKey(name, s.name)) || '';
        return text ? `; last log lines:\n${lastLines(text)}` : '';
      };
      if (failingWaiting(s)) {
        const w = s.state!.waiting!;
        lines.push(`${head} is waiting: ${[w.reason ?? 'Waiting', w.message].filter(Boolean).join(': ')}${tail()}`);
        failing++;
      } else if (failingTerminated(s)) {
        const t = s.state!.terminated!;
        lines.push(`${head} is terminated: ${t.reason || 'Error'}: exit code ${t.exitCode}${tail()}`);
        failing++;
      } else if (s.state?.running && !s.ready) {
        const since = notReadySince(pod, s);
        const left = since === undefined ? 0 : since + grace - input.now;
        if (left <= 0) lines.push(`${head} is still not ready`);
        else requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, left);
      }
    }
  }
  const condition: StaticPodsCondition =
    failing > 0 ? { status: 'True', reason: 'Error', message: lines.join('\n') } : lines.length > 0 ? { status: 'False', reason: 'Error', message: lines.join('\n') } : { status: 'False', reason: 'AsExpected' };
  return requeueAfterMs === undefined ? { condition } : { condition, requeueAfterMs };
}
