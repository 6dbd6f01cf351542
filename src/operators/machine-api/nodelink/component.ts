/**
 * The nodelink-controller component, flagged as OpenShift's `/nodelink-controller` binary
 * (runtime/manager-component.ts: `--kubeconfig`, `--namespace` default `openshift-machine-api`,
 * leader election, `--metrics-bind-address`). It runs the nodelink controller under the Lease
 * `cluster-api-provider-nodelink-leader` and serves `/metrics` on POD_IP at 9443.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { createNodeLinkController } from './controller.ts';

export const COMPONENT = 'nodelink-controller';
export const LEASE_NAME = 'cluster-api-provider-nodelink-leader';
export const METRICS_PORT = 9443;

export function start(ctx: ComponentContext): Promise<void> {
  return runManagerComponent(ctx, {
    component: COMPONENT,
    leaseName: LEASE_NAME,
    defaultNamespace: machineAPINamespace,
    metricsPort: METRICS_PORT,
    controllers: (c, { namespace }) => [createNodeLinkController(c, { namespace })],
  });
}
