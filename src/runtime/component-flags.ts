/**
 * The flags every controller component shares, with kube-controller-manager's names:
 * `--kubeconfig`, `--leader-elect`, `--leader-elect-lease-duration`, `-renew-deadline`,
 * `-retry-period` (OpenShift's 137s/107s/26s by default). Component-specific flags are
 * declared by the component and parsed in the same pass, so a typo is an error naming it.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseDuration } from '../api/duration.ts';
import { candidateIdentity } from './leader-election.ts';
import type { LeaderElectionConfig } from './manager.ts';

export interface CommonFlags {
  kubeconfig?: string;
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

type Options = NonNullable<ParseArgsConfig['options']>;

const common: Options = {
  kubeconfig: { type: 'string' },
  'leader-elect': { type: 'string', default: 'true' },
  'leader-elect-lease-duration': { type: 'string', default: '137s' },
  'leader-elect-renew-deadline': { type: 'string', default: '107s' },
  'leader-elect-retry-period': { type: 'string', default: '26s' },
};

function duration(component: string, flag: string, value: unknown): number {
  try {
    return parseDuration(String(value));
  } catch (err) {
    throw new Error(`${component}: --${flag}: ${(err as Error).message}`);
  }
}

export function parseComponentFlags(component: string, args: readonly string[], extra: Options = {}): { common: CommonFlags; values: Record<string, string | boolean | (string | boolean)[] | undefined> } {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    values = parseArgs({ args: [...args], options: { ...common, ...extra }, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new Error(`${component}: ${(err as Error).message}`);
  }
  const leaseDurationMs = duration(component, 'leader-elect-lease-duration', values['leader-elect-lease-duration']);
  // Shorter leases scale the other two, so `--leader-elect-lease-duration=15s` alone is coherent.
  const scaled = leaseDurationMs !== 137_000;
  const renewDeadlineMs = values['leader-elect-renew-deadline'] !== '107s' || !scaled ? duration(component, 'leader-elect-renew-deadline', values['leader-elect-renew-deadline']) : Math.floor((leaseDurationMs * 107) / 137);
  const retryPeriodMs = values['leader-elect-retry-period'] !== '26s' || !scaled ? duration(component, 'leader-elect-retry-period', values['leader-elect-retry-period']) : Math.floor((leaseDurationMs * 26) / 137);
  const le = String(values['leader-elect']);
  if (le !== 'true' && le !== 'false') throw new Error(`${component}: --leader-elect must be true or false, got "${le}"`);
  return {
    common: { kubeconfig: values.kubeconfig as string | undefined, leaderElect: le === 'true', leaseDurationMs, renewDeadlineMs, retryPeriodMs },
    values,
  };
}

/** The Lease `namespace/name` with the flags' timings, campaigned for under the pod's identity (see candidateIdentity). */
export function leaderElectionFor(namespace: string, name: string, flags: CommonFlags, env: Readonly<Record<string, string | undefined>>): LeaderElectionConfig | undefined {
  if (!flags.leaderElect) return undefined;
  return { namespace, name, identity: candidateIdentity(env), leaseDurationMs: flags.leaseDurationMs, renewDeadlineMs: flags.renewDeadlineMs, retryPeriodMs: flags.retryPeriodMs };
}
