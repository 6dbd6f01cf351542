/**
 * The seam between the machine controller and a cloud (style example 12; OpenShift's
 * `Actuator`): four calls on one Machine, each idempotent, so the controller can call them again
 * after any crash or conflict and converge. The controller owns the Machine object; a provider
 * only reads it and says what to write (`MachineUpdate`), so every write goes through the
 * controller's conflict-retried status and object updates, and a provider can be faked in tests.
 *
 * Failures are typed, as OpenShift's machine controller reads them: a `MachineError` with reason
 * `InvalidConfiguration` means the Machine can never be built as written (the controller puts it
 * in phase Failed and stops), any other `MachineError` or plain error is retried with backoff, and
 * a `RequeueAfterError` asks for another try after a delay (a transient cloud error, or a
 * termination still under way).
 */
import type { Machine, MachineAddress } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export type ReadonlyMachine = DeepReadonly<Machine>;

export const machineErrorReasons = ['InvalidConfiguration', 'CreateError', 'UpdateError', 'DeleteError'] as const;
export type MachineErrorReason = (typeof machineErrorReasons)[number];

/** A failure the provider can name; `field` is the Machine field at fault, when there is one. */
export class MachineError extends Error {
  readonly reason: MachineErrorReason;
  readonly field?: string;
  constructor(reason: MachineErrorReason, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MachineError';
    this.reason = reason;
    if (options.field !== undefined) this.field = options.field;
  }
}

/** Try again after `requeueAfterMs`: nothing is wrong with the Machine, the cloud is not there yet. */
export class RequeueAfterError extends Error {
  readonly requeueAfterMs: number;
  constructor(requeueAfterMs: number, message = `requeue in ${requeueAfterMs} ms`, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RequeueAfterError';
    this.requeueAfterMs = requeueAfterMs;
  }
}

export function isInvalidConfiguration(err: unknown): err is MachineError {
  return err instanceof MachineError && err.reason === 'InvalidConfiguration';
}

/**
 * What the controller writes after a create or an update: `spec.providerID`, the status's
 * `addresses` and `providerStatus`, and labels and annotations merged into the Machine's own
 * (OpenShift's providers set `machine.openshift.io/instance-type`, `region`, `zone` —
 * `machineLabels` — and the `instance-state` annotation). Everything is absolute: writing it twice changes nothing.
 */
export interface MachineUpdate {
  readonly providerID?: string;
  readonly addresses?: readonly Readonly<MachineAddress>[];
  readonly providerStatus?: Readonly<Record<string, unknown>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface MachineProvider {
  /** Launches the Machine's instance; may return what to write at once (the instance's identity). */
  create(machine: ReadonlyMachine, signal: AbortSignal): Promise<MachineUpdate | void>;
  /** Whether an instance exists for the Machine (found by providerID, or by tag before one is written); a terminated one does not. */
  exists(machine: ReadonlyMachine, signal: AbortSignal): Promise<boolean>;
  /** Brings the instance in line with the Machine where it can, and says what the Machine should record. */
  update(machine: ReadonlyMachine, signal: AbortSignal): Promise<MachineUpdate>;
  /** Terminates the instance; resolves once it is terminated or gone, and throws a RequeueAfterError while it is on its way. */
  delete(machine: ReadonlyMachine, signal: AbortSignal): Promise<void>;
}
