/**
 * Validation of `metadata` common to every kind: name rules, labels, annotations,
 * finalizers and owner references on create, and the immutable fields on update.
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName } from '../../api/names.ts';
import type { KubeObject, Strategy } from './resource.ts';

const maxAnnotationBytes = 256 * 1024;

function nameErrors(rule: NonNullable<Strategy['nameRule']>, name: string): string[] {
  switch (rule) {
    case 'label':
      return isDns1123Label(name);
    case 'label1035':
      return isDns1035Label(name);
    case 'path':
      return isValidPathSegmentName(name);
    default:
      return isDns1123Subdomain(name);
  }
}

export function validateName(rule: Strategy['nameRule'], name: string, field = 'metadata.name'): FieldError[] {
  return nameErrors(rule ?? 'subdomain', name).map((m) => fieldError.invalid(field, name, m));
}

export function validateObjectMeta(obj: KubeObject, opts: { namespaced: boolean; nameRule?: Strategy['nameRule'] }): FieldError[] {
  const errs: FieldError[] = [];
  const meta = obj.metadata;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return [fieldError.required('metadata')];
  if (!meta.name) errs.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else if (typeof meta.name !== 'string') errs.push(fieldError.typeInvalid('metadata.name', meta.name, 'must be a string'));
  else errs.push(...validateName(opts.nameRule, meta.name));
  if (opts.namespaced) {
    if (!meta.namespace) errs.push(fieldError.required('metadata.namespace'));
  } else if (meta.namespace) {
    errs.push(fieldError.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  errs.push(...validateFinalizerNames(meta.finalizers, 'metadata.finalizers'));
  if (meta.ownerReferences !== undefined) {
    if (!Array.isArray(meta.ownerReferences)) errs.push(fieldError.typeInvalid('metadata.ownerReferences', meta.ownerReferences, 'must be a list'));
    else {
      let controllers = 0;
      meta.ownerReferences.forEach((ref: KubeObject, i: number) => {
        const path = `metadata.ownerReferences[${i}]`;
        if (typeof ref !== 'object' || ref === null) return errs.push(fieldError.typeInvalid(path, ref, 'must be an object'));
        for (const f of ['apiVersion', 'kind', 'name', 'uid']) if (!ref[f]) errs.push(fieldError.required(`${path}.${f}`));
        if (ref.controller === true) controllers++;
        return undefined;
      });
      if (controllers > 1) errs.push(fieldError.invalid('metadata.ownerReferences', meta.ownerReferences, 'Only one reference can have Controller set to true'));
    }
  }
  return errs;
}

export function validateFinalizerNames(finalizers: unknown, path: string): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [fieldError.typeInvalid(path, finalizers, 'must be a list of strings')];
  const errs: FieldError[] = [];
  finalizers.forEach((f: unknown, i: number) => {
    const p = `${path}[${i}]`;
    if (typeof f !== 'string') errs.push(fieldError.typeInvalid(p, f, 'must be a string'));
    else for (const m of isQualifiedName(f)) errs.push(fieldError.invalid(p, f, m));
  });
  return errs;
}

export function validateLabels(labels: unknown, path: string): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (typeof labels !== 'object' || Array.isArray(labels)) return [fieldError.typeInvalid(path, labels, 'must be a map of strings')];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(fieldError.invalid(path, k, m));
    if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${path}.${k}`, v, 'must be a string'));
    else for (const m of isValidLabelValue(v)) errs.push(fieldError.invalid(`${path}`, v, m));
  }
  return errs;
}

function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  if (typeof annotations !== 'object' || Array.isArray(annotations)) return [fieldError.typeInvalid(path, annotations, 'must be a map of strings')];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldError.invalid(path, k, m));
    if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${path}.${k}`, v, 'must be a string'));
    else total += k.length + v.length;
  }
  if (total > maxAnnotationBytes) errs.push(fieldError.tooLong(path, maxAnnotationBytes));
  return errs;
}

/** Fields that no update may change. */
export function validateMetaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const m = obj.metadata ?? {};
  const o = old.metadata ?? {};
  if (m.name !== o.name) errs.push(fieldError.invalid('metadata.name', m.name, 'field is immutable'));
  if ((m.namespace ?? '') !== (o.namespace ?? '')) errs.push(fieldError.invalid('metadata.namespace', m.namespace, 'field is immutable'));
  if (o.deletionTimestamp) {
    const before = new Set<string>(o.finalizers ?? []);
    const added = (m.finalizers ?? []).filter((f: string) => !before.has(f));
    if (added.length > 0) errs.push(fieldError.forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`));
  }
  return errs;
}
