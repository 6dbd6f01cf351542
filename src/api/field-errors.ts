/**
 * Field-level validation errors, worded as Kubernetes words them
 * (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`), so that the
 * API server can turn a list of them into a 422 `Status` whose `details.causes[]` name each field.
 */

export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound';

export interface FieldError {
  readonly type: FieldErrorType;
  /** Dotted path with indexes, e.g. `spec.template.spec.containers[0].image`. */
  readonly field: string;
  /** The full message, starting with the field, as Kubernetes prints it. */
  readonly message: string;
}

function render(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

export const fieldError = {
  invalid(field: string, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${render(value)}: ${detail}` };
  },
  required(field: string, detail = ''): FieldError {
    return { type: 'FieldValueRequired', field, message: `${field}: Required value${detail ? `: ${detail}` : ''}` };
  },
  notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
    const list = supported.map((s) => JSON.stringify(s)).join(', ');
    return { type: 'FieldValueNotSupported', field, message: `${field}: Unsupported value: ${render(value)}: supported values: ${list}` };
  },
  duplicate(field: string, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field, message: `${field}: Duplicate value: ${render(value)}` };
  },
  forbidden(field: string, detail: string): FieldError {
    return { type: 'FieldValueForbidden', field, message: `${field}: Forbidden: ${detail}` };
  },
  tooLong(field: string, max: number): FieldError {
    return { type: 'FieldValueTooLong', field, message: `${field}: Too long: may not be more than ${max} bytes` };
  },
  typeInvalid(field: string, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueTypeInvalid', field, message: `${field}: Invalid value: ${render(value)}: ${detail}` };
  },
};

/** Joins a parent path and a child segment (`spec` + `replicas`, `containers` + 0 → `containers[0]`). */
export function childPath(parent: string, child: string | number): string {
  if (typeof child === 'number') return `${parent}[${child}]`;
  return parent ? `${parent}.${child}` : child;
}
