/**
 * The kube-controller-manager component: the cluster's built-in controllers in one process,
 * under leader election on the `kube-system/kube-controller-manager` Lease, sharing one set of
 * informers. Flags keep kube-controller-manager's names.
 */
import { readFileSync } from 'node:fs';
import { parseDuration } from '../api/duration.ts';
import type { ComponentContext } from '../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../runtime/component-flags.ts';
import type { ControllerContext } from '../runtime/context.ts';
import type { Controller } from '../runtime/controller.ts';
import { clusterCaPem, loadKubeConfig } from '../runtime/kubeconfig.ts';
import { startManager } from '../runtime/manager.ts';
import { createClusterRoleAggregationController } from './clusterroleaggregation/controller.ts';
import { createCronJobController } from './cronjob/controller.ts';
import { createCsrCleaner } from './csrsigning/cleaner.ts';
import { createCsrSigningController } from './csrsigning/controller.ts';
import { createDaemonSetController } from './daemonset/controller.ts';
import { createDeploymentController } from './deployment/controller.ts';
import { createDisruptionController } from './disruption/controller.ts';
import { createEndpointsController } from './endpoints/controller.ts';
import { createGarbageCollector } from './garbagecollector/controller.ts';
import { createJobController } from './job/controller.ts';
import { createTtlAfterFinishedController } from './job/ttl-after-finished.ts';
import { createNodeIpamController } from './nodeipam/controller.ts';
import { createNodeLifecycleController } from './nodelifecycle/controller.ts';
import { createReplicaSetController } from './replicaset/controller.ts';
import { createRootCaCertPublisher } from './rootcacertpublisher/controller.ts';
import { createServiceAccountController } from './serviceaccount/controller.ts';

export interface ControllerManagerSettings {
  nodeMonitorGracePeriodMs: number;
  defaultTolerationSeconds: number;
  clusterCIDR: string;
  nodeCIDRMaskSize: number;
  /** The CA published as `kube-root-ca.crt` in every namespace; without one, nothing is published. */
  rootCaCertPem?: string;
  /** The CA csrsigning issues with, and its longest certificate; without one, nothing is signed. */
  clusterSigning?: { readonly ca: { readonly certPem: string; readonly keyPem: string }; readonly maxDurationMs: number };
}

/** Every controller of the controller-manager, built over one context (tests use this too). */
export function controllerManagerControllers(ctx: ControllerContext, s: ControllerManagerSettings): Controller[] {
  return [
    createReplicaSetController(ctx),
    createDeploymentController(ctx),
    createDaemonSetController(ctx),
    createJobController(ctx),
    createCronJobController(ctx),
    createTtlAfterFinishedController(ctx),
    createEndpointsController(ctx),
    createNodeIpamController(ctx, { clusterCIDR: s.clusterCIDR, nodeCIDRMaskSize: s.nodeCIDRMaskSize }),
    createNodeLifecycleController(ctx, { nodeMonitorGracePeriodMs: s.nodeMonitorGracePeriodMs, defaultTolerationSeconds: s.defaultTolerationSeconds }),
    createGarbageCollector(ctx),
    createDisruptionController(ctx),
    createServiceAccountController(ctx),
    createClusterRoleAggregationController(ctx),
    ...(s.rootCaCertPem ? [createRootCaCertPublisher(ctx, { caCertPem: s.rootCaCertPem })] : []),
    ...(s.clusterSigning ? [createCsrSigningController(ctx, s.clusterSigning)] : []),
    createCsrCleaner(ctx),
  ].flat();
}

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags('kube-controller-manager', ctx.args, {
    'node-monitor-grace-period': { type: 'string', default: '40s' },
    'default-not-ready-toleration-seconds': { type: 'string', default: '300' },
    'cluster-cidr': { type: 'string', default: '127.128.0.0/9' },
    'node-cidr-mask-size': { type: 'string', default: '24' },
    'root-ca-file': { type: 'string' },
    'cluster-signing-cert-file': { type: 'string' },
    'cluster-signing-key-file': { type: 'string' },
    'cluster-signing-duration': { type: 'string', default: '8760h' },
  });
  const settings: ControllerManagerSettings = {
    nodeMonitorGracePeriodMs: parseDuration(String(values['node-monitor-grace-period'])),
    defaultTolerationSeconds: Number(values['default-not-ready-toleration-seconds']),
    clusterCIDR: String(values['cluster-cidr']),
    nodeCIDRMaskSize: Number(values['node-cidr-mask-size']),
  };
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const rootCaFile = values['root-ca-file'] as string | undefined;
  // As kube-controller-manager: --root-ca-file, else the CA this process itself trusts the API server by.
  settings.rootCaCertPem = rootCaFile ? readFileSync(rootCaFile, 'utf8') : clusterCaPem(kubeConfig);
  const signingCert = values['cluster-signing-cert-file'] as string | undefined;
  const signingKey = values['cluster-signing-key-file'] as string | undefined;
  if (!signingCert !== !signingKey) throw new Error('kube-controller-manager: --cluster-signing-cert-file and --cluster-signing-key-file go together');
  if (signingCert && signingKey) {
    const maxDurationMs = parseDuration(String(values['cluster-signing-duration']));
    settings.clusterSigning = { ca: { certPem: readFileSync(signingCert, 'utf8'), keyPem: readFileSync(signingKey, 'utf8') }, maxDurationMs };
  }
  const manager = startManager({
    component: 'kube-controller-manager',
    kubeConfig,
    signal: ctx.signal,
    leaderElection: leaderElectionFor('kube-system', 'kube-controller-manager', common, ctx.env),
    controllers: (c) => controllerManagerControllers(c, settings),
  });
  await manager.done;
}
