/**
 * What the API server checks on a MachineSet beyond its schema, as OpenShift's MachineSet
 * webhook and controller check it: the selector is valid and not empty, the template's labels
 * match it (otherwise the set would create Machines it never counts, without end), and it
 * does not change once created (Machines already counted would be orphaned or adopted).
 *
 * A kind validator rather than CEL `x-kubernetes-validations`: matching `matchExpressions`
 * (In/NotIn/Exists/DoesNotExist) against a label map takes nested comprehensions over lists
 * OpenShift's schema leaves unbounded, which the CRD cost limit refuses unless `maxItems` were
 * added to OpenShift's schema; and CEL errors could not name the field and value as OpenShift does.
 */
import { isDeepStrictEqual } from 'node:util';
import { fieldError, type FieldError } from '../field-errors.ts';
import { isEmptySelector, labelSelectorRequirements, matchesRequirements, type LabelSelector } from '../label-selector.ts';

/** The parts of a MachineSet looked at, loosely typed: the validator sees what was sent. */
export interface MachineSetLike {
  spec?: { selector?: LabelSelector; template?: { metadata?: { labels?: Record<string, string> } } };
}

/**
 * The field errors of a MachineSet being created (`old` undefined) or updated. An update that
 * leaves the selector and the template's labels as they were is not checked again, so a set
 * stored before these checks can still be scaled, relabelled or finalized.
 */
export function validateMachineSet(obj: MachineSetLike, old?: MachineSetLike): FieldError[] {
  const selector = obj.spec?.selector;
  const labels = obj.spec?.template?.metadata?.labels ?? {};
  if (old && isDeepStrictEqual(selector ?? {}, old.spec?.selector ?? {}) && isDeepStrictEqual(labels, old.spec?.template?.metadata?.labels ?? {})) return [];
  const errs: FieldError[] = [];
  if (old && !isDeepStrictEqual(selector ?? {}, old.spec?.selector ?? {})) errs.push(fieldError.forbidden('spec.selector', 'selector is immutable'));
  if (!selector || isEmptySelector(selector)) return [...errs, fieldError.invalid('spec.selector', selector ?? {}, 'empty selector is not valid for MachineSet.')];
  const converted = labelSelectorRequirements(selector, 'spec.selector');
  if (converted.kind === 'invalid') return [...errs, { type: 'FieldValueInvalid', field: fieldOf(converted.error), message: converted.error }];
  if (converted.kind === 'requirements' && !matchesRequirements(converted.requirements, labels)) {
    errs.push(fieldError.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  return errs;
}

/** The field an error of `labelSelectorRequirements` starts with (several come as `[a: ..., b: ...]`). */
function fieldOf(message: string): string {
  return /^\[?([^\s:]+):/.exec(message)?.[1] ?? 'spec.selector';
}
