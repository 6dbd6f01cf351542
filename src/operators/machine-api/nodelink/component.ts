/**
 * The nodelink-controller component, flagged as OpenShift's `/nodelink-controller` binary
 * (runtime/manager-component.ts: `--kubeconfig`, `--namespace` default `openshift-machine-api`,
 * leader election, `--metrics-bind-address`, `--max-concurrent-reconciles`). It runs the nodelink
 * controller under the Lease `cluster-api-provider-nodelink-leader` and serves `/metrics` on
 * POD_IP at 9443. Five Nodes are linked at once by default (upstream: one): a reconcile is a
 * cache lookup and at most two small writes, but Nodes join in bursts (a scale-up's all boot
 * together), and one worker links them one write after another.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { runManagerComponent } from '../../../runtime/manager-component.ts';
import { createNodeLinkController } from './controller.ts';

export const COMPONENT = 'nodelink-controller';
export const LEASE_NAME = 'cluster-api-provider-nodelink-leader';
export const METRICS_PORT = 9443;
export const DEFAULT_WORKERS = 5;

export function start(ctx: ComponentContext): Promise<void> {
  return runManagerComponent(ctx, {
    component: COMPONENT,
    leaseName: LEASE_NAME,
    defaultNamespace: machineAPINamespace,
    metricsPort: METRICS_PORT,
    defaultWorkers: DEFAULT_WORKERS,
    controllers: (c, { namespace, workers }) => [createNodeLinkController(c, { namespace, workers })],
  });
}
