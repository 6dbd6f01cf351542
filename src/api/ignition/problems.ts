/**
 * What parsing and validating an Ignition config can report. Each problem names the JSON path
 * it is about (`storage.files[2].path: must be absolute`), so whoever shows it — a failed
 * instance's state reason, a MachineConfigPool's RenderDegraded message — points at the field
 * to fix. Warnings (an unknown key, a field newer than the config's version) never stop a config.
 */
import { childPath } from '../field-errors.ts';

export interface ConfigProblem {
  /** Dotted JSON path with indexes; empty for the document as a whole. */
  readonly path: string;
  readonly message: string;
}

export function formatProblem(p: ConfigProblem): string {
  return p.path ? `${p.path}: ${p.message}` : p.message;
}

/** Thrown by the `...OrThrow` helpers; `problems` keeps the structured form. */
export class IgnitionConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(`invalid Ignition config: ${problems.map(formatProblem).join('; ')}`);
    this.name = 'IgnitionConfigError';
    this.problems = problems;
  }
}

/** Collects errors and warnings while a config is walked. */
export class Report {
  readonly errors: ConfigProblem[] = [];
  readonly warnings: ConfigProblem[] = [];

  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }
}

export { childPath as join };
