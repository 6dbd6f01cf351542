/**
 * What a health check asks for, whichever of the two forms it is written in, as one policy the
 * decisions (health.ts) read: which Machines, which Node conditions for how long, how many may be
 * unhealthy before remediation stops, and how long a Machine may go without a Node.
 *
 * - machine.openshift.io/v1beta1 says it all in its spec; the API server defaults what is left
 *   out (maxUnhealthy 100%, nodeStartupTimeout 10m, Ready False/Unknown 300s), and the same
 *   defaults are applied here for an object stored without them.
 * - healthchecking.openshift.io/v1alpha1 has only a selector. As the Machine API Operator's
 *   README describes it, Ready not True for 5 minutes is unhealthy, and ConfigMap
 *   `node-unhealthy-conditions` in openshift-machine-api (key `conditions`, YAML
 *   `items: [{name, timeout, status}]`) adds conditions of its own (issue 16 item 6: they are
 *   added to Ready, not put in its place). No maxUnhealthy (100%), and no startup timeout: the
 *   controller of that form looked at Nodes only, so a Machine that never got one was never its
 *   concern.
 */
import { parse as parseYaml } from 'yaml';
import { formatDuration, parseDuration } from '../../../api/duration.ts';
import type { IntOrPercent } from '../../../api/int-or-percent.ts';
import type { LabelSelector } from '../../../api/label-selector.ts';
import { defaultUnhealthyConditions, machineAPINamespace, type LegacyMachineHealthCheck, type MachineHealthCheck } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

/** The ConfigMap the v1alpha1 form reads its extra conditions from, and its key. */
export const unhealthyConditionsConfigMap = { namespace: machineAPINamespace, name: 'node-unhealthy-conditions', key: 'conditions' } as const;

export const defaultMaxUnhealthy = '100%';
export const defaultNodeStartupTimeout = '10m';

/** A Node condition type and status that, held for `timeoutMs`, makes a Machine unhealthy. */
export interface NodeConditionRule {
  readonly type: string;
  readonly status: string;
  readonly timeoutMs: number;
}

export interface HealthCheckPolicy {
  /** Undefined or `{}`: every Machine of the namespace. */
  readonly selector: DeepReadonly<LabelSelector> | undefined;
  /** ORed. */
  readonly unhealthyConditions: readonly NodeConditionRule[];
  /** As written (`"40%"`, `"3"`, `3`), for messages; health.ts turns it into a count. */
  readonly maxUnhealthy: IntOrPercent;
  /** 0: a Machine may wait for its Node forever. */
  readonly nodeStartupTimeoutMs: number;
}

export type PolicyResult = { readonly ok: true; readonly policy: HealthCheckPolicy } | { readonly ok: false; readonly field: string; readonly message: string };

function rules(conditions: readonly { readonly type: string; readonly status: string; readonly timeout: string }[], path: string): { ok: true; rules: NodeConditionRule[] } | { ok: false; field: string; message: string } {
  const out: NodeConditionRule[] = [];
  for (const [i, c] of conditions.entries()) {
    try {
      out.push({ type: c.type, status: c.status, timeoutMs: parseDuration(c.timeout) });
    } catch (err) {
      return { ok: false, field: `${path}[${i}].timeout`, message: (err as Error).message };
    }
  }
  return { ok: true, rules: out };
}

/** The policy of a machine.openshift.io/v1beta1 MachineHealthCheck; a field that cannot be read is named. */
export function policyOf(mhc: DeepReadonly<MachineHealthCheck>): PolicyResult {
  const spec = mhc.spec ?? {};
  const conditions = rules(spec.unhealthyConditions?.length ? spec.unhealthyConditions : defaultUnhealthyConditions, 'spec.unhealthyConditions');
  if (!conditions.ok) return conditions;
  let nodeStartupTimeoutMs: number;
  try {
    nodeStartupTimeoutMs = parseDuration(spec.nodeStartupTimeout ?? defaultNodeStartupTimeout);
  } catch (err) {
    return { ok: false, field: 'spec.nodeStartupTimeout', message: (err as Error).message };
  }
  if (nodeStartupTimeoutMs < 0) return { ok: false, field: 'spec.nodeStartupTimeout', message: `must not be negative, got "${spec.nodeStartupTimeout}"` };
  return {
    ok: true,
    policy: { selector: spec.selector, unhealthyConditions: conditions.rules, maxUnhealthy: spec.maxUnhealthy ?? defaultMaxUnhealthy, nodeStartupTimeoutMs },
  };
}

/** Ready not True for 5 minutes: what the v1alpha1 form always checks. */
export const legacyReadyRules: readonly NodeConditionRule[] = [
  { type: 'Ready', status: 'False', timeoutMs: 5 * 60_000 },
  { type: 'Ready', status: 'Unknown', timeoutMs: 5 * 60_000 },
];

/** The policy of a healthchecking.openshift.io/v1alpha1 MachineHealthCheck, with the ConfigMap's conditions (already parsed) added. */
export function legacyPolicyOf(mhc: DeepReadonly<LegacyMachineHealthCheck>, extra: readonly NodeConditionRule[]): HealthCheckPolicy {
  return { selector: mhc.spec?.selector, unhealthyConditions: [...legacyReadyRules, ...extra], maxUnhealthy: defaultMaxUnhealthy, nodeStartupTimeoutMs: 0 };
}

export type ConfigMapConditions = { readonly ok: true; readonly rules: readonly NodeConditionRule[] } | { readonly ok: false; readonly message: string };

/**
 * The `conditions` key of ConfigMap node-unhealthy-conditions. YAML reads the seed's unquoted
 * `status: True` as a boolean, so true and false stand for "True" and "False" (Go's YAML
 * decoder turns them into the condition status strings the same way). Anything else that is not
 * exactly what the seed shows is refused with the item and field named; the caller then keeps
 * to the Ready rules and says so.
 */
export function parseUnhealthyConditions(text: string | undefined): ConfigMapConditions {
  if (text === undefined || text.trim() === '') return { ok: true, rules: [] };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return { ok: false, message: `not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  if (doc === null || doc === undefined) return { ok: true, rules: [] };
  if (typeof doc !== 'object' || Array.isArray(doc)) return { ok: false, message: 'expected a mapping with an "items" list' };
  const items = (doc as { items?: unknown }).items;
  if (items === undefined || items === null) return { ok: true, rules: [] };
  if (!Array.isArray(items)) return { ok: false, message: '"items" must be a list' };
  const out: NodeConditionRule[] = [];
  for (const [i, raw] of items.entries()) {
    const at = `items[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, message: `${at}: expected a mapping with name, timeout and status` };
    const item = raw as { name?: unknown; timeout?: unknown; status?: unknown };
    if (typeof item.name !== 'string' || item.name === '') return { ok: false, message: `${at}.name: Required value: a Node condition type` };
    const status = typeof item.status === 'boolean' ? (item.status ? 'True' : 'False') : item.status;
    if (status !== 'True' && status !== 'False' && status !== 'Unknown') {
      return { ok: false, message: `${at}.status: Unsupported value: ${JSON.stringify(item.status ?? null)}: supported values: "True", "False", "Unknown"` };
    }
    if (typeof item.timeout !== 'string') return { ok: false, message: `${at}.timeout: Invalid value: ${JSON.stringify(item.timeout ?? null)}: a duration such as "5m" or "300s"` };
    let timeoutMs: number;
    try {
      timeoutMs = parseDuration(item.timeout);
    } catch (err) {
      return { ok: false, message: `${at}.timeout: ${(err as Error).message}` };
    }
    if (timeoutMs < 0) return { ok: false, message: `${at}.timeout: Invalid value: "${item.timeout}": must not be negative` };
    out.push({ type: item.name, status, timeoutMs });
  }
  return { ok: true, rules: out };
}

/** "Ready False or Unknown for 5m0s": how a list of rules reads in a message. */
export function describeRules(list: readonly NodeConditionRule[]): string {
  return list.map((r) => `${r.type}=${r.status} for ${formatDuration(r.timeoutMs)}`).join(', ');
}
