/**
 * Printers for batch/v1: jobs (STATUS as kube 1.32 derives it from the conditions,
 * COMPLETIONS `1/1` or `0/1 of 3` for a work queue, DURATION from start to completion or to now)
 * and cronjobs (SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE), each with the wide columns
 * CONTAINERS, IMAGES and SELECTOR, as kube-apiserver prints them.
 */
import { formatLabelSelector } from '../../api/label-selector.ts';
import { ageColumn, column, containerCells, containersColumn, imagesColumn, int, nameColumn, text, wide } from './columns.ts';
import { ageSince, humanDuration, parseTimestamp } from './human-duration.ts';
import type { PrintedObject, TableConvertor } from './types.ts';

const selectorColumn = wide('Selector', 'string', 'A label query over the pods the Job runs.');

const hasCondition = (job: PrintedObject, type: string): boolean =>
  (Array.isArray(job.status?.conditions) ? job.status.conditions : []).some((c: PrintedObject) => c?.type === type && c?.status === 'True');

/** The STATUS cell: finished first, then being deleted, suspended, and the interim conditions of a finishing Job. */
export function jobStatus(job: PrintedObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(job: PrintedObject): string {
  const succeeded = int(job.status?.succeeded);
  if (typeof job.spec?.completions === 'number') return `${succeeded}/${int(job.spec.completions)}`;
  const parallelism = int(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: PrintedObject, now: number): string {
  const start = parseTimestamp(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTimestamp(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

export const jobTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of pods which reached phase Succeeded, out of the completions wanted.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    wide('Containers', 'string', 'Names of each container in the template.'),
    wide('Images', 'string', 'Images referenced by each container in the template.'),
    selectorColumn,
  ],
  cells(job, now) {
    const [names, images] = containerCells(job.spec?.template?.spec?.containers);
    return [text(job.metadata?.name), jobStatus(job), jobCompletions(job), jobDuration(job, now), ageSince(job.metadata?.creationTimestamp, now), names, images, formatLabelSelector(job.spec?.selector)];
  },
};

/** Go's printBoolPtr. */
function boolPtr(value: unknown): string {
  if (typeof value !== 'boolean') return '<unset>';
  return value ? 'True' : 'False';
}

export const cronJobTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Schedule', 'string', 'The schedule in Cron format.'),
    column('Timezone', 'string', 'The time zone name for the given schedule.'),
    column('Suspend', 'boolean', 'Whether the controller suspends subsequent executions.'),
    column('Active', 'integer', 'Pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'When the job was last successfully scheduled.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  cells(cj, now) {
    const jobSpec = cj.spec?.jobTemplate?.spec;
    const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
    const lastSchedule = cj.status?.lastScheduleTime ? ageSince(cj.status.lastScheduleTime, now) : '<none>';
    const timeZone = typeof cj.spec?.timeZone === 'string' ? cj.spec.timeZone : '<none>';
    const active = Array.isArray(cj.status?.active) ? cj.status.active.length : 0;
    return [text(cj.metadata?.name), text(cj.spec?.schedule), timeZone, boolPtr(cj.spec?.suspend), active, lastSchedule, ageSince(cj.metadata?.creationTimestamp, now), names, images, formatLabelSelector(jobSpec?.selector)];
  },
};
