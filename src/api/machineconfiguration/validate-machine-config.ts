/**
 * What the API server checks on a MachineConfig beyond its schema. OpenShift accepts any
 * `spec.config` and only fails at render time, leaving a pool RenderDegraded and the user to
 * find out why; Shipyard refuses a config that could never render when it is written: the
 * Ignition config must parse and validate (`../ignition/`: a supported version, sources that
 * decode, absolute and clean paths, one entry per path) and, as the MCO's render insists, no
 * file or directory mode may exceed 0777. Every problem becomes a field error under
 * `spec.config`, so the 422 names the field to fix.
 */
import { isDeepStrictEqual } from 'node:util';
import { childPath, fieldError, type FieldError } from '../field-errors.ts';
import { parseObject } from '../ignition/parse.ts';
import type { ConfigProblem } from '../ignition/problems.ts';

const configField = 'spec.config';

interface MachineConfigLike {
  readonly spec?: { readonly config?: unknown } | null;
}

/**
 * The field errors of a MachineConfig being created (`old` undefined) or updated. An update
 * that leaves `spec.config` as it was is not checked again, so a config stored before these
 * checks existed can still be relabelled or deleted through its finalizers.
 */
export function validateMachineConfig(obj: MachineConfigLike, old?: MachineConfigLike): FieldError[] {
  const config = obj.spec?.config;
  if (config === undefined || config === null) return [];
  if (old && isDeepStrictEqual(config, old.spec?.config)) return [];
  const parsed = parseObject(config);
  const errs = parsed.ok ? [] : parsed.errors.map((p) => toFieldError(config, p));
  errs.push(...modeErrors(config));
  return errs;
}

function toFieldError(config: unknown, problem: ConfigProblem): FieldError {
  let path = problem.path;
  let value = valueAt(config, path);
  // A problem with a whole entry that quotes its path (a duplicate, an entry beneath a link)
  // is a problem with that entry's `path` field.
  if (isRecord(value) && typeof value.path === 'string' && problem.message.includes(JSON.stringify(value.path))) {
    path = childPath(path, 'path');
    value = value.path;
  }
  const field = path ? `${configField}.${path}` : configField;
  if (problem.message === 'is required') return fieldError.required(field);
  if (value === undefined || value === null || typeof value === 'object') {
    // As kube's field errors that omit a value too large or absent to print.
    return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${problem.message}` };
  }
  if (/^must be an? (string|integer|boolean|object|list)$/.test(problem.message)) return fieldError.typeInvalid(field, value, problem.message);
  return fieldError.invalid(field, value, problem.message);
}

/**
 * Ignition itself allows setuid, setgid and sticky bits (with a warning before spec 3.6);
 * the MCO refuses them. Modes above 07777 are already Ignition's error.
 */
function modeErrors(config: unknown): FieldError[] {
  const storage = isRecord(config) ? config.storage : undefined;
  if (!isRecord(storage)) return [];
  const errs: FieldError[] = [];
  for (const list of ['files', 'directories'] as const) {
    const entries = storage[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry: unknown, i) => {
      const mode = isRecord(entry) ? entry.mode : undefined;
      if (typeof mode !== 'number' || !Number.isInteger(mode) || mode <= 0o777 || mode > 0o7777) return;
      const path = isRecord(entry) && typeof entry.path === 'string' ? entry.path : '';
      errs.push(fieldError.invalid(`${configField}.storage.${list}[${i}].mode`, mode, `invalid mode 0${mode.toString(8)} for ${path}, cannot exceed 0777 (no setuid, setgid or sticky bits)`));
    });
  }
  return errs;
}

/** The value at a path such as `storage.files[2].contents.source`; the whole config for `''`. */
function valueAt(root: unknown, path: string): unknown {
  let cur = root;
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = m[2] !== undefined ? (Array.isArray(cur) ? cur[Number(m[2])] : undefined) : (cur as Record<string, unknown>)[m[1]!];
  }
  return cur;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
