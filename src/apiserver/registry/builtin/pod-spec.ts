/**
 * Validation of a PodSpec, shared by pods and by the pod templates of deployments, replicasets,
 * daemonsets, jobs and cronjobs, so a bad container is reported with its full path
 * (`spec.template.spec.containers[0].image`) wherever it appears. Defaults are in pod-defaults.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import { childPath, fieldError, type FieldError } from '../../../api/field-errors.ts';
import { isDns1123Label, isDns1123Subdomain } from '../../../api/names.ts';
import type { KubeObject } from '../resource.ts';

// Where the Job and CronJob strategies import the template defaults from.
export { defaultPodSpec, defaultPodTemplate } from './pod-defaults.ts';

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const protocols = ['TCP', 'UDP', 'SCTP'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const tolerationOps = ['Exists', 'Equal'];
const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateContainer(c: KubeObject, path: string, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return [fieldError.typeInvalid(path, c, 'must be an object')];
  if (!c.name) errs.push(fieldError.required(`${path}.name`));
  else if (typeof c.name !== 'string') errs.push(fieldError.typeInvalid(`${path}.name`, c.name, 'must be a string'));
  else {
    for (const m of isDns1123Label(c.name)) errs.push(fieldError.invalid(`${path}.name`, c.name, m));
    if (names.has(c.name)) errs.push(fieldError.duplicate(`${path}.name`, c.name));
    names.add(c.name);
  }
  if (c.image === undefined || c.image === '') errs.push(fieldError.required(`${path}.image`));
  else if (typeof c.image !== 'string' || c.image.trim() !== c.image) errs.push(fieldError.invalid(`${path}.image`, c.image, 'must be a string without leading or trailing whitespace'));
  if (c.imagePullPolicy !== undefined && !pullPolicies.includes(c.imagePullPolicy)) errs.push(fieldError.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
  for (const f of ['command', 'args']) {
    if (c[f] !== undefined && (!Array.isArray(c[f]) || c[f].some((s: unknown) => typeof s !== 'string'))) errs.push(fieldError.typeInvalid(`${path}.${f}`, c[f], 'must be a list of strings'));
  }
  if (c.ports !== undefined) {
    if (!Array.isArray(c.ports)) errs.push(fieldError.typeInvalid(`${path}.ports`, c.ports, 'must be a list'));
    else
      c.ports.forEach((p: KubeObject, i: number) => {
        const pp = childPath(`${path}.ports`, i);
        if (typeof p !== 'object' || p === null) return errs.push(fieldError.typeInvalid(pp, p, 'must be an object'));
        if (!Number.isInteger(p.containerPort) || p.containerPort < 1 || p.containerPort > 65535) {
          errs.push(p.containerPort === undefined ? fieldError.required(`${pp}.containerPort`) : fieldError.invalid(`${pp}.containerPort`, p.containerPort, 'must be between 1 and 65535, inclusive'));
        }
        if (p.protocol !== undefined && !protocols.includes(p.protocol)) errs.push(fieldError.notSupported(`${pp}.protocol`, p.protocol, protocols));
        return undefined;
      });
  }
  if (c.env !== undefined) {
    if (!Array.isArray(c.env)) errs.push(fieldError.typeInvalid(`${path}.env`, c.env, 'must be a list'));
    else
      c.env.forEach((e: KubeObject, i: number) => {
        const ep = childPath(`${path}.env`, i);
        if (typeof e !== 'object' || e === null) return errs.push(fieldError.typeInvalid(ep, e, 'must be an object'));
        if (!e.name) errs.push(fieldError.required(`${ep}.name`));
        if (e.value !== undefined && typeof e.value !== 'string') errs.push(fieldError.typeInvalid(`${ep}.value`, e.value, 'must be a string'));
        return undefined;
      });
  }
  return errs;
}

export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return [fieldError.required(path)];
  const s = spec as KubeObject;
  const errs: FieldError[] = [];
  const names = new Set<string>();
  if (!Array.isArray(s.containers) || s.containers.length === 0) errs.push(fieldError.required(`${path}.containers`));
  else s.containers.forEach((c: KubeObject, i: number) => errs.push(...validateContainer(c, childPath(`${path}.containers`, i), names)));
  if (s.initContainers !== undefined) {
    if (!Array.isArray(s.initContainers)) errs.push(fieldError.typeInvalid(`${path}.initContainers`, s.initContainers, 'must be a list'));
    else s.initContainers.forEach((c: KubeObject, i: number) => errs.push(...validateContainer(c, childPath(`${path}.initContainers`, i), names)));
  }
  if (s.restartPolicy !== undefined && !restartPolicies.includes(s.restartPolicy)) errs.push(fieldError.notSupported(`${path}.restartPolicy`, s.restartPolicy, restartPolicies));
  if (s.dnsPolicy !== undefined && !dnsPolicies.includes(s.dnsPolicy)) errs.push(fieldError.notSupported(`${path}.dnsPolicy`, s.dnsPolicy, dnsPolicies));
  if (s.terminationGracePeriodSeconds !== undefined && (!Number.isInteger(s.terminationGracePeriodSeconds) || s.terminationGracePeriodSeconds < 0)) {
    errs.push(fieldError.invalid(`${path}.terminationGracePeriodSeconds`, s.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  if (s.nodeName !== undefined && s.nodeName !== '' && typeof s.nodeName === 'string') {
    for (const m of isDns1123Subdomain(s.nodeName)) errs.push(fieldError.invalid(`${path}.nodeName`, s.nodeName, m));
  }
  if (s.nodeSelector !== undefined && (typeof s.nodeSelector !== 'object' || s.nodeSelector === null || Array.isArray(s.nodeSelector))) {
    errs.push(fieldError.typeInvalid(`${path}.nodeSelector`, s.nodeSelector, 'must be a map of strings'));
  }
  if (s.tolerations !== undefined) {
    if (!Array.isArray(s.tolerations)) errs.push(fieldError.typeInvalid(`${path}.tolerations`, s.tolerations, 'must be a list'));
    else
      s.tolerations.forEach((t: KubeObject, i: number) => {
        const tp = childPath(`${path}.tolerations`, i);
        if (t?.operator !== undefined && !tolerationOps.includes(t.operator)) errs.push(fieldError.notSupported(`${tp}.operator`, t.operator, tolerationOps));
        if (t?.effect !== undefined && t.effect !== '' && !taintEffects.includes(t.effect)) errs.push(fieldError.notSupported(`${tp}.effect`, t.effect, taintEffects));
        if (t?.operator === 'Exists' && t.value) errs.push(fieldError.invalid(`${tp}.operator`, t.operator, 'value must be empty when `operator` is \'Exists\''));
      });
  }
  if (s.volumes !== undefined) {
    if (!Array.isArray(s.volumes)) errs.push(fieldError.typeInvalid(`${path}.volumes`, s.volumes, 'must be a list'));
    else {
      const vnames = new Set<string>();
      s.volumes.forEach((v: KubeObject, i: number) => {
        const vp = childPath(`${path}.volumes`, i);
        if (!v?.name) return errs.push(fieldError.required(`${vp}.name`));
        if (vnames.has(v.name)) errs.push(fieldError.duplicate(`${vp}.name`, v.name));
        vnames.add(v.name);
        return undefined;
      });
    }
  }
  return errs;
}

const onlyImageChanges =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** kube's activeDeadlineSeconds rule: it may be set, or lowered, never raised or removed. */
function activeDeadlineErrors(spec: KubeObject, old: KubeObject): FieldError[] {
  const next = spec.activeDeadlineSeconds;
  const prev = old.activeDeadlineSeconds;
  if (typeof next === 'number') {
    if (typeof prev === 'number' && next >= 0 && prev < next) return [fieldError.invalid('spec.activeDeadlineSeconds', next, 'must be less than or equal to previous value')];
    return [];
  }
  if (typeof prev === 'number') return [fieldError.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value')];
  return [];
}

/** kube's validateOnlyAddedTolerations: every existing toleration stays, but for its tolerationSeconds. */
function tolerationUpdateErrors(spec: KubeObject, old: KubeObject): FieldError[] {
  const bare = (t: KubeObject): KubeObject => {
    const { tolerationSeconds: _, ...rest } = t ?? {};
    return rest;
  };
  const next = Array.isArray(spec.tolerations) ? spec.tolerations.map(bare) : [];
  for (const t of Array.isArray(old.tolerations) ? old.tolerations : []) {
    if (!next.some((n: KubeObject) => isDeepStrictEqual(n, bare(t)))) return [fieldError.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return [];
}

/**
 * Pod spec fields that an update may change, as kube-apiserver's ValidatePodUpdate: container
 * and init container images (which the kubelet applies by restarting that container), a lower
 * activeDeadlineSeconds, added tolerations, and a negative grace period raised to 1.
 */
export function podSpecUpdateErrors(spec: KubeObject, old: KubeObject): FieldError[] {
  spec ??= {};
  old ??= {};
  for (const list of ['containers', 'initContainers'] as const) {
    if ((spec[list]?.length ?? 0) !== (old[list]?.length ?? 0)) return [fieldError.forbidden(`spec.${list}`, 'pod updates may not add or remove containers')];
  }
  const errs = [...activeDeadlineErrors(spec, old), ...tolerationUpdateErrors(spec, old)];
  if (errs.length) return errs;
  const strip = (s: KubeObject, isOld: boolean): KubeObject => {
    const c = structuredClone(s);
    for (const list of [c.containers, c.initContainers]) if (Array.isArray(list)) for (const x of list) if (x) delete x.image;
    delete c.activeDeadlineSeconds;
    delete c.tolerations;
    if (isOld && old.terminationGracePeriodSeconds < 0 && spec.terminationGracePeriodSeconds === 1) c.terminationGracePeriodSeconds = 1;
    return c;
  };
  if (!isDeepStrictEqual(strip(spec, false), strip(old, true))) return [fieldError.forbidden('spec', onlyImageChanges)];
  return [];
}
