/**
 * The machineset-controller component, flagged as OpenShift's `/machineset-controller` binary
 * (runtime/manager-component.ts: `--kubeconfig`, `--namespace` default `openshift-machine-api`,
 * leader election, `--metrics-bind-address`). It runs the MachineSet controller under the Lease
 * `cluster-api-provider-machineset-leader` and serves `/metrics` on POD_IP at 9441.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { createMachineSetController } from './controller.ts';

export const COMPONENT = 'machineset-controller';
export const LEASE_NAME = 'cluster-api-provider-machineset-leader';
export const METRICS_PORT = 9441;

export function start(ctx: ComponentContext): Promise<void> {
  return runManagerComponent(ctx, {
    component: COMPONENT,
    leaseName: LEASE_NAME,
    defaultNamespace: machineAPINamespace,
    metricsPort: METRICS_PORT,
    controllers: (c, { namespace }) => [createMachineSetController(c, { namespace })],
  });
}
