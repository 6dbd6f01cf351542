/**
 * IntOrString fields such as maxSurge and maxUnavailable: a count, or a percentage of a total
 * ("25%"). Which way a percentage rounds is part of each caller's contract (a Deployment
 * rounds surge up and unavailability down; a DaemonSet rounds both up; a MachineConfigPool's
 * maxUnavailable rounds down), so the caller says. In api/ because the workload controllers and
 * the machine-config-controller both use it.
 */

export type IntOrPercent = number | string;

export class IntOrPercentError extends Error {
  constructor(value: unknown) {
    super(`invalid value for IntOrString: ${JSON.stringify(value)}: must be an integer or a percentage such as "25%"`);
    this.name = 'IntOrPercentError';
  }
}

export function scaledValue(value: IntOrPercent | undefined | null, total: number, roundUp: boolean): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new IntOrPercentError(value);
    return value;
  }
  const m = /^(\d+)%$/.exec(value);
  if (m) {
    const scaled = (Number(m[1]) * total) / 100;
    return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
  }
  throw new IntOrPercentError(value);
}
