/**
 * Strategies for batch/v1 Jobs and CronJobs: kube-apiserver's defaults (completions and
 * parallelism 1, backoffLimit 6, NonIndexed, concurrencyPolicy Allow, history limits 3 and 1),
 * the selector it generates for a Job (`batch.kubernetes.io/controller-uid` and the legacy
 * `controller-uid`, plus the `job-name` labels, on the pod template) unless `manualSelector`
 * is set, and validation with kube's field paths and wording: restart policy Never or
 * OnFailure, pod failure policy rules, Indexed completion, an immutable pod template, a cron
 * schedule that parses (robfig/cron's messages) and a `timeZone` Go's time package knows.
 */
import { isDeepStrictEqual } from 'node:util';
import { cronScheduleError } from '../../../api/cron.ts';
import { childPath, fieldError, type FieldError } from '../../../api/field-errors.ts';
import { matchLabelSelector, type LabelSelector } from '../../../api/label-selector.ts';
import { isDns1123Label, isQualifiedName } from '../../../api/names.ts';
import { timeZoneError } from '../../../api/time-zone.ts';
import type { KubeObject, Strategy } from '../resource.ts';
import { validateLabelSelector } from './apps-strategies.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';

const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';

const completionModes = ['NonIndexed', 'Indexed'];
const failurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const exitCodeOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];
const replacementPolicies = ['Failed', 'TerminatingOrFailed'];
const concurrencyPolicies = ['Allow', 'Forbid', 'Replace'];
const MAX_INT32 = 2 ** 31 - 1;
const MAX_INDEXED_PARALLELISM = 100_000;

const isObject = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const quoted = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, message: `${field}: Too many: ${actual}: must have at most ${max} items` };
}

/** ValidateNonnegativeField for each named integer field of `obj` that is set. */
function nonNegative(obj: KubeObject, path: string, names: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const n of names) {
    const v = obj[n];
    if (v === undefined || v === null) continue;
    if (!Number.isInteger(v)) errs.push(fieldError.typeInvalid(`${path}.${n}`, v, 'must be an integer'));
    else if (v < 0) errs.push(fieldError.invalid(`${path}.${n}`, v, 'must be greater than or equal to 0'));
  }
  return errs;
}

// --- defaults ------------------------------------------------------------------------------------

function defaultFailurePolicy(spec: KubeObject): void {
  const rules = spec.podFailurePolicy?.rules;
  if (!Array.isArray(rules)) return;
  for (const rule of rules) for (const pattern of Array.isArray(rule?.onPodConditions) ? rule.onPodConditions : []) if (isObject(pattern)) pattern.status ??= 'True';
}

/** Defaults every JobSpec gets, in a Job or a CronJob's jobTemplate: those of its pod template and failure policy. */
function defaultJobTemplateSpec(spec: KubeObject): void {
  if (isObject(spec.template)) defaultPodSpec(spec.template.spec);
  defaultFailurePolicy(spec);
}

/** SetDefaults_Job: only a Job itself gets them, not a CronJob's template. */
function defaultJob(obj: KubeObject): void {
  const spec = obj.spec;
  if (!isObject(spec)) return;
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null ? MAX_INT32 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  defaultJobTemplateSpec(spec);
}

/**
 * The generated selector: the pod template gets the Job's name and uid as labels (old and
 * prefixed keys), and the selector picks the uid. Labels the user set are left for
 * validation to judge.
 */
function generateSelector(obj: KubeObject): void {
  const spec = obj.spec;
  if (!isObject(spec) || !isObject(spec.template)) return;
  spec.template.metadata ??= {};
  const labels: Record<string, string> = (spec.template.metadata.labels ??= {});
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= obj.metadata.name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= obj.metadata.uid;
  spec.selector ??= {};
  if (isObject(spec.selector)) {
    spec.selector.matchLabels ??= {};
    spec.selector.matchLabels[CONTROLLER_UID_LABEL] ??= obj.metadata.uid;
  }
}

// --- Job validation ------------------------------------------------------------------------------

function hasLabel(template: KubeObject, key: string, expected: string): FieldError[] {
  const labels = template?.metadata?.labels ?? {};
  const path = `spec.template.metadata.labels[${key}]`;
  if (!Object.hasOwn(labels, key)) return [fieldError.required(path, `must be '${expected}'`)];
  if (labels[key] !== expected) return [fieldError.invalid(path, labels, `must be '${expected}'`)];
  return [];
}

/** validateGeneratedSelector: without manualSelector, the labels and selector must be the generated ones. */
function validateGeneratedSelector(job: KubeObject, requirePrefixed: boolean): FieldError[] {
  const spec = job.spec;
  if (spec.manualSelector === true || !isObject(spec.selector)) return [];
  const uid = String(job.metadata?.uid ?? '');
  const name = String(job.metadata?.name ?? '');
  const errs: FieldError[] = [];
  if (!uid) errs.push(fieldError.required('metadata.uid'));
  errs.push(...hasLabel(spec.template, LEGACY_CONTROLLER_UID_LABEL, uid), ...hasLabel(spec.template, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = { [LEGACY_CONTROLLER_UID_LABEL]: uid, [LEGACY_JOB_NAME_LABEL]: name };
  if (requirePrefixed) {
    errs.push(...hasLabel(spec.template, CONTROLLER_UID_LABEL, uid), ...hasLabel(spec.template, JOB_NAME_LABEL, name));
    expected[CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  if (validateLabelSelector(spec.selector, 'spec.selector').length === 0 && !matchLabelSelector(spec.selector as LabelSelector, expected)) {
    errs.push(fieldError.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  }
  return errs;
}

function validateExitCodes(req: KubeObject, path: string, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (req.operator === undefined || req.operator === '') errs.push(fieldError.required(`${path}.operator`, `valid values: ${quoted(exitCodeOperators)}`));
  else if (!exitCodeOperators.includes(req.operator)) errs.push(fieldError.notSupported(`${path}.operator`, req.operator, exitCodeOperators));
  if (req.containerName !== undefined && req.containerName !== null && !containerNames.has(req.containerName)) {
    errs.push(fieldError.invalid(`${path}.containerName`, req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values: unknown[] = Array.isArray(req.values) ? req.values : [];
  if (values.length === 0) errs.push(fieldError.invalid(`${path}.values`, req.values ?? null, 'at least one value is required'));
  else if (values.length > 255) errs.push(tooMany(`${path}.values`, values.length, 255));
  const seen = new Set<unknown>();
  let ordered = true;
  values.forEach((v, j) => {
    const vp = childPath(`${path}.values`, j);
    if (req.operator === 'In' && v === 0) errs.push(fieldError.invalid(vp, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldError.duplicate(vp, v));
    else seen.add(v);
    if (j > 0 && (values[j - 1] as number) > (v as number)) ordered = false;
  });
  if (!ordered) errs.push(fieldError.invalid(`${path}.values`, values, 'must be ordered'));
  return errs;
}

function validatePodConditions(patterns: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > 20) errs.push(tooMany(path, patterns.length, 20));
  patterns.forEach((p, j) => {
    const pp = childPath(path, j);
    const pattern = isObject(p) ? p : {};
    for (const m of isQualifiedName(String(pattern.type ?? ''))) errs.push(fieldError.invalid(`${pp}.type`, pattern.type ?? '', m));
    if (pattern.status === undefined || pattern.status === '') errs.push(fieldError.required(`${pp}.status`, `valid values: ${quoted(conditionStatuses)}`));
    else if (!conditionStatuses.includes(pattern.status)) errs.push(fieldError.notSupported(`${pp}.status`, pattern.status, conditionStatuses));
  });
  return errs;
}

function validatePodFailurePolicy(spec: KubeObject, path: string): FieldError[] {
  const policy = spec.podFailurePolicy;
  if (!isObject(policy)) return [fieldError.typeInvalid(path, policy, 'must be an object')];
  const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
  const errs: FieldError[] = [];
  if (rules.length > 20) errs.push(tooMany(`${path}.rules`, rules.length, 20));
  const pod = spec.template?.spec ?? {};
  const containerNames = new Set<string>([...(pod.containers ?? []), ...(pod.initContainers ?? [])].map((c: KubeObject) => c?.name));
  rules.forEach((r, i) => {
    const rp = childPath(`${path}.rules`, i);
    const rule = isObject(r) ? r : {};
    if (rule.action === undefined || rule.action === '') errs.push(fieldError.required(`${rp}.action`, `valid values: ${quoted(failurePolicyActions)}`));
    else if (rule.action === 'FailIndex') {
      if (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null) errs.push(fieldError.invalid(`${rp}.action`, rule.action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!failurePolicyActions.includes(rule.action)) errs.push(fieldError.notSupported(`${rp}.action`, rule.action, failurePolicyActions));
    const hasExitCodes = isObject(rule.onExitCodes);
    const conditions: unknown[] = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (hasExitCodes) errs.push(...validateExitCodes(rule.onExitCodes, `${rp}.onExitCodes`, containerNames));
    if (conditions.length) errs.push(...validatePodConditions(conditions, `${rp}.onPodConditions`));
    if (hasExitCodes && conditions.length) errs.push({ type: 'FieldValueInvalid', field: rp, message: `${rp}: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported` });
    if (!hasExitCodes && !conditions.length) errs.push({ type: 'FieldValueInvalid', field: rp, message: `${rp}: Invalid value: specifying one of OnExitCodes and OnPodConditions is required` });
  });
  return errs;
}

/** validateJobSpec: what a Job and a CronJob's jobTemplate share (paths under `path`). */
function validateJobSpecCommon(spec: KubeObject, path: string): FieldError[] {
  const errs = nonNegative(spec, path, ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']);
  const isSet = (v: unknown): boolean => v !== undefined && v !== null;
  if (isSet(spec.maxFailedIndexes) && !isSet(spec.backoffLimitPerIndex)) errs.push(fieldError.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  if (isSet(spec.completionMode)) {
    if (!completionModes.includes(spec.completionMode)) errs.push(fieldError.notSupported(`${path}.completionMode`, spec.completionMode, completionModes));
    if (spec.completionMode === 'Indexed') {
      if (!isSet(spec.completions)) errs.push(fieldError.required(`${path}.completions`, 'when completion mode is Indexed'));
      if (isSet(spec.parallelism) && spec.parallelism > MAX_INDEXED_PARALLELISM) {
        errs.push(fieldError.invalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`));
      }
      if (isSet(spec.completions) && isSet(spec.maxFailedIndexes) && spec.maxFailedIndexes > spec.completions) {
        errs.push(fieldError.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'must be less than or equal to completions'));
      }
    }
  }
  if (!isSet(spec.completionMode) || spec.completionMode === 'NonIndexed') {
    if (isSet(spec.backoffLimitPerIndex)) errs.push(fieldError.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isSet(spec.maxFailedIndexes)) errs.push(fieldError.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isSet(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (isSet(spec.successPolicy) && spec.completionMode !== 'Indexed') errs.push(fieldError.invalid(`${path}.successPolicy`, spec.successPolicy, 'requires indexed completion mode'));
  if (isSet(spec.podReplacementPolicy)) {
    const allowed = isSet(spec.podFailurePolicy) ? ['Failed'] : replacementPolicies;
    if (!allowed.includes(spec.podReplacementPolicy)) errs.push(fieldError.notSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, allowed));
  }
  if (!isObject(spec.template)) return [...errs, fieldError.required(`${path}.template`)];
  errs.push(...validatePodSpec(spec.template.spec, `${path}.template.spec`));
  const restartPolicy = spec.template.spec?.restartPolicy;
  const restartPath = `${path}.template.spec.restartPolicy`;
  if (restartPolicy === 'Always' || restartPolicy === undefined || restartPolicy === '') errs.push(fieldError.required(restartPath, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(fieldError.notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  else if (isSet(spec.podFailurePolicy) && restartPolicy !== 'Never') errs.push(fieldError.invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function validateJob(job: KubeObject, requirePrefixed = true): FieldError[] {
  const spec = job.spec;
  if (!isObject(spec)) return [fieldError.required('spec')];
  const errs = [...validateGeneratedSelector(job, requirePrefixed), ...validateJobSpecCommon(spec, 'spec')];
  if (spec.selector === undefined || spec.selector === null) errs.push(fieldError.required('spec.selector'));
  else {
    const selectorErrs = validateLabelSelector(spec.selector, 'spec.selector');
    errs.push(...selectorErrs);
    const labels = spec.template?.metadata?.labels ?? {};
    if (!selectorErrs.length && isObject(spec.template) && !matchLabelSelector(spec.selector as LabelSelector, labels)) {
      errs.push(fieldError.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
  }
  if (spec.completionMode === 'Indexed' && Number.isInteger(spec.completions) && spec.completions > 0) {
    const hostname = `${job.metadata?.name ?? ''}-${spec.completions - 1}`;
    if (isDns1123Label(hostname).length) errs.push(fieldError.invalid('metadata.name', job.metadata?.name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

function immutable(path: string, value: unknown, old: unknown): FieldError[] {
  return isDeepStrictEqual(value ?? null, old ?? null) ? [] : [fieldError.invalid(path, value ?? null, 'field is immutable')];
}

/**
 * A suspended Job that never started may still have its pod template's scheduling directives
 * (node selector, affinity, tolerations, scheduling gates) and labels and annotations changed,
 * so a queueing controller can place it before it runs (kube's JobMutableNodeSchedulingDirectives).
 */
function templateUpdateErrors(job: KubeObject, old: KubeObject): FieldError[] {
  const strip = (t: KubeObject | undefined): KubeObject => {
    const c = structuredClone(t ?? {});
    if (c.metadata) {
      delete c.metadata.labels;
      delete c.metadata.annotations;
    }
    for (const f of ['nodeSelector', 'affinity', 'tolerations', 'schedulingGates']) delete c.spec?.[f];
    return c;
  };
  const mutableScheduling = old.spec?.suspend === true && !old.status?.startTime;
  const [a, b] = mutableScheduling ? [strip(job.spec?.template), strip(old.spec?.template)] : [job.spec?.template, old.spec?.template];
  return isDeepStrictEqual(a ?? null, b ?? null) ? [] : [fieldError.invalid('spec.template', job.spec?.template ?? null, 'field is immutable')];
}

function validateJobUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const oldLabels = old.spec?.template?.metadata?.labels ?? {};
  const errs = validateJob(job, Object.hasOwn(oldLabels, CONTROLLER_UID_LABEL));
  const spec = job.spec ?? {};
  const oldSpec = old.spec ?? {};
  // Elastic Indexed Jobs: completions may follow parallelism when both change together.
  const elastic = spec.completionMode === 'Indexed' && oldSpec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
  if (!elastic) errs.push(...immutable('spec.completions', spec.completions, oldSpec.completions));
  errs.push(...immutable('spec.selector', spec.selector, oldSpec.selector));
  errs.push(...templateUpdateErrors(job, old));
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) errs.push(...immutable(`spec.${f}`, spec[f], oldSpec[f]));
  return errs;
}

function validateJobStatus(job: KubeObject): FieldError[] {
  const status = job.status;
  if (!isObject(status)) return [];
  const errs = nonNegative(status, 'status', ['active', 'succeeded', 'failed', 'ready', 'terminating']);
  const seen = new Set<string>();
  for (const list of ['succeeded', 'failed'] as const) {
    const uids: unknown[] = Array.isArray(status.uncountedTerminatedPods?.[list]) ? status.uncountedTerminatedPods[list] : [];
    uids.forEach((uid, i) => {
      const p = childPath(`status.uncountedTerminatedPods.${list}`, i);
      if (uid === '') errs.push(fieldError.invalid(p, uid, 'must not be empty'));
      else if (seen.has(String(uid))) errs.push(fieldError.duplicate(p, uid));
      else seen.add(String(uid));
    });
  }
  const isTrue = (type: string): boolean => (Array.isArray(status.conditions) ? status.conditions : []).some((c: KubeObject) => c?.type === type && c?.status === 'True');
  const conditionsError = (detail: string): FieldError => ({ type: 'FieldValueInvalid', field: 'status.conditions', message: `status.conditions: Invalid value: ${detail}` });
  if (isTrue('Complete') && isTrue('Failed')) errs.push(conditionsError('cannot set Complete=True and Failed=true conditions'));
  if (isTrue('Complete') && isTrue('FailureTarget')) errs.push(conditionsError('cannot set Complete=True and FailureTarget=true conditions'));
  if (isTrue('SuccessCriteriaMet') && isTrue('Failed')) errs.push(conditionsError('cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (isTrue('SuccessCriteriaMet') && isTrue('FailureTarget')) errs.push(conditionsError('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  const finished = isTrue('Complete') || isTrue('Failed');
  if (finished && Number.isInteger(status.active) && status.active > 0) errs.push(fieldError.invalid('status.active', status.active, 'active>0 is invalid for finished job'));
  if (Number.isInteger(status.ready) && Number.isInteger(status.active) && status.ready > status.active) errs.push(fieldError.invalid('status.ready', status.ready, 'cannot set more ready pods than active'));
  return errs;
}

export const jobStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  tracksGeneration: true,
  // kube-apiserver keeps batch/v1's old default: deleting a Job without a policy orphans its pods (kubectl asks for Background).
  defaultPropagationPolicy: 'Orphan',
  prepareForCreate(obj) {
    defaultJob(obj);
    obj.status = {};
    if (isObject(obj.spec) && obj.spec.manualSelector !== true) generateSelector(obj);
  },
  prepareForUpdate(obj, old) {
    defaultJob(obj);
    obj.status = old.status;
  },
  validate: (obj) => validateJob(obj),
  validateUpdate: validateJobUpdate,
  validateStatusUpdate: validateJobStatus,
};

// --- CronJob ---------------------------------------------------------------------------------------

function defaultCronJob(obj: KubeObject): void {
  const spec = obj.spec;
  if (!isObject(spec)) return;
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  if (isObject(spec.jobTemplate?.spec)) defaultJobTemplateSpec(spec.jobTemplate.spec);
}

function validateSchedule(spec: KubeObject, oldSpec: KubeObject | undefined): FieldError[] {
  const path = 'spec.schedule';
  const schedule = spec.schedule;
  if (schedule === undefined || schedule === null || schedule === '') return [fieldError.required(path)];
  if (typeof schedule !== 'string') return [fieldError.typeInvalid(path, schedule, 'must be a string')];
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError) errs.push(fieldError.invalid(path, schedule, parseError));
  // A schedule stored with TZ before `timeZone` existed may stay; new ones must use the field.
  const allowTz = typeof oldSpec?.schedule === 'string' && oldSpec.schedule.includes('TZ');
  if (allowTz && schedule.includes('TZ') && spec.timeZone !== undefined && spec.timeZone !== null) errs.push(fieldError.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  else if (!allowTz && schedule.includes('TZ')) errs.push(fieldError.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

const timeZonePart = /^[A-Za-z.\-_0-9+]{1,14}$/;

function validateTimeZone(zone: unknown): FieldError[] {
  const path = 'spec.timeZone';
  if (zone === undefined || zone === null) return [];
  if (typeof zone !== 'string') return [fieldError.typeInvalid(path, zone, 'must be a string')];
  if (zone === '') return [fieldError.invalid(path, zone, 'timeZone must be nil or non-empty string')];
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !timeZonePart.test(part)) return [fieldError.invalid(path, zone, `unknown time zone ${zone}`)];
  }
  const errs: FieldError[] = [];
  if (zone.toLowerCase() === 'local') errs.push(fieldError.invalid(path, zone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const unknown = zone === 'Local' ? undefined : timeZoneError(zone);
  if (unknown) errs.push(fieldError.invalid(path, zone, unknown));
  return errs;
}

function validateCronJobSpec(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObject(spec)) return [fieldError.required('spec')];
  const errs = [...validateSchedule(spec, old?.spec), ...nonNegative(spec, 'spec', ['startingDeadlineSeconds'])];
  if (spec.concurrencyPolicy === undefined || spec.concurrencyPolicy === '') errs.push(fieldError.required('spec.concurrencyPolicy'));
  else if (!concurrencyPolicies.includes(spec.concurrencyPolicy)) errs.push(fieldError.notSupported('spec.concurrencyPolicy', spec.concurrencyPolicy, concurrencyPolicies));
  const jobSpec = spec.jobTemplate?.spec;
  const jobPath = 'spec.jobTemplate.spec';
  if (!isObject(jobSpec)) errs.push(fieldError.required(jobPath));
  else {
    errs.push(...validateJobSpecCommon(jobSpec, jobPath));
    // The Job's selector is generated when the controller creates it.
    if (jobSpec.selector !== undefined && jobSpec.selector !== null) errs.push(fieldError.invalid(`${jobPath}.selector`, jobSpec.selector, '`selector` will be auto-generated'));
    if (jobSpec.manualSelector === true) errs.push(fieldError.notSupported(`${jobPath}.manualSelector`, true, ['nil', 'false']));
  }
  errs.push(...nonNegative(spec, 'spec', ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']));
  errs.push(...validateTimeZone(spec.timeZone));
  return errs;
}

/** A Job's name is the CronJob's plus `-<minutes since the epoch>` (11 characters), and must stay within 63. */
function validateCronJobName(obj: KubeObject): FieldError[] {
  const name = obj.metadata?.name;
  return typeof name === 'string' && name.length > 52 ? [fieldError.invalid('metadata.name', name, 'must be no more than 52 characters')] : [];
}

export const cronJobStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  tracksGeneration: true,
  prepareForCreate(obj) {
    defaultCronJob(obj);
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    defaultCronJob(obj);
    obj.status = old.status;
  },
  validate: (obj) => [...validateCronJobSpec(obj), ...validateCronJobName(obj)],
  validateUpdate: (obj, old) => validateCronJobSpec(obj, old),
};

