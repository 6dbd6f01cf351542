/**
 * A Job's `podFailurePolicy` applied to one failed pod, as kube's job controller applies it:
 * rules are tried in order; the first whose exit codes (of a terminated container, init
 * containers first, non-zero only) or pod condition pattern matches decides. FailJob fails the
 * Job with a message naming the container or condition and the rule; Ignore does not count the
 * failure against `backoffLimit`; Count counts it, as does a failure no rule matches.
 */
import type { V1Pod, V1PodFailurePolicy, V1PodFailurePolicyRule } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export interface FailurePolicyMatch {
  /** Set when a FailJob rule matched: the Job fails with this message. */
  readonly failJobMessage?: string;
  /** Whether the failure counts towards the backoff limit. */
  readonly countFailed: boolean;
  /** The action of the matching rule, if one matched. */
  readonly action?: string;
}

type Pod = DeepReadonly<V1Pod>;
type Rule = DeepReadonly<V1PodFailurePolicyRule>;

function matchingExitCode(rule: Rule, pod: Pod): { name: string; exitCode: number } | undefined {
  const req = rule.onExitCodes;
  if (!req) return undefined;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const cs of statuses) {
    if (req.containerName && req.containerName !== cs.name) continue;
    const exitCode = cs.state?.terminated?.exitCode;
    if (exitCode === undefined || exitCode === 0) continue;
    const listed = (req.values ?? []).includes(exitCode);
    if ((req.operator === 'In' && listed) || (req.operator === 'NotIn' && !listed)) return { name: cs.name, exitCode };
  }
  return undefined;
}

function matchingCondition(rule: Rule, pod: Pod): string | undefined {
  for (const pattern of rule.onPodConditions ?? []) {
    const want = pattern.status ?? 'True';
    const found = (pod.status?.conditions ?? []).find((c) => c.type === pattern.type && c.status === want);
    if (found) return found.type;
  }
  return undefined;
}

export function matchPodFailurePolicy(policy: DeepReadonly<V1PodFailurePolicy> | undefined, pod: Pod): FailurePolicyMatch {
  const where = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    let failJobMessage: string | undefined;
    const container = matchingExitCode(rule, pod);
    if (container) failJobMessage = `Container ${container.name} for pod ${where} failed with exit code ${container.exitCode} matching ${rule.action} rule at index ${index}`;
    else {
      const condition = matchingCondition(rule, pod);
      if (condition === undefined) continue;
      failJobMessage = `Pod ${where} has condition ${condition} matching ${rule.action} rule at index ${index}`;
    }
    switch (rule.action) {
      case 'Ignore':
        return { countFailed: false, action: rule.action };
      case 'Count':
        return { countFailed: true, action: rule.action };
      case 'FailJob':
        return { failJobMessage, countFailed: true, action: rule.action };
      default:
        // FailIndex needs backoffLimitPerIndex, which this controller does not run; an unknown action is skipped, as kube does.
        continue;
    }
  }
  return { countFailed: true };
}
