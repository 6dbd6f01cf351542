/**
 * The machine-healthcheck program of the machine-api-operator image, flagged as OpenShift's
 * `/machine-healthcheck` binary (runtime/manager-component.ts: `--kubeconfig`, `--namespace`
 * default `openshift-machine-api`, `""` for every namespace, leader election,
 * `--metrics-bind-address`). It runs the MachineHealthCheck controller under the Lease
 * `cluster-api-provider-healthcheck-leader` and serves `/metrics` on POD_IP at 9444.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { createMachineHealthCheckController } from './controller.ts';

/** The event source and metrics prefix: OpenShift's controller signs its events so. */
export const COMPONENT = 'machinehealthcheck-controller';
export const LEASE_NAME = 'cluster-api-provider-healthcheck-leader';
export const METRICS_PORT = 9444;

export function start(ctx: ComponentContext): Promise<void> {
  return runManagerComponent(ctx, {
    component: COMPONENT,
    leaseName: LEASE_NAME,
    defaultNamespace: machineAPINamespace,
    metricsPort: METRICS_PORT,
    controllers: (c, { namespace }) => [createMachineHealthCheckController(c, { namespace })],
  });
}
