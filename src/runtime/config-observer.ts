/**
 * The config observer of OpenShift's operators (library-go's configobserver): observers are
 * pure functions of listers that each return the part of the operand's config they own, and
 * the runner puts their answers together into the operator's `spec.observedConfig`, the middle
 * layer of the operand's config (style example 7).
 *
 * Each sync runs every observer, in random order, and merges their answers without override (a
 * value already there is kept); it merges them again in reverse order, and if the two differ,
 * two observers claim one path and the error `non-deterministic config observation detected`
 * says so. The result is written even when observers fail: "keep the last good value" is each
 * observer's job, by returning its previous sub-tree (`existing`) on error, so a path no
 * observer returns disappears. A change is written with the Event `ObservedConfigChanged`
 * "Writing updated observed config: <unified diff>", and the condition
 * `ConfigObservationDegraded` is False, or True with reason `Error` and the sorted errors one
 * per line. Errors also go back to the queue, so the sync is retried with backoff.
 *
 * Beyond upstream, where a panicking observer takes the operator down: an observer that throws
 * is an error naming it, and that sync writes no observedConfig, since what that observer owns
 * cannot be known.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { setCondition } from '../api/config/conditions.ts';
import { errorText, isConflict, type ApiClient } from './client.ts';
import type { ControllerContext, EventSubject } from './context.ts';
import { Controller } from './controller.ts';
import type { Informer } from './informer.ts';
import { jsonDiff } from './json-diff.ts';
import type { DeepReadonly } from './readonly.ts';
import type { ResourceRef } from './resources.ts';
import { isPlainObject, type SparseConfig } from './sparse-config.ts';
import { statusTargetOf, updateStatus } from './update-status.ts';

/** Where an observer records Events: bound to the operator's event subject by the runner. */
export interface ObserverRecorder {
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface Observation {
  /** The sparse config this observer owns; on error, its previous sub-tree from `existing`. */
  readonly config: SparseConfig;
  readonly errors: readonly (Error | string)[];
}

/** An observer, typed by the listers it reads (`{ endpoints: ReadonlyCache<V1Endpoints> }`). */
export type ConfigObserverFunc<L> = (listers: L, recorder: ObserverRecorder, existing: DeepReadonly<SparseConfig>) => Observation;

export const configObservationDegraded = 'ConfigObservationDegraded';
export const nonDeterministicError = 'non-deterministic config observation detected';

/** Fisher-Yates with Math.random: library-go's rand.Perm. */
export function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * mergo.Merge without override, as library-go merges observers' answers: `src` fills what
 * `dst` lacks (absent or null), objects merge recursively, anything `dst` already has is kept.
 */
export function mergeNoOverride(dst: SparseConfig, src: DeepReadonly<SparseConfig>): void {
  for (const [key, value] of Object.entries(src)) {
    if (value === null || value === undefined) continue;
    const here = dst[key];
    if (here === null || here === undefined) dst[key] = structuredClone(value);
    else if (isPlainObject(here) && isPlainObject(value)) mergeNoOverride(here, value);
  }
}

const asText = (e: Error | string): string => (typeof e === 'string' ? e : e.message);

export interface ObserveOptions<L> {
  readonly observers: readonly ConfigObserverFunc<L>[];
  readonly listers: L;
  readonly recorder: ObserverRecorder;
  readonly existing: DeepReadonly<SparseConfig>;
  /** The order observers run in; random by default (tests pass a fixed one). */
  readonly shuffle?: <T>(items: readonly T[]) => T[];
}

export interface ObserveResult {
  /** The observed config to write; undefined when an observer threw and nothing may be written. */
  readonly config: SparseConfig | undefined;
  /** Sorted. */
  readonly errors: readonly string[];
}

/** One sync's observation, without the API: the runner's pure core. */
export function observeConfig<L>(o: ObserveOptions<L>): ObserveResult {
  const errors: string[] = [];
  const answers: DeepReadonly<SparseConfig>[] = [];
  let threw = false;
  for (const observe of (o.shuffle ?? shuffled)(o.observers)) {
    try {
      const answer = observe(o.listers, o.recorder, o.existing);
      answers.push(answer.config as DeepReadonly<SparseConfig>);
      errors.push(...answer.errors.map(asText));
    } catch (err) {
      threw = true;
      errors.push(`config observer ${observe.name || '(anonymous)'} failed: ${errorText(err)}`);
    }
  }
  const forward: SparseConfig = {};
  for (const a of answers) mergeNoOverride(forward, a);
  const reverse: SparseConfig = {};
  for (const a of [...answers].reverse()) mergeNoOverride(reverse, a);
  if (!isDeepStrictEqual(forward, reverse)) errors.push(nonDeterministicError);
  return { config: threw ? undefined : forward, errors: errors.sort() };
}

/** An operator custom resource: `spec.observedConfig` is the runner's, `status.conditions` shared. */
interface OperatorObject extends KubernetesObject {
  spec?: { observedConfig?: unknown; [k: string]: unknown };
  status?: OperatorStatus;
}

interface OperatorCondition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

interface OperatorStatus {
  conditions?: OperatorCondition[];
  [k: string]: unknown;
}

export interface ConfigObserverControllerOptions<L> {
  /** The operator's custom resource kind (operator.openshift.io/v1 KubeAPIServer for issue 17). */
  readonly operator: ResourceRef;
  /** The singleton's name; default `cluster`. */
  readonly operatorName?: string;
  readonly observers: readonly ConfigObserverFunc<L>[];
  readonly listers: L;
  /** The informers behind `listers`: any change of theirs runs the observers again. */
  readonly inputs: readonly Informer<KubernetesObject>[];
  /** What the Events are about (upstream: the operator's Deployment); default the operator resource. */
  readonly eventSubject?: EventSubject;
  /** A sync this often even without changes (library-go: 1 min); default 60 s. */
  readonly resyncMs?: number;
  readonly shuffle?: <T>(items: readonly T[]) => T[];
  /** Default `ConfigObserver`. */
  readonly name?: string;
}

const WRITE_ATTEMPTS = 3;

/** library-go's UpdateSpec for observedConfig: a PUT on the object as read, read again on a conflict. */
async function writeObservedConfig(client: ApiClient, ref: ResourceRef, cached: DeepReadonly<OperatorObject>, config: SparseConfig): Promise<OperatorObject> {
  let current = structuredClone(cached) as OperatorObject;
  for (let attempt = 1; ; attempt++) {
    current.spec = { ...current.spec, observedConfig: config };
    try {
      return await client.update<OperatorObject>(ref, current);
    } catch (err) {
      if (!isConflict(err) || attempt >= WRITE_ATTEMPTS) throw err;
      current = await client.get<OperatorObject>(ref, current.metadata?.namespace, current.metadata!.name!);
    }
  }
}

/** JSON's view: what the API server would store and give back. */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? {}));

export function createConfigObserverController<L>(ctx: ControllerContext, o: ConfigObserverControllerOptions<L>): Controller {
  const name = o.operatorName ?? 'cluster';
  const resyncMs = o.resyncMs ?? 60_000;
  const operators = ctx.informers.informer<OperatorObject>(o.operator);
  const logger = ctx.logger.child({ controller: o.name ?? 'ConfigObserver' });

  const reconcile = async (key: string) => {
    await Promise.all([operators, ...o.inputs].map((i) => i.waitForSync()));
    let op = operators.store.get(key);
    if (!op) return;
    const subject = o.eventSubject ?? { ...op, apiVersion: op.apiVersion ?? `${o.operator.group}/${o.operator.version}`, kind: op.kind ?? o.operator.kind };
    const recorder: ObserverRecorder = { event: (type, reason, message) => ctx.recorder.event(subject, type, reason, message) };
    const observed = op.spec?.observedConfig;
    const existing = (isPlainObject(observed) ? observed : {}) as DeepReadonly<SparseConfig>;
    const result = observeConfig({ observers: o.observers, listers: o.listers, recorder, existing, shuffle: o.shuffle });
    let errors = result.errors;
    if (result.config && !isDeepStrictEqual(asJson(existing), asJson(result.config))) {
      recorder.event('Normal', 'ObservedConfigChanged', `Writing updated observed config: ${jsonDiff(existing, result.config)}`);
      try {
        op = (await writeObservedConfig(ctx.client, o.operator, op, result.config)) as DeepReadonly<OperatorObject>;
        logger.info({ key }, 'wrote observed config');
      } catch (err) {
        // A write that keeps failing hides what the observers said: report only it, as upstream does.
        errors = [`error writing updated observed config: ${errorText(err)}`];
        recorder.event('Warning', 'ObservedConfigWriteError', `Failed to write observed config: ${errorText(err)}`);
      }
    }
    const condition = errors.length ? { type: configObservationDegraded, status: 'True', reason: 'Error', message: errors.join('\n') } : { type: configObservationDegraded, status: 'False' };
    await updateStatus<OperatorStatus>(ctx.client, statusTargetOf(o.operator, op), (status) => ({
      ...status,
      conditions: setCondition(status.conditions, condition, ctx.clock.wallNow()),
    }));
    if (errors.length) throw new Error(errors.join('; '));
    return { requeueAfterMs: resyncMs };
  };

  const controller = new Controller({
    name: o.name ?? 'ConfigObserver',
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(o.name ?? 'ConfigObserver'),
    onError: (r) => logger.warn({ key: r.key, err: errorText(r.error) }, 'config observation failed'),
  });
  controller.watch(operators, (obj) => obj.metadata?.name === name);
  for (const input of o.inputs) controller.watchMapped(input, () => [name]);
  return controller;
}
