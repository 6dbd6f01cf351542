/**
 * How an operator's many conditions become its ClusterOperator's few, as library-go's status
 * controller does it (`pkg/operator/status/condition.go`; issue 17, item 7): every condition
 * whose type ends with `Degraded` feeds Degraded, `Progressing` Progressing, and so on. Each
 * union has a default status (Degraded and Progressing False, Available and Upgradeable True).
 * When every input has it, the union has it too, with reason `AsExpected` and all the inputs'
 * messages; when some do not, the union takes the opposite status if any input has it (else
 * Unknown), reason `<type less the suffix>_<reason>` of each of those inputs, sorted and joined
 * by `::`, and only their messages. Messages are kept line by line, each line prefixed by its
 * condition's type. With no input at all the union is Unknown, reason `NoData`.
 *
 * Degraded has inertia: a Degraded input counts only once it has been so for longer than its
 * inertia (2 minutes by default, settable per condition-type pattern), so a blip of a few
 * seconds never reaches `kubectl get clusteroperators`. Time is read from a Clock's wall time,
 * so tests fix it.
 *
 * One Shipyard rule library-go does not have: a condition named exactly `Degraded`,
 * `Progressing`, `Available` or `Upgradeable` is not an input to that union. Shipyard's
 * KubeAPIServer carries a `Degraded` condition that is itself this union (its DEGRADED column),
 * and counting it again would report every degradation twice. `EvaluationConditionsDetected`,
 * which library-go's pod-security readiness controller writes under that exact name, is an
 * input as upstream.
 */
import type { ClusterOperatorStatusCondition } from '../api/config/index.ts';
import { type Clock, realClock } from './clock.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** An operator condition (openshift/api's OperatorCondition) as the union reads it. */
export interface OperatorConditionLike {
  readonly type: string;
  readonly status: string;
  /** Missing counts as long ago, as Go's zero time does. */
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface UnionCondition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  /** Absent when the conditions that decided the union say nothing. */
  readonly message?: string;
  /** The newest transition among the conditions that decided the union; absent with NoData. */
  readonly lastTransitionTime?: string;
}

/** How long a condition must have held its (bad) status before the union counts it, in ms. */
export type Inertia = (condition: OperatorConditionLike) => number;

export interface InertiaRule {
  /** Matched against the condition type; the first matching rule wins. */
  readonly match: RegExp;
  readonly durationMs: number;
}

export const defaultDegradedInertiaMs = 2 * 60_000;

export function newInertia(defaultMs: number, rules: readonly InertiaRule[] = []): Inertia {
  return (condition) => rules.find((r) => r.match.test(condition.type))?.durationMs ?? defaultMs;
}

/**
 * The Degraded inertia of library-go's static-pod operators (the kube-apiserver operator's):
 * 2 minutes, and 10 for the conditions that flap while nodes or static pods restart in a
 * normal rollout.
 */
export const staticPodDegradedInertiaRules: readonly InertiaRule[] = [{ match: /^(NodeControllerDegraded|StaticPodsDegraded|GuardControllerDegraded)$/, durationMs: 10 * 60_000 }];

export const staticPodDegradedInertia: Inertia = newInertia(defaultDegradedInertiaMs, staticPodDegradedInertiaRules);

export interface UnionOptions {
  /** Unset: every input counts at once (Progressing, Available, Upgradeable). */
  readonly inertia?: Inertia;
  readonly clock?: Clock;
}

/** The condition types whose exact name is an aggregate, never an input (see the module comment). */
const aggregateTypes = new Set(['Degraded', 'Progressing', 'Available', 'Upgradeable']);

const transitionMs = (c: OperatorConditionLike): number => {
  const t = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
};

/** Each condition's lines (a line repeated within one condition once), as `<Type>: <line>`. */
function unionMessage(conditions: readonly OperatorConditionLike[]): string {
  const lines: string[] = [];
  for (const c of conditions) {
    if (!c.message) continue;
    for (const line of new Set(c.message.split('\n'))) lines.push(`${c.type}: ${line}`);
  }
  return lines.join('\n');
}

function unionReason(type: string, conditions: readonly OperatorConditionLike[]): string {
  const reasons = conditions.map((c) => {
    const prefix = c.type.slice(0, c.type.length - type.length);
    return c.reason ? `${prefix}_${c.reason}` : prefix;
  });
  return reasons.sort().join('::');
}

function latestTransition(conditions: readonly OperatorConditionLike[]): string | undefined {
  let latest: OperatorConditionLike | undefined;
  for (const c of conditions) if (transitionMs(c) > (latest ? transitionMs(latest) : Number.NEGATIVE_INFINITY)) latest = c;
  return latest?.lastTransitionTime;
}

function inputsOf(type: string, conditions: readonly OperatorConditionLike[]): OperatorConditionLike[] {
  return conditions.filter((c) => c.type.endsWith(type) && !(c.type === type && aggregateTypes.has(type)));
}

const opposite = (s: ConditionStatus): ConditionStatus => (s === 'True' ? 'False' : 'True');

/** One union condition of `type` over `conditions`, whose good status is `defaultStatus`. */
export function unionCondition(type: string, defaultStatus: 'True' | 'False', conditions: readonly OperatorConditionLike[], options: UnionOptions = {}): UnionCondition {
  const inputs = inputsOf(type, conditions);
  if (inputs.length === 0) return { type, status: 'Unknown', reason: 'NoData' };
  const bad = inputs.filter((c) => c.status !== defaultStatus).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const now = (options.clock ?? realClock).wallNow();
  const { inertia } = options;
  // Once one bad input is old enough, the union reports every bad input, young ones included.
  const counted = inertia ? bad.filter((c) => transitionMs(c) < now - inertia(c)) : bad;

  if (counted.length === 0) {
    const lastTransitionTime = latestTransition(inputs);
    return { type, status: defaultStatus, reason: 'AsExpected', message: unionMessage(inputs) || 'All is well', ...(lastTransitionTime && { lastTransitionTime }) };
  }
  const status: ConditionStatus = bad.some((c) => c.status === opposite(defaultStatus)) ? opposite(defaultStatus) : 'Unknown';
  const message = unionMessage(bad);
  const lastTransitionTime = latestTransition(bad);
  return { type, status, reason: unionReason(type, bad), ...(message && { message }), ...(lastTransitionTime && { lastTransitionTime }) };
}

/**
 * When a union with inertia should be computed again: the ms until the youngest-to-count bad
 * input outlives its inertia, or undefined when no input is waiting on it. library-go simply
 * resyncs every minute; an operator can requeue for exactly this long instead.
 */
export function untilInertiaElapses(type: string, defaultStatus: 'True' | 'False', conditions: readonly OperatorConditionLike[], options: UnionOptions & { readonly inertia: Inertia }): number | undefined {
  const now = (options.clock ?? realClock).wallNow();
  let soonest: number | undefined;
  for (const c of inputsOf(type, conditions)) {
    if (c.status === defaultStatus) continue;
    // The union counts a condition once it is strictly older than its inertia.
    const wait = transitionMs(c) + options.inertia(c) - now + 1;
    if (wait > 0 && (soonest === undefined || wait < soonest)) soonest = wait;
  }
  return soonest;
}

export interface ClusterOperatorUnionOptions {
  readonly clock?: Clock;
  /** Default: 2 minutes for every `*Degraded` input. */
  readonly degradedInertia?: Inertia;
  /** Under `managementState: Unmanaged` every condition is Unknown, reason `Unmanaged`. */
  readonly unmanaged?: boolean;
}

export type ClusterOperatorConditionUpdate = Omit<ClusterOperatorStatusCondition, 'lastTransitionTime'>;

const clusterOperatorUnions: ReadonlyArray<readonly [type: string, defaultStatus: 'True' | 'False']> = [
  ['Degraded', 'False'],
  ['Progressing', 'False'],
  ['Available', 'True'],
  ['Upgradeable', 'True'],
  ['EvaluationConditionsDetected', 'False'],
];

/**
 * The ClusterOperator conditions library-go's status controller writes from an operator CR's
 * conditions: Degraded (with inertia), Progressing, Available, Upgradeable and
 * EvaluationConditionsDetected, in that order. They carry no transition time: the caller sets
 * them with `setConditions` (api/config/conditions.ts), which moves a condition's time only
 * when its status changes, as library-go's SetStatusCondition does.
 */
export function clusterOperatorConditions(conditions: readonly OperatorConditionLike[], options: ClusterOperatorUnionOptions = {}): ClusterOperatorConditionUpdate[] {
  if (options.unmanaged) return clusterOperatorUnions.map(([type]) => ({ type, status: 'Unknown', reason: 'Unmanaged' }));
  return clusterOperatorUnions.map(([type, defaultStatus]) => {
    const inertia = type === 'Degraded' ? (options.degradedInertia ?? newInertia(defaultDegradedInertiaMs)) : undefined;
    const { lastTransitionTime: _, ...condition } = unionCondition(type, defaultStatus, conditions, { clock: options.clock, inertia });
    return condition;
  });
}
