/**
 * The machine drain controller (OpenShift's `machine-drain-controller`): before a deleted
 * Machine's instance is terminated, its Node is cordoned and drained (`runtime/drain.ts`:
 * evictions that honour PodDisruptionBudgets, DaemonSet pods left, emptyDir data and unmanaged
 * pods deleted), and the outcome is the Machine's `Drained` condition, which the machine
 * controller waits for. A queue of its own, so a drain held up by a budget never delays other
 * Machines' creation; its errors back off from 5 s (the reference's drain rate limiter).
 *
 * - Acts on a Machine being deleted, in phase Deleting, not yet `Drained=True`.
 * - Skipped (`Drained=True`, "Node drain skipped") with the annotation
 *   `machine.openshift.io/exclude-node-draining` (any value) or when there is no nodeRef.
 * - A `preDrain` lifecycle hook holds it (event `DrainBlocked`), until removed.
 * - One control-plane node at a time: a control-plane node is not cordoned while another is.
 *   Machines are drained `workers` at a time, so for control-plane nodes the check and the
 *   cordon it allows are one step, taken by one worker at a time: two workers cannot both find
 *   no other control-plane node cordoned and then cordon one each. Other nodes never wait.
 * - A Node whose kubelet is unreachable (Ready=Unknown) is drained with a 1 s grace period,
 *   not waiting for deletions nobody will finish; budgets are still honoured.
 * - A failure is `Drained=False` reason `DrainError` naming the pod and budget in the way, event
 *   `FailedDrain`, and another try after `drainRequeueAfterMs` (20 s); each try gives up after
 *   `drainTimeoutMs` (20 s), so one drain never holds the queue for long.
 */
import type { V1Node } from '@kubernetes/client-node';
import { machineAnnotations, machineConditionTypes, machinePhases, type Machine, type MachineStatus } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { errorText, isNotFound } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import { cordonNode, drainNode } from '../../../runtime/drain.ts';
import type { Informer } from '../../../runtime/informer.ts';
import { ExponentialFailureRateLimiter } from '../../../runtime/rate-limiter.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { RequeueAfterError } from '../providers/provider.ts';
import { machinesRef } from './controller.ts';
import { conditionReasons, eventSubject, falseCondition, findCondition, nextStatus, trueCondition, type ConditionChange } from './status.ts';

export const DRAIN_CONTROLLER = 'machine-drain-controller';

const controlPlaneRoles = ['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane'];

export interface DrainControllerOptions {
  readonly machines: Informer<Machine>;
  /** After a failed drain. Default 20 s. */
  readonly drainRequeueAfterMs?: number;
  /** How long one drain attempt may take. Default 20 s. */
  readonly drainTimeoutMs?: number;
  /** Machines drained at once. Default 1. */
  readonly workers?: number;
}

export function isControlPlane(node: DeepReadonly<V1Node>): boolean {
  return controlPlaneRoles.some((l) => node.metadata?.labels?.[l] !== undefined);
}

/** Runs each `fn` only after every earlier one has settled. */
function oneAtATime(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const turn = tail.then(fn);
    tail = turn.catch(() => {});
    return turn;
  };
}

function isUnreachable(node: DeepReadonly<V1Node>): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown') ?? false;
}

export function createDrainController(ctx: ControllerContext, o: DrainControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: DRAIN_CONTROLLER });
  const { machines } = o;
  const retryMs = o.drainRequeueAfterMs ?? 20_000;
  const timeoutMs = o.drainTimeoutMs ?? 20_000;

  const record = (m: DeepReadonly<Machine>, type: 'Normal' | 'Warning', reason: string, message: string): void => ctx.recorder.event(eventSubject(m), type, reason, message);

  /** Machines whose Drained=True this controller wrote, by uid, until the cache shows it: no second drain on a lagging cache. */
  const drained = new Set<string>();
  const controlPlaneTurn = oneAtATime();

  const writeDrained = async (m: DeepReadonly<Machine>, condition: ConditionChange): Promise<void> => {
    const now = formatTimestamp(ctx.clock.wallNow());
    await updateStatus<MachineStatus, Machine>(ctx.client, statusTargetOf(machinesRef, m), (status, object) =>
      nextStatus(object as DeepReadonly<Machine>, status, { conditions: [condition] }, now),
    );
    if (condition.status === 'True') drained.add(m.metadata?.uid ?? '');
  };

  /** Refuses a control-plane node while another is cordoned, unless this one already is (its drain is the one under way). */
  const checkControlPlane = async (node: DeepReadonly<V1Node>): Promise<void> => {
    if (node.spec?.unschedulable) return;
    for (const role of controlPlaneRoles) {
      const others = (await ctx.client.list<V1Node>(resources.nodes, undefined, { labelSelector: role })).items;
      const busy = others.find((n) => n.metadata?.name !== node.metadata?.name && n.spec?.unschedulable);
      if (busy) throw new RequeueAfterError(retryMs, `control plane node ${busy.metadata?.name} is already cordoned; control plane nodes are drained one at a time`);
    }
  };

  const drain = async (m: DeepReadonly<Machine>, nodeName: string, signal: AbortSignal): Promise<boolean> => {
    let node: V1Node;
    try {
      node = await ctx.client.get<V1Node>(resources.nodes, undefined, nodeName, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // Deleted by someone else already: nothing left to drain.
      logger.info({ machine: m.metadata?.name, node: nodeName }, 'could not find node from noderef, it may have already been deleted');
      return false;
    }
    if (isControlPlane(node)) {
      // The check lists the other nodes from the server, not a cache, so the next turn sees this cordon.
      await controlPlaneTurn(async () => {
        await checkControlPlane(node);
        await cordonNode(ctx.client, nodeName, node);
      });
    } else {
      await cordonNode(ctx.client, nodeName, node);
    }
    const unreachable = isUnreachable(node);
    if (unreachable) logger.info({ machine: m.metadata?.name, node: nodeName }, 'node is unreachable, draining will ignore grace periods; PDBs are still honored');
    const log = logger.child({ machine: m.metadata?.name, node: nodeName });
    await drainNode(ctx.client, nodeName, {
      cordoned: true,
      clock: ctx.clock,
      signal,
      timeoutMs,
      ...(unreachable ? { gracePeriodSeconds: 1, skipWaitForDeleteTimeoutSeconds: 1 } : {}),
      log: { info: (line) => log.info(line), error: (line) => log.warn(line) },
    });
    return true;
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const m = machines.store.get(key);
    if (!m) return;
    if (!m.metadata?.deletionTimestamp || m.status?.phase !== machinePhases.deleting) return;
    if (findCondition(m, machineConditionTypes.drained)?.status === 'True') {
      drained.delete(m.metadata?.uid ?? '');
      return;
    }
    if (drained.has(m.metadata?.uid ?? '')) return;

    const nodeName = m.status?.nodeRef?.name;
    const excluded = m.metadata?.annotations?.[machineAnnotations.excludeNodeDraining] !== undefined;
    if (excluded || !nodeName) {
      record(m, 'Normal', 'DrainSkipped', 'Node drain skipped');
      await writeDrained(m, trueCondition(machineConditionTypes.drained, 'Node drain skipped'));
      return;
    }
    if ((m.spec?.lifecycleHooks?.preDrain?.length ?? 0) > 0) {
      logger.info({ machine: m.metadata?.name }, 'not draining machine: lifecycle blocked by pre-drain hook');
      record(m, 'Normal', 'DrainBlocked', 'Drain blocked by pre-drain hook');
      return;
    }
    record(m, 'Normal', 'DrainProceeds', 'Node drain proceeds');
    try {
      if (await drain(m, nodeName, signal)) record(m, 'Normal', 'Drained', `Node "${nodeName}" drained`);
    } catch (err) {
      if (signal.aborted) return;
      const message = `could not drain machine: ${errorText(err)}`;
      logger.warn({ machine: m.metadata?.name, node: nodeName, err: errorText(err) }, 'drain failed');
      record(m, 'Warning', 'FailedDrain', message);
      await writeDrained(m, falseCondition(machineConditionTypes.drained, conditionReasons.drainError, 'Warning', message));
      return { requeueAfterMs: err instanceof RequeueAfterError ? err.requeueAfterMs : retryMs };
    }
    await writeDrained(m, trueCondition(machineConditionTypes.drained, 'Drain finished successfully'));
  };

  const controller = new Controller({
    name: DRAIN_CONTROLLER,
    reconcile,
    workers: o.workers ?? 1,
    clock: ctx.clock,
    rateLimiter: new ExponentialFailureRateLimiter({ baseMs: 5_000, maxMs: 1_000_000 }),
    observer: ctx.metrics?.forController(DRAIN_CONTROLLER),
    onError: logSyncFailure(logger, 'drain sync failed'),
  });
  // Only Machines being deleted: the others are every write of a scale-up, each a pass that would do nothing.
  controller.watch(machines, (m) => !!m.metadata?.deletionTimestamp);
  machines.on('delete', (m) => drained.delete(m.metadata?.uid ?? ''));
  return controller;
}
