/**
 * The CronJob controller, as kube-controller-manager's (v2): reconciles are keyed by CronJob and
 * each one asks to come back just after the next activation, on the injected clock. A Job's
 * events wake the CronJob that controls it (a finished Job leaves `status.active`, the history
 * is trimmed); a changed schedule or time zone is reconsidered at once.
 */
import type { V1CronJob, V1Job } from '@kubernetes/client-node';
import { localTimeZone } from '../../api/time-zone.ts';
import { isConflict } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { resources } from '../../runtime/resources.ts';
import { addOwnerIndexes } from '../workload-common/owners.ts';
import { makeCronJobReconcile } from './sync.ts';

export interface CronJobControllerOptions {
  /** Concurrent reconciles (kube's --concurrent-cron-job-syncs); default 5. */
  workers?: number;
  /** The zone of a CronJob that names none; the process's own zone by default, as kube's time.Local. */
  defaultTimeZone?: string;
}

const NAME = 'cronjob';

export function createCronJobController(ctx: ControllerContext, options: CronJobControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const cronJobs = ctx.informers.informer<V1CronJob>(resources.cronJobs);
  const jobs = ctx.informers.informer<V1Job>(resources.jobs);
  addOwnerIndexes(jobs);
  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger[isConflict(r.error) ? 'debug' : 'warn']({ key: r.key, err: String(r.error) }, 'sync failed'),
    reconcile: makeCronJobReconcile({
      client: ctx.client,
      cronJobs,
      jobs,
      recorder: ctx.recorder,
      now: () => ctx.clock.wallNow(),
      defaultTimeZone: options.defaultTimeZone ?? localTimeZone(),
    }),
  });
  controller.watch(cronJobs);
  controller.watchOwned(jobs, 'CronJob');
  return controller;
}
