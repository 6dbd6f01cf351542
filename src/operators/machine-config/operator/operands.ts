/**
 * What the operator deploys, as OpenShift's MCO deploys it (its manifests/ folder), adapted to
 * Shipyard's nodes: the controller Deployment on the masters; the daemon DaemonSet on every node
 * (every taint tolerated, host network and PID namespace, privileged, the node's root mounted at
 * `/rootfs`, and the seed's `oauth-proxy` container serving its metrics over HTTPS on the node's
 * address to callers the API server allows); the server DaemonSet on the masters (host network,
 * port 22623); and the built-in `master` and `worker` pools. Pure
 * builders: the operator applies what they return with the CVO's typed merge (runtime/apply),
 * so a deleted workload comes back, an edit is reverted and a new image rolls out.
 */
import type { V1DaemonSet, V1Deployment, V1Toleration } from '@kubernetes/client-node';
import { machineConfigServer, MachineConfigPool, masterPool, roleLabel, workerPool } from '../../../api/machineconfiguration/index.ts';
import type { OperatorImages } from './images.ts';
import { DAEMON_METRICS_PORT, MCO_NAMESPACE, operands, secretNames, SERVER_PORT } from './names.ts';

export interface OperandOptions {
  readonly images: OperatorImages;
  /** The release version, given to every operand as RELEASE_VERSION. */
  readonly releaseVersion: string;
}

const masterTolerations: V1Toleration[] = [
  { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
];
const evictionTolerations: V1Toleration[] = [
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
];

const labels = (app: string) => ({ 'k8s-app': app });
const env = (name: string, value: string) => ({ name, value });
const fieldEnv = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
const requests = { requests: { cpu: '20m', memory: '50Mi' } };

export function controllerDeployment(o: OperandOptions): V1Deployment {
  const app = operands.controller;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app, namespace: MCO_NAMESPACE, labels: labels(app) },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels(app) },
      template: {
        metadata: { labels: labels(app) },
        spec: {
          serviceAccountName: app,
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          priorityClassName: 'system-cluster-critical',
          tolerations: [...masterTolerations, ...evictionTolerations],
          containers: [
            {
              name: app,
              image: o.images.machineConfigController,
              args: ['start'],
              env: [env('RELEASE_VERSION', o.releaseVersion), fieldEnv('POD_IP', 'status.podIP')],
              resources: requests,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
        },
      },
    },
  };
}

/** Where the daemon serves its metrics for the proxy beside it: a socket in a volume only the pod's two containers share. */
export const daemonMetricsSocket = '/var/run/machine-config-daemon/metrics.sock';

export function daemonDaemonSet(o: OperandOptions): V1DaemonSet {
  const app = operands.daemon;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: app, namespace: MCO_NAMESPACE, labels: labels(app) },
    spec: {
      selector: { matchLabels: labels(app) },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels: labels(app) },
        spec: {
          serviceAccountName: app,
          hostNetwork: true,
          hostPID: true,
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          priorityClassName: 'system-node-critical',
          // An update in flight finishes its write and records where it got before the pod goes.
          terminationGracePeriodSeconds: 600,
          // The daemon must run everywhere, cordoned and tainted nodes first of all.
          tolerations: [{ operator: 'Exists' }],
          containers: [
            {
              name: app,
              image: o.images.machineConfigDaemon,
              args: ['start'],
              env: [env('RELEASE_VERSION', o.releaseVersion), fieldEnv('NODE_NAME', 'spec.nodeName'), env('METRICS_SOCKET', daemonMetricsSocket)],
              securityContext: { privileged: true, readOnlyRootFilesystem: false },
              volumeMounts: [
                { name: 'rootfs', mountPath: '/rootfs', mountPropagation: 'HostToContainer' },
                { name: 'metrics', mountPath: '/var/run/machine-config-daemon' },
              ],
              resources: requests,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
            {
              name: 'oauth-proxy',
              image: o.images.oauthProxy,
              args: [
                `--https-address=$(POD_IP):${DAEMON_METRICS_PORT}`,
                `--upstream=unix://${daemonMetricsSocket}`,
                '--tls-cert=/etc/tls/private/tls.crt',
                '--tls-key=/etc/tls/private/tls.key',
                // Whoever may GET /metrics on the API server may read the daemon's (kube's system:monitoring).
                '--openshift-delegate-urls={"/": {"verb": "get"}}',
              ],
              // On the host network the pod's IP is its node's.
              env: [fieldEnv('POD_IP', 'status.podIP')],
              ports: [{ name: 'metrics', containerPort: DAEMON_METRICS_PORT, protocol: 'TCP' }],
              volumeMounts: [
                { name: 'proxy-tls', mountPath: '/etc/tls/private' },
                { name: 'metrics', mountPath: '/var/run/machine-config-daemon' },
              ],
              resources: requests,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes: [
            { name: 'rootfs', hostPath: { path: '/' } },
            { name: 'metrics', emptyDir: {} },
            { name: 'proxy-tls', secret: { secretName: secretNames.proxyTLS } },
          ],
        },
      },
    },
  };
}

export function serverDaemonSet(o: OperandOptions): V1DaemonSet {
  const app = operands.server;
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: app, namespace: MCO_NAMESPACE, labels: labels(app) },
    spec: {
      selector: { matchLabels: labels(app) },
      template: {
        metadata: { labels: labels(app) },
        spec: {
          serviceAccountName: app,
          hostNetwork: true,
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          priorityClassName: 'system-cluster-critical',
          tolerations: masterTolerations,
          containers: [
            {
              name: app,
              image: o.images.machineConfigServer,
              args: ['start'],
              // The server binds its node's own address (HOST_IP), as the kube-apiserver static pod does.
              env: [env('RELEASE_VERSION', o.releaseVersion), fieldEnv('HOST_IP', 'status.hostIP')],
              ports: [{ name: 'https', containerPort: SERVER_PORT, protocol: 'TCP' }],
              volumeMounts: [
                { name: 'certs', mountPath: machineConfigServer.mountPaths.tls },
                { name: 'bootstrap-token', mountPath: machineConfigServer.mountPaths.bootstrapToken },
              ],
              resources: requests,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes: [
            { name: 'certs', secret: { secretName: secretNames.serverTLS } },
            { name: 'bootstrap-token', secret: { secretName: secretNames.bootstrapToken } },
          ],
        },
      },
    },
  };
}

/** The label that makes a pool one whose update an upgrade waits for (OpenShift's). */
export const requiredForUpgradeLabel = 'operator.machineconfiguration.openshift.io/required-for-upgrade';

/**
 * The built-in pools, as OpenShift's MCO ships them: configs by role label, nodes by role. The
 * operator enforces these fields only; `paused`, `maxUnavailable` and the configuration are
 * their users' and the controller's.
 */
export function builtinPools(): MachineConfigPool[] {
  const pool = (name: string, extraLabels: Record<string, string>): MachineConfigPool => ({
    apiVersion: MachineConfigPool.apiVersion,
    kind: MachineConfigPool.kind,
    metadata: { name, labels: { ...extraLabels, 'machineconfiguration.openshift.io/mco-built-in': '', [`pools.operator.machineconfiguration.openshift.io/${name}`]: '' } },
    spec: {
      machineConfigSelector: { matchLabels: { [roleLabel]: name } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    },
  });
  return [pool(masterPool, { [requiredForUpgradeLabel]: '' }), pool(workerPool, {})];
}
