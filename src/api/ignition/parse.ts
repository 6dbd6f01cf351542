/**
 * Reading an Ignition config: JSON text (or an already-parsed object, as a MachineConfig's
 * `spec.config` arrives) of spec 2.2 or 3.0–3.4 becomes one spec 3 `IgnitionConfig`, or the
 * list of problems that stop it, each naming its JSON path.
 */
import { Report, IgnitionConfigError, type ConfigProblem } from './problems.ts';
import { decode, isObject } from './shape.ts';
import { configV2, configV3 } from './shapes.ts';
import type { IgnitionConfig, IgnitionV2Config } from './types.ts';
import { translateV2 } from './v2.ts';
import { validateInto } from './validate.ts';
import { isSupported, parseVersion, supportedVersions } from './version.ts';

export type ParseResult =
  | { ok: true; config: IgnitionConfig; sourceVersion: string; warnings: ConfigProblem[] }
  | { ok: false; errors: ConfigProblem[]; warnings: ConfigProblem[] };

export function parse(text: string): ParseResult {
  if (text.trim() === '') return failed([{ path: '', message: 'not a config (empty)' }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return failed([{ path: '', message: `config is not valid JSON: ${(err as Error).message}` }]);
  }
  return parseObject(value);
}

export function parseObject(value: unknown): ParseResult {
  if (!isObject(value)) return failed([{ path: '', message: 'config must be a JSON object' }]);
  const ignition = value.ignition;
  const raw = isObject(ignition) ? ignition.version : undefined;
  if (raw === undefined) return failed([{ path: 'ignition.version', message: 'is required' }]);
  if (typeof raw !== 'string') return failed([{ path: 'ignition.version', message: 'must be a string' }]);
  const version = parseVersion(raw);
  if (!version) return failed([{ path: 'ignition.version', message: `invalid config version ${JSON.stringify(raw)} (couldn't parse)` }]);
  if (!isSupported(version)) {
    return failed([{ path: 'ignition.version', message: `unsupported config version ${JSON.stringify(raw)} (supported: ${supportedVersions.join(', ')})` }]);
  }
  const report = new Report();
  let config: IgnitionConfig;
  if (version.major === 2) {
    const v2 = decode(value, configV2, '', { minor: 0, report }) as IgnitionV2Config;
    if (report.errors.length > 0) return { ok: false, errors: report.errors, warnings: report.warnings };
    config = translateV2(v2, report);
  } else {
    config = decode(value, configV3, '', { minor: version.minor, report }) as IgnitionConfig;
  }
  if (report.errors.length === 0) validateInto(config, report);
  if (report.errors.length > 0) return { ok: false, errors: report.errors, warnings: report.warnings };
  return { ok: true, config, sourceVersion: raw, warnings: report.warnings };
}

/** `parse`, throwing `IgnitionConfigError` instead of returning problems. */
export function parseOrThrow(text: string): IgnitionConfig {
  const result = parse(text);
  if (!result.ok) throw new IgnitionConfigError(result.errors);
  return result.config;
}

function failed(errors: ConfigProblem[]): ParseResult {
  return { ok: false, errors, warnings: [] };
}
