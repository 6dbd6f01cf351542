/**
 * The machine controller's two controllers over one Machine informer, as the component runs them
 * and tests do (on a real API server, with any provider): the machine controller and its drain
 * controller, which coordinate only through the Machine's status (phase Deleting, `Drained`).
 */
import type { Machine } from '../../../api/machine/index.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import type { Controller } from '../../../runtime/controller.ts';
import type { MachineProvider } from '../providers/provider.ts';
import { createMachineController, machinesRef } from './controller.ts';
import { createDrainController } from './drain-controller.ts';

export interface MachineControllersOptions {
  readonly provider: MachineProvider;
  /** Where Machines are watched; every namespace when unset. */
  readonly namespace?: string;
  /** See MachineControllerOptions. */
  readonly requeueAfterMs?: number;
  /** Machines each of the two controllers reconciles at once. Default 1. */
  readonly workers?: number;
  /** See DrainControllerOptions. */
  readonly drainRequeueAfterMs?: number;
  readonly drainTimeoutMs?: number;
}

export function machineControllers(ctx: ControllerContext, o: MachineControllersOptions): Controller[] {
  const machines = ctx.informers.informer<Machine>(machinesRef, o.namespace ? { namespace: o.namespace } : {});
  return [
    createMachineController(ctx, { provider: o.provider, machines, requeueAfterMs: o.requeueAfterMs, workers: o.workers }),
    createDrainController(ctx, { machines, drainRequeueAfterMs: o.drainRequeueAfterMs, drainTimeoutMs: o.drainTimeoutMs, workers: o.workers }),
  ];
}
