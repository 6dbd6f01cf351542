/**
 * The machine controller (OpenShift's `machine-controller`): keeps each Machine's instance in
 * being through the platform's provider (`providers/provider.ts`), and records what the instance
 * is. Keyed by Machine; every step reads the Machine from the cache and does one thing, and the
 * write it makes brings the Machine back (level-triggered, as the reference's reconcile is):
 *
 * 1. Invalid Machine (no `machine.openshift.io/cluster-api-cluster` label, no providerSpec
 *    value): Warning event `FailedValidate`, not retried until the Machine changes.
 * 2. The finalizer `machine.machine.openshift.io` is added first.
 * 3. Being deleted: phase Deleting; then wait for the drain controller's `Drained=True` and for
 *    every `preTerminate` hook to be removed; `delete` the instance (an invalid configuration with
 *    no addresses never had one), wait until `exists` says it is gone, delete the Node (gone
 *    already is fine) and drop the finalizer. The termination is looked at again after 100 ms,
 *    then after twice as long each time up to `requeueAfterMs`: it usually takes moments, and a
 *    whole poll interval after each would be most of a scale-down's time.
 * 4. Phase Failed is terminal: nothing more is done, and no provider call is made, until the
 *    Machine is deleted (an invalid configuration will not fix itself; OpenShift's behaviour).
 * 5. The instance exists: `update`, record providerID, addresses, providerStatus, labels and
 *    instance state, `InstanceExists=True`; phase Provisioned until the nodelink controller sets
 *    `nodeRef`, then Running. An error checking or updating is retried.
 * 6. It does not exist but the Machine was provisioned: the instance vanished, phase Failed with
 *    `InstanceExists=False` reason `InstanceMissing`.
 * 7. Otherwise phase Provisioning, then `create`: an invalid configuration is phase Failed with
 *    errorReason `InvalidConfiguration` and a message naming the field; on success what the
 *    provider reports is recorded at once, with phase Provisioned and `InstanceExists=True` (what
 *    the next pass would find), so the Machine is Provisioned without waiting a poll.
 *
 * A pass that writes the finalizer or phase Provisioning goes on with the Machine as the server
 * returned it, rather than ending and waiting for the cache to bring it back: the same writes in
 * the same order, with a pass and a look at the cloud fewer each.
 *
 * Polls use `requeueAfterMs` (30 s, as OpenShift's) and all time comes from the context's Clock.
 */
import { childPath, fieldError, type FieldError } from '../../../api/field-errors.ts';
import { Machine, machineAnnotations, machineConditionTypes, machineFinalizer, machineLabels, machinePhases, type MachinePhase, type MachineStatus } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { errorText, isConflict, isNotFound } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { Informer } from '../../../runtime/informer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { ExponentialFailureRateLimiter } from '../../../runtime/rate-limiter.ts';
import { terminal, TerminalError, type ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { isInvalidConfiguration, RequeueAfterError, type MachineProvider, type MachineUpdate } from '../providers/provider.ts';
import { machinePatch } from './object-patch.ts';
import { conditionReasons, eventSubject, falseCondition, findCondition, nextStatus, trueCondition, unknownCondition, unknownInstanceState, type StatusChange } from './status.ts';

export const MACHINE_CONTROLLER = 'machine-controller';
export const machinesRef = refOf(Machine);

type ReadonlyMachine = DeepReadonly<Machine>;

export interface MachineControllerOptions {
  readonly provider: MachineProvider;
  readonly machines: Informer<Machine>;
  /** Between looks at an instance being created or terminated. Default 30 s. */
  readonly requeueAfterMs?: number;
  /** Machines reconciled at once. Default 1. */
  readonly workers?: number;
}

/** OpenShift's checks before anything is done with a Machine. */
export function validateMachine(m: ReadonlyMachine): FieldError[] {
  const errors: FieldError[] = [];
  if (!m.metadata?.labels?.[machineLabels.cluster]) errors.push(fieldError.invalid(childPath('spec', 'labels'), m.metadata?.labels ?? {}, `missing ${machineLabels.cluster} label.`));
  if (m.spec?.providerSpec?.value === undefined || m.spec.providerSpec.value === null) errors.push(fieldError.required(childPath('spec', 'providerSpec.value')));
  return errors;
}

/** Provisioned: the provider has given the Machine an identity (providerID or addresses). */
export function isProvisioned(m: ReadonlyMachine): boolean {
  return !!m.spec?.providerID || (m.status?.addresses?.length ?? 0) > 0;
}

export function createMachineController(ctx: ControllerContext, o: MachineControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: MACHINE_CONTROLLER });
  const { provider, machines } = o;
  const requeue = { requeueAfterMs: o.requeueAfterMs ?? 30_000 };
  /** Between looks at a termination, by Machine uid (see the header). */
  const terminationPoll = new ExponentialFailureRateLimiter({ baseMs: Math.max(1, Math.min(100, requeue.requeueAfterMs)), maxMs: Math.max(1, requeue.requeueAfterMs) });

  const record = (m: ReadonlyMachine, type: 'Normal' | 'Warning', reason: string, message: string): void => ctx.recorder.event(eventSubject(m), type, reason, message);

  /** Returns the Machine as the server now holds it; undefined when it is gone. */
  const writeStatus = async (m: ReadonlyMachine, change: StatusChange): Promise<ReadonlyMachine | undefined> => {
    const now = formatTimestamp(ctx.clock.wallNow());
    const { object } = await updateStatus<MachineStatus, Machine>(ctx.client, statusTargetOf(machinesRef, m), (status, object) => nextStatus(object as ReadonlyMachine, status, change, now));
    return object as ReadonlyMachine | undefined;
  };

  /** Writes providerID, labels and annotations; returns the Machine as the server now holds it (or as cached, if unchanged). */
  const writeObject = async (m: ReadonlyMachine, update: Pick<MachineUpdate, 'providerID' | 'labels' | 'annotations'>): Promise<ReadonlyMachine> => {
    const patch = machinePatch(m, update);
    if (!patch) return m;
    return (await ctx.client.patch<Machine>(machinesRef, m.metadata?.namespace, m.metadata?.name ?? '', patch)) as ReadonlyMachine;
  };

  const setFinalizers = async (m: ReadonlyMachine, finalizers: string[]): Promise<ReadonlyMachine> => {
    // On the version read: a list in a merge patch replaces the whole list, so it must not overwrite a concurrent change.
    return ctx.client.patch<Machine>(machinesRef, m.metadata?.namespace, m.metadata?.name ?? '', { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: m.metadata?.resourceVersion } });
  };

  /**
   * Machines this controller put in phase Failed, by uid, until the cache shows it: a reconcile
   * on a cache that has not caught up must not call the provider again (a second create).
   */
  const failed = new Set<string>();

  const fail = async (m: ReadonlyMachine, failure: { reason?: string; message: string }, conditions: StatusChange['conditions'] = []): Promise<void> => {
    failed.add(m.metadata?.uid ?? '');
    // The status first: the annotation's write event must find the Machine already Failed.
    await writeStatus(m, { phase: machinePhases.failed, failure, conditions });
    await writeObject(m, { annotations: { [machineAnnotations.instanceState]: unknownInstanceState } });
  };

  const deleteNode = async (name: string): Promise<void> => {
    try {
      await ctx.client.delete(resources.nodes, undefined, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  const reconcileDelete = async (m: ReadonlyMachine, signal: AbortSignal): Promise<ReconcileResult> => {
    const name = m.metadata?.name ?? '';
    const uid = m.metadata?.uid ?? '';
    await writeStatus(m, { phase: machinePhases.deleting });
    const finalizers = m.metadata?.finalizers ?? [];
    if (!finalizers.includes(machineFinalizer)) return;
    if (findCondition(m, machineConditionTypes.drained)?.status !== 'True') {
      logger.debug({ machine: name }, 'waiting for node to be drained before deleting instance');
      return;
    }
    if ((m.spec?.lifecycleHooks?.preTerminate?.length ?? 0) > 0) {
      logger.info({ machine: name }, 'not deleting machine: lifecycle blocked by pre-terminate hook');
      return;
    }
    try {
      await provider.delete(m, signal);
      record(m, 'Normal', 'Delete', `Deleted machine ${name}`);
    } catch (err) {
      // An invalid configuration never launched anything, unless addresses say otherwise.
      if ((m.status?.addresses?.length ?? 0) > 0 || !isInvalidConfiguration(err)) {
        if (err instanceof RequeueAfterError) return { requeueAfterMs: Math.min(err.requeueAfterMs, terminationPoll.when(uid)) };
        record(m, 'Warning', 'FailedDelete', `${name}: reconciler failed to Delete machine: ${errorText(err)}`);
        throw err;
      }
    }
    if (await provider.exists(m, signal)) {
      logger.debug({ machine: name }, 'instance still being terminated; requeuing');
      return { requeueAfterMs: terminationPoll.when(uid) };
    }
    terminationPoll.forget(uid);
    const node = m.status?.nodeRef?.name;
    if (node) {
      logger.info({ machine: name, node }, 'deleting node of machine');
      await deleteNode(node);
    }
    try {
      await setFinalizers(m, finalizers.filter((f) => f !== machineFinalizer));
    } catch (err) {
      // Gone already: a pass on a cache that had not seen the last one's removal.
      if (isNotFound(err)) return;
      throw err;
    }
    logger.info({ machine: name }, 'machine deletion successful');
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    let m = machines.store.get(key);
    if (!m) return;
    const name = m.metadata?.name ?? '';

    const invalid = validateMachine(m);
    if (invalid.length) {
      const message = `${name}: machine validation failed: ${invalid.map((e) => e.message).join(', ')}`;
      record(m, 'Warning', 'FailedValidate', message);
      // An edit brings it back; until then retrying cannot help.
      throw terminal(new Error(message));
    }

    const finalizers = m.metadata?.finalizers ?? [];
    if (!m.metadata?.deletionTimestamp && !finalizers.includes(machineFinalizer)) m = await setFinalizers(m, [...finalizers, machineFinalizer]);
    if (m.metadata?.deletionTimestamp) return reconcileDelete(m, signal);

    if (m.status?.phase === machinePhases.failed) failed.delete(m.metadata?.uid ?? '');
    if (m.status?.phase === machinePhases.failed || failed.has(m.metadata?.uid ?? '')) {
      logger.debug({ machine: name }, `machine is in phase ${machinePhases.failed}; it will not be reconciled`);
      return;
    }

    let exists: boolean;
    try {
      exists = await provider.exists(m, signal);
    } catch (err) {
      const condition = unknownCondition(machineConditionTypes.instanceExists, conditionReasons.errorCheckingProvider, `Failed to check if machine exists: ${errorText(err)}`);
      await writeStatus(m, { phase: currentPhase(m), conditions: [condition] }).catch((e: unknown) => logger.warn({ machine: name, err: errorText(e) }, 'status write failed'));
      if (err instanceof RequeueAfterError) return { requeueAfterMs: err.requeueAfterMs };
      throw err;
    }

    if (exists) {
      let update: MachineUpdate;
      try {
        update = await provider.update(m, signal);
      } catch (err) {
        logger.warn({ machine: name, err: errorText(err) }, 'error updating machine; retrying');
        record(m, 'Warning', 'FailedUpdate', `${name}: reconciler failed to Update machine: ${errorText(err)}`);
        await writeStatus(m, { phase: currentPhase(m) }).catch(() => {});
        return err instanceof RequeueAfterError ? { requeueAfterMs: err.requeueAfterMs } : requeue;
      }
      const written = await writeObject(m, update);
      if (written !== m) record(m, 'Normal', 'Update', `Updated Machine ${name}`);
      const conditions = [trueCondition(machineConditionTypes.instanceExists)];
      if (!isProvisioned(written) && !(update.addresses?.length ?? 0)) {
        logger.warn({ machine: name }, 'instance exists but providerID or addresses has not been given to the machine yet; requeuing');
        await writeStatus(written, { phase: currentPhase(m), conditions, update });
        return requeue;
      }
      if (!m.status?.nodeRef) {
        await writeStatus(written, { phase: machinePhases.provisioned, conditions, update });
        return requeue;
      }
      await writeStatus(written, { phase: machinePhases.running, conditions, update });
      return;
    }

    if (isProvisioned(m)) {
      const condition = falseCondition(machineConditionTypes.instanceExists, conditionReasons.instanceMissing, 'Warning', 'Instance not found on provider');
      logger.warn({ machine: name }, 'instance vanished; machine failed');
      await fail(m, { message: "can't find created instance" }, [condition]);
      return;
    }

    const notCreated = falseCondition(machineConditionTypes.instanceExists, conditionReasons.instanceNotCreated, 'Warning', 'Instance has not been created');
    if (!m.status?.phase) {
      m = await writeStatus(m, { phase: machinePhases.provisioning, conditions: [notCreated] });
      if (!m) return;
    }

    let created: MachineUpdate | void;
    try {
      created = await provider.create(m, signal);
    } catch (err) {
      record(m, 'Warning', 'FailedCreate', `${name}: reconciler failed to Create machine: ${errorText(err)}`);
      if (isInvalidConfiguration(err)) {
        logger.warn({ machine: name, err: err.message }, 'invalid machine configuration; machine failed');
        await fail(m, { reason: err.reason, message: err.message }, [notCreated]);
        return;
      }
      if (err instanceof RequeueAfterError) return { requeueAfterMs: err.requeueAfterMs };
      throw err;
    }
    record(m, 'Normal', 'Create', `Created Machine ${name}`);
    logger.info({ machine: name }, 'created instance');
    if (created) {
      const written = await writeObject(m, created);
      if (isProvisioned(written)) await writeStatus(written, { phase: machinePhases.provisioned, conditions: [trueCondition(machineConditionTypes.instanceExists)], update: created });
      else await writeStatus(written, { phase: currentPhase(m), conditions: [notCreated], update: created });
    }
    return requeue;
  };

  const controller = new Controller({
    name: MACHINE_CONTROLLER,
    reconcile,
    workers: o.workers ?? 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(MACHINE_CONTROLLER),
    onError: logSyncFailure(logger, 'machine sync failed', (err) => isConflict(err) || err instanceof TerminalError),
  });
  controller.watch(machines);
  machines.on('delete', (m) => {
    failed.delete(m.metadata?.uid ?? '');
    terminationPoll.forget(m.metadata?.uid ?? '');
  });
  return controller;
}

function currentPhase(m: ReadonlyMachine): MachinePhase | undefined {
  return (m.status?.phase as MachinePhase | undefined) || undefined;
}
