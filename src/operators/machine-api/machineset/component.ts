/**
 * The machineset-controller component, flagged as OpenShift's `/machineset-controller` binary
 * (runtime/manager-component.ts: `--kubeconfig`, `--namespace` default `openshift-machine-api`,
 * leader election, `--metrics-bind-address`, `--max-concurrent-reconciles`). It runs the
 * MachineSet controller under the Lease `cluster-api-provider-machineset-leader` and serves
 * `/metrics` on POD_IP at 9441. Three MachineSets are reconciled at once by default (upstream:
 * one): a cluster has about one per zone, usually three, and scaling them together should not
 * queue one set's burst of creates behind another's.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { createMachineSetController } from './controller.ts';

export const COMPONENT = 'machineset-controller';
export const LEASE_NAME = 'cluster-api-provider-machineset-leader';
export const METRICS_PORT = 9441;
export const DEFAULT_WORKERS = 3;

export function start(ctx: ComponentContext): Promise<void> {
  return runManagerComponent(ctx, {
    component: COMPONENT,
    leaseName: LEASE_NAME,
    defaultNamespace: machineAPINamespace,
    metricsPort: METRICS_PORT,
    defaultWorkers: DEFAULT_WORKERS,
    controllers: (c, { namespace, workers }) => [createMachineSetController(c, { namespace, workers })],
  });
}
