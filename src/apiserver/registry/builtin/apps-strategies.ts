/** Strategies for apps/v1 workloads and policy/v1 PodDisruptionBudgets. */
import { isDeepStrictEqual } from 'node:util';
import { fieldError, type FieldError } from '../../../api/field-errors.ts';
import type { KubeObject, Strategy } from '../resource.ts';
import { labelSelectorOperators, matchLabelSelector, type LabelSelector } from '../../../api/label-selector.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { validatePodSpec } from './pod-spec.ts';

export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  if (selector === undefined || selector === null) return [fieldError.required(path)];
  if (typeof selector !== 'object' || Array.isArray(selector)) return [fieldError.typeInvalid(path, selector, 'must be a LabelSelector object')];
  const s = selector as KubeObject;
  const errs: FieldError[] = [];
  if (s.matchExpressions !== undefined) {
    if (!Array.isArray(s.matchExpressions)) errs.push(fieldError.typeInvalid(`${path}.matchExpressions`, s.matchExpressions, 'must be a list'));
    else
      s.matchExpressions.forEach((e: KubeObject, i: number) => {
        const p = `${path}.matchExpressions[${i}]`;
        if (!labelSelectorOperators.includes(e?.operator)) errs.push(fieldError.notSupported(`${p}.operator`, e?.operator, labelSelectorOperators));
        else if ((e.operator === 'In' || e.operator === 'NotIn') && (!Array.isArray(e.values) || e.values.length === 0)) errs.push(fieldError.required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
        else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && Array.isArray(e.values) && e.values.length) errs.push(fieldError.forbidden(`${p}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
      });
  }
  return errs;
}

function validateTemplate(spec: KubeObject, selectorRequired: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (selectorRequired || spec.selector !== undefined) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const sel = spec.selector;
  if (sel && typeof sel === 'object' && !sel.matchLabels && !(sel.matchExpressions ?? []).length) {
    errs.push(fieldError.invalid('spec.selector', sel, 'empty selector is invalid for deployment'));
  }
  const template = spec.template;
  if (typeof template !== 'object' || template === null) return [...errs, fieldError.required('spec.template')];
  const labels = template.metadata?.labels ?? {};
  if (sel && typeof sel === 'object' && !errs.length && !matchLabelSelector(sel as LabelSelector, labels)) {
    errs.push(fieldError.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodSpec(template.spec, 'spec.template.spec'));
  return errs;
}

function validateReplicas(spec: KubeObject): FieldError[] {
  const r = spec.replicas;
  if (r === undefined) return [];
  if (!Number.isInteger(r)) return [fieldError.typeInvalid('spec.replicas', r, 'must be an integer')];
  return r < 0 ? [fieldError.invalid('spec.replicas', r, 'must be greater than or equal to 0')] : [];
}

function workloadValidate(kind: 'Deployment' | 'ReplicaSet' | 'DaemonSet') {
  return (obj: KubeObject): FieldError[] => {
    const spec = obj.spec;
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return [fieldError.required('spec')];
    const errs = [...(kind === 'DaemonSet' ? [] : validateReplicas(spec)), ...validateTemplate(spec, true)];
    if (kind === 'Deployment' && spec.strategy?.type !== undefined && !['RollingUpdate', 'Recreate'].includes(spec.strategy.type)) {
      errs.push(fieldError.notSupported('spec.strategy.type', spec.strategy.type, ['Recreate', 'RollingUpdate']));
    }
    if (kind === 'Deployment' && spec.strategy?.type === 'Recreate' && spec.strategy.rollingUpdate) {
      errs.push(fieldError.forbidden('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''));
    }
    return errs;
  };
}

function selectorImmutable(obj: KubeObject, old: KubeObject): FieldError[] {
  if (old.spec?.selector && !isDeepStrictEqual(obj.spec?.selector, old.spec.selector)) return [fieldError.invalid('spec.selector', obj.spec?.selector, 'field is immutable')];
  return [];
}

function defaultTemplate(obj: KubeObject): void {
  defaultPodTemplate(obj.spec?.template);
}

/**
 * Defaults run on every write, not only on create: kube-apiserver defaults each decoded
 * object, so a field that a write drops (e.g. server-side apply removing what the applier
 * no longer sets) comes back with its default.
 */
function defaultDeployment(obj: KubeObject): void {
  if (!obj.spec || typeof obj.spec !== 'object') return;
  obj.spec.replicas ??= 1;
  obj.spec.revisionHistoryLimit ??= 10;
  obj.spec.progressDeadlineSeconds ??= 600;
  obj.spec.strategy ??= { type: 'RollingUpdate' };
  if (obj.spec.strategy && typeof obj.spec.strategy === 'object' && (obj.spec.strategy.type === 'RollingUpdate' || obj.spec.strategy.type === undefined)) {
    obj.spec.strategy.type = 'RollingUpdate';
    obj.spec.strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...(obj.spec.strategy.rollingUpdate ?? {}) };
  }
  defaultTemplate(obj);
}

function defaultReplicaSet(obj: KubeObject): void {
  if (!obj.spec || typeof obj.spec !== 'object') return;
  obj.spec.replicas ??= 1;
  defaultTemplate(obj);
}

function defaultDaemonSet(obj: KubeObject): void {
  if (!obj.spec || typeof obj.spec !== 'object') return;
  obj.spec.revisionHistoryLimit ??= 10;
  obj.spec.updateStrategy ??= {};
  if (obj.spec.updateStrategy && typeof obj.spec.updateStrategy === 'object') obj.spec.updateStrategy.type ||= 'RollingUpdate';
  if (obj.spec.updateStrategy && typeof obj.spec.updateStrategy === 'object' && obj.spec.updateStrategy.type === 'RollingUpdate') {
    obj.spec.updateStrategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...(obj.spec.updateStrategy.rollingUpdate ?? {}) };
  }
  defaultTemplate(obj);
}

/** A workload's strategy: its defaults on every write, status kept on main-resource writes, selector immutable. */
function workloadStrategy(kind: 'Deployment' | 'ReplicaSet' | 'DaemonSet', defaults: (obj: KubeObject) => void): Strategy {
  const validate = workloadValidate(kind);
  return {
    allowUnconditionalUpdate: true,
    tracksGeneration: true,
    prepareForCreate(obj) {
      defaults(obj);
      delete obj.status;
    },
    prepareForUpdate(obj, old) {
      defaults(obj);
      obj.status = old.status;
    },
    validate,
    validateUpdate: (obj, old) => [...validate(obj), ...selectorImmutable(obj, old)],
  };
}

export const deploymentStrategy = workloadStrategy('Deployment', defaultDeployment);
export const replicaSetStrategy = workloadStrategy('ReplicaSet', defaultReplicaSet);
export const daemonSetStrategy = workloadStrategy('DaemonSet', defaultDaemonSet);

function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (v === undefined) return [];
  if (Number.isInteger(v)) return (v as number) < 0 ? [fieldError.invalid(path, v, 'must be greater than or equal to 0')] : [];
  if (typeof v === 'string' && /^\d+%$/.test(v)) return parseInt(v, 10) > 100 ? [fieldError.invalid(path, v, 'must not be greater than 100%')] : [];
  return [fieldError.invalid(path, v, 'a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')')];
}

function validatePdb(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (typeof spec !== 'object' || spec === null) return [fieldError.required('spec')];
  const errs = [...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'), ...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable')];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) errs.push(fieldError.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  if (spec.selector !== undefined) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policies = ['IfHealthyBudget', 'AlwaysAllow'];
  if (spec.unhealthyPodEvictionPolicy !== undefined && !policies.includes(spec.unhealthyPodEvictionPolicy)) errs.push(fieldError.notSupported('spec.unhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy, policies));
  return errs;
}

export const pdbStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  tracksGeneration: true,
  prepareForCreate(obj) {
    obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status;
  },
  validate: validatePdb,
  validateUpdate: validatePdb,
};
