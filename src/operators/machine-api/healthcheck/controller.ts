/**
 * The MachineHealthCheck controller (OpenShift's machine-healthcheck): for each health check,
 * the Machines it selects are checked against their Nodes (health.ts); the status says how many
 * are expected and healthy and whether remediation is allowed; and when it is, each unhealthy
 * Machine is remediated or left alone with an event saying why (remediation.ts). Both forms run
 * here, keyed apart: machine.openshift.io/v1beta1 MachineHealthChecks, with a status, and the
 * older healthchecking.openshift.io/v1alpha1 ones, which have none and so speak through events.
 *
 * Reconciles are keyed by health check. Machine events map to the checks whose selector picks
 * the Machine; Node events, when a condition changes, through the Machine linked to the Node;
 * MachineSet template edits to the checks of their namespace (an edit may end the
 * InvalidConfiguration hold); the ConfigMap node-unhealthy-conditions to every v1alpha1 check.
 * What time alone changes (a condition held long enough, a Node that never came) is caught by
 * requeueing for the soonest such moment, on the context's clock.
 *
 * Which Machines: a v1beta1 check selects in its own namespace, as in OpenShift. A v1alpha1
 * check selects the Machine API's Machines (the controller's namespace, openshift-machine-api by
 * default) wherever it lives: that form's controller started from Nodes, whatever namespace the
 * check was in, and the Machine API Operator's README creates its example in `default`.
 */
import type { V1ConfigMap, V1Node } from '@kubernetes/client-node';
import { setCondition, type ConditionLike } from '../../../api/config/conditions.ts';
import { compileLabelSelector } from '../../../api/label-selector.ts';
import {
  LegacyMachineHealthCheck,
  Machine,
  machineAnnotations,
  machineAPINamespace,
  MachineHealthCheck,
  MachineSet,
  type MachineHealthCheckStatus,
} from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { NAMESPACE_INDEX, objectKey, type IndexFunc } from '../../../runtime/cache.ts';
import { errorText, isNotFound } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { terminal, type ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { evaluate, remediationAllowedCondition, remediationRestricted, type Evaluation, type Node, type Target } from './health.ts';
import { describeRules, legacyPolicyOf, legacyReadyRules, parseUnhealthyConditions, policyOf, unhealthyConditionsConfigMap, type HealthCheckPolicy, type NodeConditionRule } from './policy.ts';
import {
  detectedUnhealthyMessage,
  eventReasons,
  machineDeletedMessage,
  machineDeletionFailedMessage,
  remediationFor,
  targetName,
} from './remediation.ts';

export const MACHINES = refOf(Machine);
export const MACHINE_SETS = refOf(MachineSet);
export const HEALTH_CHECKS = refOf(MachineHealthCheck);
export const LEGACY_HEALTH_CHECKS = refOf(LegacyMachineHealthCheck);

export const invalidSpecReason = 'InvalidSpec';
export const invalidUnhealthyConditionsReason = 'InvalidUnhealthyConditions';

export interface HealthCheckControllerOptions {
  /** v1beta1 checks, Machines and MachineSets of this namespace only (the component's `--namespace`); every namespace when undefined. */
  readonly namespace?: string;
}

const NAME = 'machinehealthcheck';
const NODE_INDEX = 'machinehealthcheck.node';
const byNodeName: IndexFunc<Machine> = (m) => (m.status?.nodeRef?.name ? [m.status.nodeRef.name] : []);

type Form = 'v1beta1' | 'v1alpha1';

/** Queue keys say which form: the two kinds share a name and may share a namespace. */
const keyOf = (form: Form, obj: { readonly metadata?: { readonly namespace?: string; readonly name?: string } }): string => `${form}:${objectKey(obj)}`;

function parseKey(key: string): { form: Form; key: string } {
  const colon = key.indexOf(':');
  return { form: key.slice(0, colon) as Form, key: key.slice(colon + 1) };
}

/** What a Node event must change to matter here: its conditions' statuses and transition times. */
const conditionsOf = (node: DeepReadonly<V1Node>): string => (node.status?.conditions ?? []).map((c) => `${c.type}=${c.status}@${String(c.lastTransitionTime ?? '')}`).join(',');

export function createMachineHealthCheckController(ctx: ControllerContext, o: HealthCheckControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const scope = o.namespace ? { namespace: o.namespace } : {};
  const machineAPIMachines = o.namespace ?? machineAPINamespace;
  const checks = ctx.informers.informer<MachineHealthCheck>(HEALTH_CHECKS, scope);
  const legacyChecks = ctx.informers.informer<LegacyMachineHealthCheck>(LEGACY_HEALTH_CHECKS);
  const machines = ctx.informers.informer<Machine>(MACHINES, scope);
  const machineSets = ctx.informers.informer<MachineSet>(MACHINE_SETS, scope);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, {
    namespace: unhealthyConditionsConfigMap.namespace,
    fieldSelector: `metadata.name=${unhealthyConditionsConfigMap.name}`,
  });
  machines.addIndexer(NODE_INDEX, byNodeName);

  /** Where a check's Machines live, and its selector. */
  const machinesNamespace = (form: Form, check: { readonly metadata?: { readonly namespace?: string } }): string =>
    form === 'v1beta1' ? (check.metadata?.namespace ?? '') : machineAPIMachines;

  /** The v1alpha1 form's extra rules; a ConfigMap that cannot be read is reported on the check, and only the Ready rules apply. */
  const legacyRules = (check: DeepReadonly<LegacyMachineHealthCheck>): NodeConditionRule[] => {
    const cm = configMaps.store.get(`${unhealthyConditionsConfigMap.namespace}/${unhealthyConditionsConfigMap.name}`);
    const parsed = parseUnhealthyConditions(cm?.data?.[unhealthyConditionsConfigMap.key]);
    if (parsed.ok) return [...parsed.rules];
    const where = `ConfigMap ${unhealthyConditionsConfigMap.namespace}/${unhealthyConditionsConfigMap.name} key ${unhealthyConditionsConfigMap.key}`;
    ctx.recorder.event(check, 'Warning', invalidUnhealthyConditionsReason, `${where}: ${parsed.message}; checking only the default conditions (${describeRules(legacyReadyRules)})`);
    logger.warn({ check: objectKey(check), err: parsed.message }, 'node-unhealthy-conditions cannot be read; using the defaults');
    return [];
  };

  const writeStatus = (check: DeepReadonly<MachineHealthCheck>, e: Evaluation) =>
    updateStatus<MachineHealthCheckStatus>(ctx.client, statusTargetOf(HEALTH_CHECKS, check), (status) => {
      const now = formatTimestamp(ctx.clock.wallNow());
      // The schema leaves every condition field optional; this controller always writes the transition time.
      const conditions = setCondition(status.conditions as ConditionLike[] | undefined, { type: remediationAllowedCondition, ...e.remediationAllowed }, now);
      return { ...status, expectedMachines: e.expectedMachines, currentHealthy: e.currentHealthy, remediationsAllowed: e.remediationsAllowed, conditions: conditions as MachineHealthCheckStatus['conditions'] };
    });

  /** Deletes the Machine, unless what the cache showed has gone or changed its mind; errors are returned, not thrown, so one Machine does not hold up the rest. */
  const remediate = async (check: DeepReadonly<MachineHealthCheck | LegacyMachineHealthCheck>, t: Target): Promise<Error | undefined> => {
    const name = targetName(check, t);
    const decision = remediationFor(t, name, (ns, n) => machineSets.store.get(`${ns}/${n}`));
    if (decision.action === 'none') return undefined;
    if (decision.action === 'skip') {
      ctx.recorder.event(t.machine, decision.event.type, decision.event.reason, decision.event.message);
      return undefined;
    }
    const { namespace, name: machineName, uid } = t.machine.metadata ?? {};
    if (t.health.kind === 'unhealthy' && t.health.reason === 'NodeNotFound') {
      // The Node may be newer than this cache: ask the server before deleting a Machine for it.
      try {
        await ctx.client.get(resources.nodes, undefined, t.machine.status?.nodeRef?.name ?? '');
        return undefined;
      } catch (err) {
        if (!isNotFound(err)) return err as Error;
      }
    }
    logger.info({ check: objectKey(check), machine: `${namespace}/${machineName}`, reason: t.health.kind === 'unhealthy' ? t.health.reason : '' }, 'deleting unhealthy Machine');
    try {
      await ctx.client.delete(MACHINES, namespace, machineName ?? '', { preconditions: { uid } });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      ctx.recorder.event(t.machine, 'Warning', eventReasons.machineDeletionFailed, machineDeletionFailedMessage(name, errorText(err)));
      return err as Error;
    }
    ctx.recorder.event(t.machine, 'Normal', eventReasons.machineDeleted, machineDeletedMessage(name));
    return undefined;
  };

  const reconcile = async (queueKey: string): Promise<ReconcileResult> => {
    const { form, key } = parseKey(queueKey);
    const check = form === 'v1beta1' ? checks.store.get(key) : legacyChecks.store.get(key);
    if (!check || check.metadata?.deletionTimestamp) return;
    if (check.metadata?.annotations?.[machineAnnotations.paused] !== undefined) return;

    let policy: HealthCheckPolicy;
    if (form === 'v1beta1') {
      const read = policyOf(check as DeepReadonly<MachineHealthCheck>);
      if (!read.ok) {
        ctx.recorder.event(check, 'Warning', invalidSpecReason, `${read.field}: ${read.message}`);
        // Only an edit fixes it, and an edit enqueues the check again.
        throw terminal(new Error(`${key}: ${read.field}: ${read.message}`));
      }
      policy = read.policy;
    } else {
      policy = legacyPolicyOf(check as DeepReadonly<LegacyMachineHealthCheck>, legacyRules(check as DeepReadonly<LegacyMachineHealthCheck>));
    }
    // OpenShift's selector is not optional: left out, it is `{}`, every Machine of the namespace.
    const selector = compileLabelSelector(policy.selector ?? {}, 'spec.selector');
    if (selector.error !== undefined) {
      ctx.recorder.event(check, 'Warning', invalidSpecReason, selector.error);
      throw terminal(new Error(`${key}: ${selector.error}`));
    }
    const selected = machines.store.byIndex(NAMESPACE_INDEX, machinesNamespace(form, check)).filter((m) => selector.matches(m.metadata?.labels));
    const nodeOf = (n: string): Node | undefined => nodes.store.get(n);
    const e = evaluate(policy, selected, nodeOf, ctx.clock.wallNow());

    if (form === 'v1beta1') await writeStatus(check as DeepReadonly<MachineHealthCheck>, e);
    for (const t of e.targets) {
      if (t.health.kind === 'pending') ctx.recorder.event(t.machine, 'Normal', eventReasons.detectedUnhealthy, detectedUnhealthyMessage(targetName(check, t), t));
    }
    const result = e.requeueAfterMs === undefined ? undefined : { requeueAfterMs: e.requeueAfterMs };
    if (e.remediationAllowed.status !== 'True') {
      const warning = remediationRestricted(e, policy.maxUnhealthy);
      if (warning) ctx.recorder.event(check, 'Warning', eventReasons.remediationRestricted, warning);
      logger.info({ check: key, total: e.expectedMachines, unhealthy: e.unhealthyCount, maxUnhealthy: String(policy.maxUnhealthy) }, 'short-circuiting remediation');
      return result;
    }
    const errors: Error[] = [];
    for (const t of e.targets) {
      if (t.health.kind !== 'unhealthy') continue;
      const err = await remediate(check, t);
      if (err) errors.push(err);
    }
    if (errors.length) throw new Error(`${key}: ${errors.map((x) => x.message).join('; ')}`);
    return result;
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ key: r.key, err: errorText(r.error) }, 'health check sync failed'),
  });

  /** Every check, of either form, whose Machines include this one. */
  const checksOf = (m: DeepReadonly<Machine>): string[] => {
    const ns = m.metadata?.namespace ?? '';
    const out: string[] = [];
    const consider = (form: Form, check: DeepReadonly<MachineHealthCheck | LegacyMachineHealthCheck>) => {
      if (machinesNamespace(form, check) !== ns) return;
      if (compileLabelSelector(check.spec?.selector ?? {}).matches?.(m.metadata?.labels)) out.push(keyOf(form, check));
    };
    for (const c of checks.store.byIndex(NAMESPACE_INDEX, ns)) consider('v1beta1', c);
    if (ns === machineAPIMachines) for (const c of legacyChecks.store.list()) consider('v1alpha1', c);
    return out;
  };

  checks.on('add', (c) => controller.enqueue(keyOf('v1beta1', c)));
  checks.on('update', (c, old) => {
    // Its own status writes change neither: the spec (generation) or the pause annotation may.
    if (c.metadata?.generation !== old.metadata?.generation || c.metadata?.annotations?.[machineAnnotations.paused] !== old.metadata?.annotations?.[machineAnnotations.paused]) {
      controller.enqueue(keyOf('v1beta1', c));
    }
  });
  legacyChecks.on('add', (c) => controller.enqueue(keyOf('v1alpha1', c)));
  legacyChecks.on('update', (c) => controller.enqueue(keyOf('v1alpha1', c)));
  controller.watchMapped(machines, checksOf);
  const nodeToChecks = (n: DeepReadonly<V1Node>) => machines.store.byIndex(NODE_INDEX, n.metadata?.name ?? '').flatMap(checksOf);
  nodes.on('add', (n) => nodeToChecks(n).forEach((k) => controller.enqueue(k)));
  nodes.on('delete', (n) => nodeToChecks(n).forEach((k) => controller.enqueue(k)));
  nodes.on('update', (n, old) => {
    if (conditionsOf(n) !== conditionsOf(old)) nodeToChecks(n).forEach((k) => controller.enqueue(k));
  });
  /** The checks, of either form, that select among the Machines of `ns`. */
  const checksIn = (ns: string) => [
    ...checks.store.byIndex(NAMESPACE_INDEX, ns).map((c) => keyOf('v1beta1', c)),
    ...(ns === machineAPIMachines ? legacyChecks.store.list().map((c) => keyOf('v1alpha1', c)) : []),
  ];
  machineSets.on('add', (s) => checksIn(s.metadata?.namespace ?? '').forEach((k) => controller.enqueue(k)));
  machineSets.on('delete', (s) => checksIn(s.metadata?.namespace ?? '').forEach((k) => controller.enqueue(k)));
  machineSets.on('update', (s, old) => {
    // Status writes (replica counts) change nothing here; a template edit may.
    if (s.metadata?.generation !== old.metadata?.generation) checksIn(s.metadata?.namespace ?? '').forEach((k) => controller.enqueue(k));
  });
  const allLegacy = () => legacyChecks.store.list().forEach((c) => controller.enqueue(keyOf('v1alpha1', c)));
  configMaps.on('add', allLegacy);
  configMaps.on('update', allLegacy);
  configMaps.on('delete', allLegacy);
  return controller;
}
