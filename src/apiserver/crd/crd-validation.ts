/**
 * Defaulting and validation of CustomResourceDefinition objects (apiextensions.k8s.io/v1),
 * as kube-apiserver's CRD strategy does them: the name is `<plural>.<group>`, names and
 * versions are well formed, exactly one version is stored, every version has a structural
 * schema (schema-validation.ts), scale paths and printer columns are usable, and on update
 * the group and plural (and, once established, scope and kind) stay put. Shipyard cannot
 * call conversion webhooks, so only the `None` conversion strategy is accepted.
 */
import { isDeepStrictEqual } from 'node:util';
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import { isDns1035Label, isDns1123Subdomain } from '../../api/names.ts';
import { child, index, key } from './field-path.ts';
import { validateVersionSchema } from './schema-validation.ts';
import type { CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion, CustomResourceSubresources } from './types.ts';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const maxSelectableFields = 8;
const approvalAnnotation = 'api-approved.kubernetes.io';

/** Fills in what kube-apiserver defaults on a v1 CRD: singular and listKind from kind, conversion `None`. */
export function defaultCustomResourceDefinition(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return;
  const names = spec.names;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  }
  if (!spec.conversion) spec.conversion = { strategy: 'None' };
}

function dns1035(path: string, value: string, errs: FieldError[]): void {
  const msgs = isDns1035Label(value);
  if (msgs.length > 0) errs.push(fieldError.invalid(path, value, msgs.join(',')));
}

function validateNames(names: CustomResourceDefinitionNames, path: string, errs: FieldError[]): void {
  if (names.plural) dns1035(child(path, 'plural'), names.plural, errs);
  if (names.singular) dns1035(child(path, 'singular'), names.singular, errs);
  for (const f of ['kind', 'listKind'] as const) {
    const v = names[f];
    if (!v) continue;
    const msgs = isDns1035Label(v.toLowerCase());
    if (msgs.length > 0) errs.push(fieldError.invalid(child(path, f), v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  (names.shortNames ?? []).forEach((s, i) => dns1035(index(child(path, 'shortNames'), i), s, errs));
  if (names.kind && names.kind === names.listKind) errs.push(fieldError.invalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => dns1035(index(child(path, 'categories'), i), c, errs));
}

/** A JSON path as scale subresources and printer columns use it: `.` followed by dotted fields. */
function simpleJsonPath(value: string, path: string): FieldError[] {
  if (value.length === 0) return [fieldError.invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [fieldError.invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CustomResourceSubresources | undefined, path: string, errs: FieldError[]): void {
  const scale = sub?.scale;
  if (!scale) return;
  const scalePath = child(path, 'scale');
  const checks: Array<[keyof typeof scale, string[], string, boolean]> = [
    ['specReplicasPath', ['.spec.'], 'should be a json path under .spec', true],
    ['statusReplicasPath', ['.status.'], 'should be a json path under .status', true],
    ['labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false],
  ];
  for (const [field, prefixes, detail, required] of checks) {
    const value = scale[field];
    const p = child(scalePath, field);
    if (value === undefined || value === '') {
      if (required) errs.push(fieldError.required(p));
      continue;
    }
    const pathErrs = simpleJsonPath(value, p);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!prefixes.some((prefix) => value.startsWith(prefix))) errs.push(fieldError.invalid(p, value, detail));
  }
}

function validateColumn(col: CustomResourceColumnDefinition, path: string, errs: FieldError[]): void {
  if (!col.name) errs.push(fieldError.required(child(path, 'name')));
  const typeDetail = `must be one of ${printerColumnTypes.join(',')}`;
  if (!col.type) errs.push(fieldError.required(child(path, 'type'), typeDetail));
  else if (!printerColumnTypes.includes(col.type)) errs.push(fieldError.invalid(child(path, 'type'), col.type, typeDetail));
  if (col.format && !printerColumnFormats.includes(col.format)) {
    errs.push(fieldError.invalid(child(path, 'format'), col.format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  // kube-apiserver validates the internal type, whose field is named JSONPath; its messages say so.
  if (!col.jsonPath) errs.push(fieldError.required(child(path, 'JSONPath')));
  else errs.push(...simpleJsonPath(col.jsonPath, child(path, 'JSONPath')));
}

function validateSelectableFields(version: CustomResourceDefinitionVersion, path: string, errs: FieldError[]): void {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return;
  const schema = version.schema?.openAPIV3Schema;
  if (!schema) {
    errs.push(fieldError.invalid(child(path, 'selectableFields'), '', 'may only be set when `version.schema.openAPIV3Schema` is not included'));
    return;
  }
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = child(index(child(path, 'selectableFields'), i), 'jsonPath');
    const jsonPath = f?.jsonPath ?? '';
    if (!jsonPath) {
      errs.push(fieldError.required(p));
      return;
    }
    const segs = jsonPath.startsWith('.') ? jsonPath.slice(1).split('.') : [];
    let node = segs.length > 0 && segs.every((s) => s.length > 0) ? schema : undefined;
    for (const seg of segs) node = node?.properties && Object.hasOwn(node.properties, seg) ? node.properties[seg] : undefined;
    if (!node) {
      errs.push(fieldError.invalid(p, jsonPath, 'is an invalid path: does not refer to a valid field'));
      return;
    }
    if (segs[0] === 'metadata') errs.push(fieldError.invalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(node.type ?? '')) {
      errs.push(fieldError.invalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(jsonPath)) errs.push(fieldError.duplicate(p, jsonPath));
    seen.add(jsonPath);
  });
  if (seen.size > maxSelectableFields) {
    const p = child(path, 'selectableFields');
    errs.push({ type: 'FieldValueTooMany', field: p, message: `${p}: Too many: ${seen.size}: must have at most ${maxSelectableFields} items` });
  }
}

function validateDeprecationWarning(version: CustomResourceDefinitionVersion, path: string, errs: FieldError[]): void {
  const warning = version.deprecationWarning;
  if (warning === undefined || warning === null) return;
  const p = child(path, 'deprecationWarning');
  if (!version.deprecated) {
    errs.push(fieldError.invalid(p, warning, 'can only be set for deprecated versions'));
    return;
  }
  if (warning.length > 256) errs.push(fieldError.invalid(p, warning, 'must be <= 256 characters long'));
  if (warning.length === 0) errs.push(fieldError.invalid(p, warning, 'must not be an empty string'));
  const bad = [...warning].findIndex((ch) => /[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/u.test(ch));
  if (bad >= 0) errs.push(fieldError.invalid(p, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${bad}`));
}

/** Whether the version's schema and status subresource are what they were, so its schema need not be checked again. */
function schemaUnchanged(version: CustomResourceDefinitionVersion, old: CustomResourceDefinition | undefined): boolean {
  const previous = old?.spec?.versions?.find((v) => v?.name === version.name);
  if (!previous) return false;
  return isDeepStrictEqual(previous.schema, version.schema) && (previous.subresources?.status == null) === (version.subresources?.status == null);
}

function validateVersions(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined, errs: FieldError[]): void {
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec!.versions! : [];
  const path = 'spec.versions';
  const names = new Set<string>();
  let unique = true;
  let storage = 0;
  versions.forEach((v, i) => {
    const vp = index(path, i);
    if (!v || typeof v !== 'object') {
      errs.push(fieldError.invalid(vp, v, 'must be an object'));
      return;
    }
    if (v.storage) storage++;
    const name = String(v.name ?? '');
    if (names.has(name)) unique = false;
    names.add(name);
    dns1035(child(vp, 'name'), name, errs);
    validateDeprecationWarning(v, vp, errs);
    const schema = v.schema?.openAPIV3Schema;
    if (!schema || typeof schema !== 'object') errs.push(fieldError.required(child(vp, 'schema', 'openAPIV3Schema')));
    else if (!schemaUnchanged(v, old)) errs.push(...validateVersionSchema(schema, child(vp, 'schema'), { statusEnabled: v.subresources?.status != null }));
    validateSubresources(v.subresources, child(vp, 'subresources'), errs);
    (v.additionalPrinterColumns ?? []).forEach((col, j) => validateColumn(col ?? {}, index(child(vp, 'additionalPrinterColumns'), j), errs));
    validateSelectableFields(v, vp, errs);
  });
  // The value Kubernetes prints here is the whole versions list; the names say the same, shorter.
  const listed = versions.map((v) => v?.name);
  if (!unique) errs.push(fieldError.invalid(path, listed, 'must contain unique version names'));
  if (storage !== 1) errs.push(fieldError.invalid(path, listed, 'must have exactly one version marked as storage version'));
}

function validateConversion(crd: CustomResourceDefinition, errs: FieldError[]): void {
  const conversion = crd.spec?.conversion;
  if (!conversion) return;
  const path = 'spec.conversion';
  const strategy = conversion.strategy ?? '';
  if (strategy === '') errs.push(fieldError.required(child(path, 'strategy')));
  // Shipyard has no conversion webhook client: versions of one CRD share one schema-less conversion.
  else if (strategy !== 'None') errs.push(fieldError.notSupported(child(path, 'strategy'), strategy, ['None']));
  else {
    if (conversion.webhook?.clientConfig) errs.push(fieldError.forbidden(child(path, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if ((conversion.webhook?.conversionReviewVersions ?? []).length > 0) {
      errs.push(fieldError.forbidden(child(path, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
    }
  }
}

/** Groups under k8s.io and kubernetes.io need the API approval annotation. */
function validateApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined, errs: FieldError[]): void {
  const group = crd.spec?.group ?? '';
  const isProtected = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!isProtected) return;
  const state = (annotations: Record<string, string> | undefined): string => {
    const value = annotations?.[approvalAnnotation] ?? '';
    if (value === '') return 'missing';
    if (value.startsWith('unapproved')) return 'bypassed';
    try {
      const url = new URL(value);
      if (url.host && url.protocol) return 'approved';
    } catch {
      // not a URL
    }
    return 'invalid';
  };
  const now = state(crd.metadata?.annotations);
  if (old && state(old.metadata?.annotations) === now) return;
  const p = key('metadata.annotations', approvalAnnotation);
  if (now === 'missing') {
    errs.push(fieldError.required(p, `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`));
  } else if (now === 'invalid') {
    errs.push(fieldError.invalid(p, crd.metadata?.annotations?.[approvalAnnotation], `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`));
  }
}

function established(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c?.type === 'Established' && c.status === 'True');
}

function immutable(path: string, now: unknown, before: unknown, errs: FieldError[]): void {
  if (!isDeepStrictEqual(now, before)) errs.push(fieldError.invalid(path, now, 'field is immutable'));
}

/**
 * The validation errors of a (defaulted) CRD; with `old`, of an update from `old`. Status is
 * not validated: it belongs to the CRD controller. A version whose schema is unchanged by an
 * update is not checked again.
 */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const errs: FieldError[] = [];
  const spec = crd.spec;
  if (!spec || typeof spec !== 'object') return [fieldError.required('spec')];
  const names = spec.names && typeof spec.names === 'object' ? spec.names : {};
  const group = spec.group ?? '';

  const name = crd.metadata?.name;
  if (typeof name === 'string' && name !== `${names.plural ?? ''}.${group}`) {
    errs.push(fieldError.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }

  if (!group) errs.push(fieldError.required('spec.group'));
  else {
    const msgs = isDns1123Subdomain(group);
    if (msgs.length > 0) errs.push(fieldError.invalid('spec.group', group, msgs.join(',')));
    else if (group.split('.').length < 2) errs.push(fieldError.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  if (!spec.scope) errs.push(fieldError.required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') errs.push(fieldError.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  validateVersions(crd, old, errs);

  for (const f of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names[f]) errs.push(fieldError.required(child('spec.names', f)));
  }
  validateNames(names, 'spec.names', errs);
  validateConversion(crd, errs);

  if (spec.preserveUnknownFields === true && old?.spec?.preserveUnknownFields !== true) {
    errs.push(fieldError.invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  validateApproval(crd, old, errs);

  if (old) {
    const oldSpec = old.spec ?? {};
    if (established(old)) {
      immutable('spec.scope', spec.scope, oldSpec.scope, errs);
      immutable('spec.names.kind', names.kind, oldSpec.names?.kind, errs);
    }
    immutable('spec.group', spec.group, oldSpec.group, errs);
    immutable('spec.names.plural', names.plural, oldSpec.names?.plural, errs);
  }
  return errs;
}
