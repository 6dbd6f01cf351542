/**
 * The TTL-after-finished controller, as kube-controller-manager's: a Job with
 * `ttlSecondsAfterFinished` is deleted that long after it finished (the lastTransitionTime of
 * its Complete or Failed condition), in the background, so the garbage collector removes its
 * pods. The decision is rechecked on a fresh read before deleting: the TTL may have been changed
 * or removed since the cache saw the Job, and a namesake must never be hit (uid precondition).
 */
import type { V1Job } from '@kubernetes/client-node';
import { isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, splitKey } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { COMPLETE, FAILED, findCondition } from './conditions.ts';

const NAME = 'ttl-after-finished';

/** When the Job may be deleted (wall ms), or undefined if it is not finished or has no TTL. */
export function expiresAt(job: DeepReadonly<V1Job>): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null || job.metadata?.deletionTimestamp) return undefined;
  const finished = [COMPLETE, FAILED].map((t) => findCondition(job.status?.conditions, t)).find((c) => c?.status === 'True');
  if (!finished) return undefined;
  const at = Date.parse(String(finished.lastTransitionTime ?? ''));
  return Number.isNaN(at) ? undefined : at + ttl * 1000;
}

export function createTtlAfterFinishedController(ctx: ControllerContext): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const jobs = ctx.informers.informer<V1Job>(resources.jobs);
  const controller = new Controller({
    name: NAME,
    workers: 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ key: r.key, err: String(r.error) }, 'TTL cleanup failed'),
    reconcile: async (key) => {
      const cached = jobs.store.get(key);
      if (!cached) return;
      const at = expiresAt(cached);
      if (at === undefined) return;
      const left = at - ctx.clock.wallNow();
      if (left > 0) return { requeueAfterMs: left };
      const { namespace, name } = splitKey(key);
      let fresh: V1Job;
      try {
        fresh = await ctx.client.get<V1Job>(resources.jobs, namespace, name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      const freshAt = expiresAt(fresh);
      if (freshAt === undefined) return;
      if (freshAt > ctx.clock.wallNow()) return { requeueAfterMs: freshAt - ctx.clock.wallNow() };
      logger.info({ key }, 'deleting the finished Job: its TTL has passed');
      await ctx.client.deleteIfExists(resources.jobs, namespace, name, { propagationPolicy: 'Background', preconditions: { uid: fresh.metadata?.uid } });
    },
  });
  controller.watch(jobs, (job) => job.spec?.ttlSecondsAfterFinished !== undefined && job.spec?.ttlSecondsAfterFinished !== null);
  return controller;
}
