/**
 * Validation of rbac.authorization.k8s.io/v1 objects as kube-apiserver's rbac validation has
 * it: rules need verbs and either resources with API groups or non-resource URLs (cluster roles
 * only); a binding's roleRef is required, of a supported kind, and never changes.
 */
import { isDeepStrictEqual } from 'node:util';
import { childPath, fieldError, type FieldError } from '../../../api/field-errors.ts';
import type { KubeObject, Strategy } from '../resource.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

function validateRules(rules: unknown, namespaced: boolean, path = 'rules'): FieldError[] {
  if (rules === undefined || rules === null) return [];
  if (!Array.isArray(rules)) return [fieldError.typeInvalid(path, rules, 'must be a list of PolicyRules')];
  const errs: FieldError[] = [];
  rules.forEach((r: KubeObject, i) => {
    const p = childPath(path, i);
    const len = (f: string) => (Array.isArray(r?.[f]) ? (r[f] as unknown[]).length : 0);
    if (len('verbs') === 0) errs.push(fieldError.required(`${p}.verbs`, 'verbs must contain at least one value'));
    if (len('nonResourceURLs') > 0) {
      if (namespaced) errs.push(fieldError.invalid(`${p}.nonResourceURLs`, r.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (len('apiGroups') > 0 || len('resources') > 0 || len('resourceNames') > 0) errs.push(fieldError.invalid(`${p}.nonResourceURLs`, r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      return;
    }
    if (len('apiGroups') === 0) errs.push(fieldError.required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (len('resources') === 0) errs.push(fieldError.required(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

function validateAggregation(obj: KubeObject): FieldError[] {
  const rule = obj.aggregationRule;
  if (rule === undefined || rule === null) return [];
  const selectors = rule.clusterRoleSelectors;
  if (!Array.isArray(selectors) || selectors.length === 0) return [fieldError.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return [];
}

function validateRoleRef(obj: KubeObject, namespaced: boolean): FieldError[] {
  const ref = obj.roleRef;
  const errs: FieldError[] = [];
  if (!ref || typeof ref !== 'object') return [fieldError.required('roleRef')];
  if (ref.apiGroup !== rbacGroup) errs.push(fieldError.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [rbacGroup]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(fieldError.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(fieldError.required('roleRef.name'));
  else if (/[/%]/.test(ref.name)) errs.push(fieldError.invalid('roleRef.name', ref.name, `may not contain '${ref.name.includes('/') ? '/' : '%'}'`));
  return errs;
}

function validateSubjects(obj: KubeObject, namespaced: boolean): FieldError[] {
  const subjects = obj.subjects;
  if (subjects === undefined || subjects === null) return [];
  if (!Array.isArray(subjects)) return [fieldError.typeInvalid('subjects', subjects, 'must be a list of Subjects')];
  const errs: FieldError[] = [];
  subjects.forEach((s: KubeObject, i) => {
    const p = childPath('subjects', i);
    if (!s?.name) errs.push(fieldError.required(`${p}.name`));
    switch (s?.kind) {
      case 'ServiceAccount':
        if (s.apiGroup) errs.push(fieldError.notSupported(`${p}.apiGroup`, s.apiGroup, ['']));
        if (!s.namespace && !namespaced) errs.push(fieldError.required(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (s.apiGroup !== rbacGroup) errs.push(fieldError.notSupported(`${p}.apiGroup`, s.apiGroup ?? '', [rbacGroup]));
        break;
      default:
        errs.push(fieldError.notSupported(`${p}.kind`, s?.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

/** As kube's defaulting: User and Group subjects get the RBAC API group when it is left out. */
function defaultSubjects(obj: KubeObject): void {
  if (!Array.isArray(obj.subjects)) return;
  for (const s of obj.subjects) if (s && (s.kind === 'User' || s.kind === 'Group') && !s.apiGroup) s.apiGroup = rbacGroup;
  if (obj.roleRef && typeof obj.roleRef === 'object' && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = rbacGroup;
}

function roleStrategy(namespaced: boolean, aggregation: boolean): Strategy {
  const validate = (obj: KubeObject): FieldError[] => [...validateRules(obj.rules, namespaced), ...(aggregation ? validateAggregation(obj) : [])];
  return { allowUnconditionalUpdate: true, nameRule: 'path', validate, validateUpdate: validate };
}

function bindingStrategy(namespaced: boolean): Strategy {
  const validate = (obj: KubeObject): FieldError[] => [...validateRoleRef(obj, namespaced), ...validateSubjects(obj, namespaced)];
  return {
    allowUnconditionalUpdate: true,
    nameRule: 'path',
    prepareForCreate: defaultSubjects,
    prepareForUpdate: defaultSubjects,
    validate,
    validateUpdate: (obj, old) => {
      const errs = validate(obj);
      if (!isDeepStrictEqual(obj.roleRef, old.roleRef)) errs.push(fieldError.invalid('roleRef', obj.roleRef, 'cannot change roleRef'));
      return errs;
    },
  };
}

export const roleStrategyNamespaced = roleStrategy(true, false);
export const clusterRoleStrategy = roleStrategy(false, true);
export const roleBindingStrategy = bindingStrategy(true);
export const clusterRoleBindingStrategy = bindingStrategy(false);
