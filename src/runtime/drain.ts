/**
 * Draining a node as kubectl's drain helper does, for the components that take a node out of
 * service (the machine-config daemon before a reboot, and later others): cordon it, evict
 * every pod on it through the eviction API so PodDisruptionBudgets are honoured, wait for the
 * evicted pods to be gone, and give up after a timeout. Pods that a drain must not touch are
 * left: mirror pods (the kubelet owns their static pod) and DaemonSet pods (their DaemonSet
 * tolerates `unschedulable` and would put them straight back). The options are the ones the
 * MCO gives the helper: DaemonSet pods ignored, pods without a controller and pods with local
 * storage deleted too, each said in a warning.
 *
 * Where this does better than the helper: a drain that a budget blocks fails naming the node,
 * the pod and the budget (`failed to drain node worker-0: Cannot evict pod ns/x: would violate
 * PodDisruptionBudget ns/b`), because the MCO's users are left with "global timeout reached"
 * and must find the budget themselves (issue 15; shared/seeds/001). The budget is found by its
 * selector, as the eviction API finds it, so this works against any API server.
 *
 * Every wait (the 5 s between refused evictions, the 1 s polls for a pod to go, the timeout)
 * is on the injected Clock, so tests drive it with a FakeClock. The lines it logs keep the
 * helper's words, which the seed's daemon log shows.
 */
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { formatDuration } from '../api/duration.ts';
import { matchLabelSelector, type LabelSelector } from '../api/label-selector.ts';
import { ApiError, isNotFound, isTooManyRequests, type ApiClient } from './client.ts';
import { realClock, sleep, type Clock } from './clock.ts';
import { objectPath, resources } from './resources.ts';
import { compareStrings } from '../api/compare.ts';

/** Where a drain's progress goes: kubectl's Out (info) and ErrOut (error). A pino logger fits. */
export interface DrainLog {
  info(message: string): void;
  error(message: string): void;
}

export interface DrainOptions {
  /** Give up after this long, as kubectl's `--timeout` (the MCO's drain uses 1m30s); 0 waits for ever. Default 90 s. */
  readonly timeoutMs?: number;
  /** Between two evictions of a pod its budget refused; kubectl waits 5 s. */
  readonly retryIntervalMs?: number;
  /** Between two checks that an evicted pod is gone; kubectl checks each second. */
  readonly deletePollMs?: number;
  /** The evicted pods' grace period; their own when unset (kubectl's -1). */
  readonly gracePeriodSeconds?: number;
  /**
   * Count a pod as gone once its deletion is this many seconds overdue, as kubectl's
   * `--skip-wait-for-delete-timeout`: on a node whose kubelet is unreachable nothing will ever
   * finish the deletion (the Machine API's drain sets it for such nodes). Unset: wait for them.
   */
  readonly skipWaitForDeleteTimeoutSeconds?: number;
  /**
   * The caller has cordoned the node itself, e.g. under a lock of its own that must cover the
   * cordon (the Machine API's one-control-plane-node-at-a-time rule): the drain does not again.
   */
  readonly cordoned?: boolean;
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
  readonly log?: DrainLog;
}

/** What stopped a drain, per pod: the budget in its way when one is. */
export interface DrainBlocker {
  /** `namespace/name` */
  readonly pod: string;
  /** `namespace/name` of the PodDisruptionBudget that refused the eviction, when one did. */
  readonly budget?: string;
  readonly message: string;
}

/** A drain that did not finish; the node stays cordoned, as the helper leaves it. */
export class DrainError extends Error {
  readonly node: string;
  readonly blockers: readonly DrainBlocker[];
  constructor(node: string, blockers: readonly DrainBlocker[], detail?: string) {
    super(`failed to drain node ${node}: ${detail ?? blockers.map((b) => b.message).join('; ')}`);
    this.name = 'DrainError';
    this.node = node;
    this.blockers = blockers;
  }
}

export interface DrainResult {
  /** `namespace/name` of every pod evicted and gone. */
  readonly evicted: readonly string[];
  /** `namespace/name` of the DaemonSet pods left running. */
  readonly ignored: readonly string[];
}

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** kubectl's wording of its warnings, each followed by the pods it concerns. */
export const drainWarnings = {
  daemonSet: 'ignoring DaemonSet-managed Pods',
  orphanedDaemonSet: 'deleting Pods whose DaemonSet is gone',
  unmanaged: 'deleting Pods that declare no controller',
  localStorage: 'deleting Pods with local storage',
} as const;

export type DrainWarning = keyof typeof drainWarnings;

export interface DrainPlan {
  readonly evict: readonly V1Pod[];
  /** DaemonSet pods, left where they are. */
  readonly ignored: readonly V1Pod[];
  /** Pods named in each warning, in the order given. */
  readonly warnings: ReadonlyMap<DrainWarning, readonly string[]>;
}

export const podKey = (p: V1Pod): string => `${p.metadata?.namespace}/${p.metadata?.name}`;

const isFinished = (p: V1Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Whether the pod's deletion is more than `skipSeconds` overdue at `wallNowMs` (kubectl's skip-wait-for-delete rule). */
export function deletionOverdue(p: V1Pod, skipSeconds: number | undefined, wallNowMs: number): boolean {
  const at = p.metadata?.deletionTimestamp;
  if (!skipSeconds || skipSeconds <= 0 || at === undefined) return false;
  return wallNowMs - new Date(at).getTime() > skipSeconds * 1000;
}

/** The pod's DaemonSet as `namespace/name`, when a DaemonSet controls it. */
export function daemonSetOf(p: V1Pod): string | undefined {
  const ref = p.metadata?.ownerReferences?.find((r) => r.controller);
  return ref?.kind === 'DaemonSet' && ref.apiVersion?.startsWith('apps/') ? `${p.metadata?.namespace}/${ref.name}` : undefined;
}

/**
 * Which of a node's pods a drain evicts, as the helper's filters decide with the MCO's options
 * (ignore DaemonSets, force, delete emptyDir data). `daemonSets` holds the DaemonSets that exist
 * (`namespace/name`): a pod whose DaemonSet is gone has nothing to bring it back, so it goes.
 */
export function planDrain(pods: readonly V1Pod[], daemonSets: ReadonlySet<string>): DrainPlan {
  const evict: V1Pod[] = [];
  const ignored: V1Pod[] = [];
  const warnings = new Map<DrainWarning, string[]>();
  const warn = (w: DrainWarning, p: V1Pod): void => {
    warnings.set(w, [...(warnings.get(w) ?? []), podKey(p)]);
  };
  for (const p of [...pods].sort((a, b) => compareStrings(podKey(a), podKey(b)))) {
    if (p.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) continue;
    const ds = daemonSetOf(p);
    if (ds && daemonSets.has(ds)) {
      ignored.push(p);
      warn('daemonSet', p);
      continue;
    }
    if (ds) warn('orphanedDaemonSet', p);
    else if (!isFinished(p) && !p.metadata?.ownerReferences?.some((r) => r.controller)) warn('unmanaged', p);
    if (!isFinished(p) && p.spec?.volumes?.some((v) => v.emptyDir)) warn('localStorage', p);
    evict.push(p);
  }
  return { evict, ignored, warnings };
}

/** The helper's one warning line: `WARNING: ignoring DaemonSet-managed Pods: a/b, c/d; deleting …`. */
export function warningLine(warnings: DrainPlan['warnings']): string | undefined {
  // A fixed order, DaemonSet pods first as in the seed's log, whatever order the pods came in.
  const parts = (Object.keys(drainWarnings) as DrainWarning[]).filter((w) => warnings.get(w)?.length).map((w) => `${drainWarnings[w]}: ${warnings.get(w)!.join(', ')}`);
  return parts.length ? `WARNING: ${parts.join('; ')}` : undefined;
}

/** The budgets (`namespace/name`, by name) whose selector picks the pod, as the eviction API picks them. */
export function budgetsFor(pod: V1Pod, budgets: readonly V1PodDisruptionBudget[]): string[] {
  return budgets
    .filter((b) => b.metadata?.namespace === pod.metadata?.namespace && matchLabelSelector(b.spec?.selector as LabelSelector | undefined, pod.metadata?.labels))
    .map((b) => `${b.metadata?.namespace}/${b.metadata?.name}`)
    .sort();
}

/**
 * The server's own words for a refused eviction. Shipyard's API server appends the budget's
 * state to kube's message (kubectl drain prints nothing else); the cause is dropped here so the
 * log line reads as the helper's does on any server, and the budget is named separately.
 */
export function evictionMessage(err: ApiError): string {
  const message = err.status.message ?? '';
  for (const c of err.details?.causes ?? []) {
    if (c.reason !== 'DisruptionBudget' || !c.message) continue;
    const suffix = ` ${c.message}.`;
    if (message.endsWith(suffix)) return message.slice(0, -suffix.length);
  }
  return message;
}

/**
 * Marks the node unschedulable; false when it already was (nothing written). `current` is the
 * node as the caller has just read it, which saves reading it again.
 */
export async function cordonNode(client: ApiClient, name: string, current?: V1Node): Promise<boolean> {
  return setUnschedulable(client, name, true, current);
}

/** Makes the node schedulable again; false when it already was. */
export async function uncordonNode(client: ApiClient, name: string): Promise<boolean> {
  return setUnschedulable(client, name, false);
}

async function setUnschedulable(client: ApiClient, name: string, desired: boolean, current?: V1Node): Promise<boolean> {
  const node = current ?? (await client.get<V1Node>(resources.nodes, undefined, name));
  if ((node.spec?.unschedulable ?? false) === desired) return false;
  // null removes the field, as kubectl's uncordon patch does: an unset field is the default.
  await client.patch(resources.nodes, undefined, name, { spec: { unschedulable: desired ? true : null } }, { type: 'strategic' });
  return true;
}

/** The pods bound to the node, in every namespace. */
async function podsOn(client: ApiClient, node: string, signal?: AbortSignal): Promise<V1Pod[]> {
  return (await client.listAll<V1Pod>(resources.pods, undefined, { fieldSelector: `spec.nodeName=${node}`, signal })).items;
}

async function existingDaemonSets(client: ApiClient, pods: readonly V1Pod[]): Promise<Set<string>> {
  const wanted = new Set(pods.map(daemonSetOf).filter((k): k is string => k !== undefined));
  const found = new Set<string>();
  for (const key of wanted) {
    const [ns, name] = key.split('/') as [string, string];
    try {
      await client.get(resources.daemonSets, ns, name);
      found.add(key);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return found;
}

/** How one pod's eviction ended: gone, or stopped with a message (and whether a budget refused it). */
interface PodOutcome {
  readonly pod: V1Pod;
  readonly failure?: { readonly message: string; readonly budgetRefused?: boolean };
}

/**
 * Cordons the node and evicts every pod a drain moves, waiting until they are gone. Resolves
 * with what it evicted and what it left; rejects with a DrainError naming each pod still in the
 * way (and its budget) once the timeout passes, or at once on an error a retry cannot fix.
 * The node is left cordoned either way: the caller uncordons when its work is done.
 */
export async function drainNode(client: ApiClient, nodeName: string, o: DrainOptions = {}): Promise<DrainResult> {
  const clock = o.clock ?? realClock;
  const signal = o.signal ?? new AbortController().signal;
  const timeoutMs = o.timeoutMs ?? 90_000;
  const deadline = timeoutMs > 0 ? clock.now() + timeoutMs : Infinity;
  const log = o.log;

  if (!o.cordoned) await cordonNode(client, nodeName);
  const skip = o.skipWaitForDeleteTimeoutSeconds;
  const pods = (await podsOn(client, nodeName, signal)).filter((p) => !deletionOverdue(p, skip, clock.wallNow()));
  const plan = planDrain(pods, await existingDaemonSets(client, pods));
  const warning = warningLine(plan.warnings);
  if (warning) log?.error(warning);

  const step = { client, clock, signal, deadline, timeoutMs, log, retryIntervalMs: o.retryIntervalMs ?? 5000, deletePollMs: o.deletePollMs ?? 1000, gracePeriodSeconds: o.gracePeriodSeconds, skipWaitForDeleteTimeoutSeconds: skip };
  // In parallel, as the helper runs one goroutine per pod: one budget in the way must not hold back the rest.
  const outcomes = await Promise.all(plan.evict.map((pod) => evictAndWait(pod, step)));
  const failed = outcomes.filter((r) => r.failure !== undefined);
  if (signal.aborted) throw new DrainError(nodeName, failed.map(blockerOf([])), 'drain aborted');
  if (failed.length) {
    // The budget is named once the drain has given up, found by selector as the eviction API finds it.
    const budgets = await budgetsIn(client, new Set(failed.filter((r) => r.failure?.budgetRefused).map((r) => r.pod.metadata?.namespace ?? '')));
    throw new DrainError(nodeName, failed.map(blockerOf(budgets)));
  }
  return { evicted: plan.evict.map(podKey), ignored: plan.ignored.map(podKey) };
}

interface Step {
  readonly client: ApiClient;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly retryIntervalMs: number;
  readonly deletePollMs: number;
  readonly gracePeriodSeconds?: number;
  readonly skipWaitForDeleteTimeoutSeconds?: number;
  readonly log?: DrainLog;
}

/** Sleeps `ms`, but not past the deadline; false when the deadline or an abort came first. */
async function waitUntilNext(s: Step, ms: number): Promise<boolean> {
  const left = s.deadline - s.clock.now();
  if (left <= 0 || s.signal.aborted) return false;
  await sleep(Math.min(ms, left), s.signal, s.clock);
  return !s.signal.aborted && s.clock.now() < s.deadline;
}

async function evictAndWait(pod: V1Pod, s: Step): Promise<PodOutcome> {
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const key = podKey(pod);
  const timeout = `global timeout reached: ${formatDuration(s.timeoutMs)}`;
  s.log?.info(`evicting pod ${key}`);
  /** The last refusal by the server (a 429), reported at the deadline over a later failure to reach it. */
  let lastRefusal: { refused: string; budgetRefused: boolean } | undefined;
  for (;;) {
    try {
      await s.client.request('POST', objectPath(resources.pods, ns, name, 'eviction'), {
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace: ns },
          ...(s.gracePeriodSeconds !== undefined ? { deleteOptions: { gracePeriodSeconds: s.gracePeriodSeconds } } : {}),
        },
        signal: s.signal,
      });
      break;
    } catch (err) {
      if (s.signal.aborted) return { pod, failure: { message: `Cannot evict pod ${key}: drain aborted` } };
      if (isNotFound(err)) return { pod };
      const message = err instanceof ApiError ? err.status.message || err.message : (err as Error).message;
      // No answer (a connection reset by an API server restarting, say) or a 5xx may pass: tried
      // again as a 429 is; any other refusal is final.
      const unanswered = !(err instanceof ApiError) || err.code >= 500;
      if (!isTooManyRequests(err) && !unanswered) return { pod, failure: { message: `error when evicting pod "${name}": ${message}` } };
      if (isTooManyRequests(err)) {
        const refused = evictionMessage(err as ApiError);
        // A 429 that no budget caused (a server shedding load) keeps the server's words.
        lastRefusal = { refused, budgetRefused: (err as ApiError).details?.causes?.some((c) => c.reason === 'DisruptionBudget') || /disruption budget/i.test(refused) };
        s.log?.error(`error when evicting pod "${name}" (will retry after ${formatDuration(s.retryIntervalMs)}): ${refused}`);
      } else {
        s.log?.error(`error when evicting pod "${name}" (will retry after ${formatDuration(s.retryIntervalMs)}): ${message}`);
      }
      if (!(await waitUntilNext(s, s.retryIntervalMs))) {
        if (lastRefusal) return { pod, failure: { message: `Cannot evict pod ${key}: ${lastRefusal.refused} (${timeout})`, budgetRefused: lastRefusal.budgetRefused } };
        return { pod, failure: { message: `error when evicting pod "${name}": ${message} (${timeout})` } };
      }
    }
  }
  // Evicted: wait until it is gone, or replaced by a pod of the same name (a StatefulSet's).
  for (;;) {
    try {
      const current = await s.client.get<V1Pod>(resources.pods, ns, name, { signal: s.signal });
      if (current.metadata?.uid !== pod.metadata?.uid || deletionOverdue(current, s.skipWaitForDeleteTimeoutSeconds, s.clock.wallNow())) break;
    } catch (err) {
      if (isNotFound(err)) break;
      if (s.signal.aborted) return { pod, failure: { message: `pod ${key} was evicted; drain aborted before it was gone` } };
      // A failed read is no reason to give up: the deadline decides.
    }
    if (!(await waitUntilNext(s, s.deletePollMs))) return { pod, failure: { message: `pod ${key} was evicted but has not terminated: ${timeout}` } };
  }
  s.log?.info(`evicted pod ${key}`);
  return { pod };
}

async function budgetsIn(client: ApiClient, namespaces: ReadonlySet<string>): Promise<V1PodDisruptionBudget[]> {
  const all: V1PodDisruptionBudget[] = [];
  for (const ns of namespaces) {
    // Without the budgets the message still names the pod; the refusal is what matters.
    const list = await client.list<V1PodDisruptionBudget>(resources.podDisruptionBudgets, ns).catch(() => undefined);
    all.push(...(list?.items ?? []));
  }
  return all;
}

/** The blocker a failed pod makes, naming the budget that refused it when one is found. */
const blockerOf =
  (budgets: readonly V1PodDisruptionBudget[]) =>
  ({ pod, failure }: PodOutcome): DrainBlocker => {
    const key = podKey(pod);
    const found = failure?.budgetRefused ? budgetsFor(pod, budgets) : [];
    if (!found.length) return { pod: key, message: failure?.message ?? '' };
    return { pod: key, budget: found.join(', '), message: `Cannot evict pod ${key}: would violate PodDisruptionBudget ${found.join(', ')}` };
  };
