/**
 * The Deployment `machine-api-controllers`, as OpenShift's operator renders it (newDeployment in
 * pkg/operator/sync.go), adapted to Shipyard: one replica on a master, priority
 * `system-node-critical`, ServiceAccount `machine-api-controllers`, and four containers. Three
 * run the operator's own image, which holds their binaries (`/machineset-controller`,
 * `/nodelink-controller`, `/machine-healthcheck`); the machine controller runs the platform's
 * provider image. Each serves `/metrics` on the pod's IP at a port of its own, and the machineset,
 * machine and nodelink controllers are told how many reconciles each runs at once. Pure: the
 * operator applies what this returns with runtime/apply's typed merge, so a deleted Deployment
 * comes back, an edit is reverted and a changed images.json rolls it.
 *
 * Not deployed, unlike OpenShift's: the kube-rbac-proxy sidecars (a controller's metrics are
 * served on its pod IP directly), the admission webhooks (the API server validates Machine API
 * objects itself) and the termination-handler DaemonSet (no platform here has spot instances).
 */
import type { V1Container, V1Deployment, V1EnvVar, V1Toleration } from '@kubernetes/client-node';
import { containers, CONTROLLERS, MAO_NAMESPACE, metricsPorts, OWNED_ANNOTATION } from './names.ts';

export interface ControllersOptions {
  /** The operator's own image (images.json `machineAPIOperator`): machineset, nodelink and health-check controllers. */
  readonly operatorImage: string;
  /** The platform's machine controller image. */
  readonly providerImage: string;
  /** RELEASE_VERSION of the operator, handed on to its operands ('' when the operator runs without one). */
  readonly releaseVersion: string;
}

const labels = { api: 'clusterapi', 'k8s-app': 'controller' } as const;

const tolerations: V1Toleration[] = [
  { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'CriticalAddonsOnly', operator: 'Exists' },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
];

/** The flags every controller takes (OpenShift's, less klog's logging flags). */
const commonArgs = ['--v=3', '--leader-elect=true', '--leader-elect-lease-duration=120s', `--namespace=${MAO_NAMESPACE}`];

/**
 * `--max-concurrent-reconciles` of each controller that takes it (OpenShift passes none, so its
 * controllers run controller-runtime's one). Said here although each program defaults to the
 * same, so that the Deployment shows what runs; each program's component.ts says why its number.
 * The machine controller's applies to its drain controller too; the health-check controller
 * takes no such flag.
 */
export const controllerWorkers = { machineSet: 3, machine: 10, nodeLink: 5 } as const;

function container(o: { name: string; image: string; command: string; metricsPort: number; env: V1EnvVar[]; workers?: number }): V1Container {
  return {
    name: o.name,
    image: o.image,
    command: [o.command],
    // $(POD_IP) is expanded by the kubelet from the container's own environment.
    args: [...commonArgs, `--metrics-bind-address=$(POD_IP):${o.metricsPort}`, ...(o.workers ? [`--max-concurrent-reconciles=${o.workers}`] : [])],
    env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, ...o.env],
    ports: [{ name: 'metrics', containerPort: o.metricsPort, protocol: 'TCP' }],
    resources: { requests: { cpu: '10m', memory: '20Mi' } },
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

export function controllersDeployment(o: ControllersOptions): V1Deployment {
  const release: V1EnvVar = { name: 'RELEASE_VERSION', value: o.releaseVersion };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROLLERS, namespace: MAO_NAMESPACE, labels: { ...labels }, annotations: { [OWNED_ANNOTATION]: '' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: { labels: { ...labels }, annotations: { 'target.workload.openshift.io/management': '{"effect": "PreferredDuringScheduling"}' } },
        spec: {
          serviceAccountName: CONTROLLERS,
          priorityClassName: 'system-node-critical',
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          tolerations,
          containers: [
            container({ ...containers.machineSet, image: o.operatorImage, metricsPort: metricsPorts.machineSet, env: [release], workers: controllerWorkers.machineSet }),
            container({
              ...containers.machine,
              image: o.providerImage,
              metricsPort: metricsPorts.machine,
              workers: controllerWorkers.machine,
              env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }, release],
            }),
            container({ ...containers.nodeLink, image: o.operatorImage, metricsPort: metricsPorts.nodeLink, env: [release], workers: controllerWorkers.nodeLink }),
            container({ ...containers.healthCheck, image: o.operatorImage, metricsPort: metricsPorts.healthCheck, env: [release] }),
          ],
        },
      },
    },
  };
}
