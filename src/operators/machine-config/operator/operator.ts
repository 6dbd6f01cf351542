/**
 * The machine-config operator (OpenShift's MCO operator, pkg/operator): one key, `cluster`, and
 * on every sync the same tasks in order, as `syncAll` runs them:
 *
 * 1. MachineConfigPools: the `master` and `worker` pools exist with their selectors.
 * 2. MachineConfigController: the ControllerConfig `machine-config-controller` (from the
 *    Infrastructure and Network singletons, the root CA in `kube-system/root-ca` and the
 *    release) and the controller's Deployment; done once the template controller has rendered
 *    the ControllerConfig's generation and the Deployment has rolled out.
 * 3. MachineConfigServer: its serving certificate and bootstrap token Secrets, its DaemonSet.
 * 4. MachineConfigDaemon: its metrics proxy's certificate, its DaemonSet.
 * 5. RequiredPools: no pool Degraded, and `master` Updated at its target.
 *
 * Every object is applied with the CVO's typed merge (runtime/apply), and only when the cached
 * copy differs from what is wanted, so a deleted workload is re-created, an edit is reverted and
 * a new release's image rolls out, while a quiet cluster costs no writes. Unlike OpenShift's,
 * which blocks up to ten minutes inside a task while a rollout converges, this operator never
 * waits: a converging task is `pending` and the next event (a rollout's status, a pool's) syncs
 * again; one pending past its deadline counts as failed. The outcome becomes the ClusterOperator
 * `machine-config` (status.ts).
 */
import { randomBytes } from 'node:crypto';
import type { KubernetesObject, V1Node, V1Secret, V1ConfigMap } from '@kubernetes/client-node';
import { Infrastructure, Network, type ClusterOperator } from '../../../api/config/index.ts';
import { controllerConfigName, masterPool, type ControllerConfig, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { applyManifest, evaluateHealth, mergeObject } from '../../../runtime/apply/index.ts';
import { errorText } from '../../../runtime/client.ts';
import { reportClusterOperatorStatus } from '../../../runtime/cluster-operator-status.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { Informer } from '../../../runtime/informer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources, type ResourceRef } from '../../../runtime/resources.ts';
import { templatesCompleted } from '../controller/template-controller.ts';
import { controllerConfigFor, serviceNetworkOf } from './controller-config.ts';
import type { OperatorImages } from './images.ts';
import { CLUSTER_OPERATOR, MCO_NAMESPACE, ROOT_CA_CONFIGMAP, secretNames } from './names.ts';
import { builtinPools, controllerDeployment, daemonDaemonSet, serverDaemonSet } from './operands.ts';
import { issueServingSecret, servingCertProblem, signerFrom, type ServingCertificate } from './serving-certs.ts';
import { operatorStatus, requiredPoolsOutcome, type TaskName, type TaskOutcome } from './status.ts';

export interface MachineConfigOperatorOptions {
  readonly images: OperatorImages;
  /** The release this operator belongs to (RELEASE_VERSION). */
  readonly releaseVersion: string;
  /** The release image (the CVO renders it into the operator's Deployment). */
  readonly releaseImage: string;
  /** How long a task may converge before it counts as failed; OpenShift's ten minutes by default. */
  readonly taskDeadlineMs?: number;
  /** How often a converged operator syncs anyway (certificate expiry, the root CA); default 10 minutes. */
  readonly resyncMs?: number;
}

const KEY = 'cluster';
const NAME = 'machine-config-operator';

type Obj = KubernetesObject;

export function createMachineConfigOperator(ctx: ControllerContext, o: MachineConfigOperatorOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const deadlineMs = o.taskDeadlineMs ?? 10 * 60_000;
  const resyncMs = o.resyncMs ?? 10 * 60_000;
  const ns = { namespace: MCO_NAMESPACE };
  const byName = (name: string) => ({ fieldSelector: `metadata.name=${name}` });
  const infrastructures = ctx.informers.informer<Infrastructure>(refOf(Infrastructure), byName('cluster'));
  const networks = ctx.informers.informer<Network>(refOf(Network), byName('cluster'));
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const pools = ctx.informers.informer<MachineConfigPool>(resources.machineConfigPools);
  const controllerConfigs = ctx.informers.informer<ControllerConfig>(resources.controllerConfigs);
  const deployments = ctx.informers.informer<Obj>(resources.deployments, ns);
  const daemonSets = ctx.informers.informer<Obj>(resources.daemonSets, ns);
  const secrets = ctx.informers.informer<V1Secret>(resources.secrets, ns);
  const clusterOperators = ctx.informers.informer<ClusterOperator>(resources.clusterOperators, byName(CLUSTER_OPERATOR));
  const operandOptions = { images: o.images, releaseVersion: o.releaseVersion };
  /** When each task started converging without being done; a task done is forgotten. */
  const pendingSince = new Map<TaskName, number>();

  /** Applies `required` unless the cached copy already has everything it says. */
  async function ensure(informer: Informer<Obj>, ref: ResourceRef, required: Obj): Promise<DeepReadonly<Obj> | undefined> {
    const key = required.metadata?.namespace ? `${required.metadata.namespace}/${required.metadata.name}` : (required.metadata?.name ?? '');
    const cached = informer.store.get(key);
    if (cached && !mergeObject(cached, required).changed) return cached;
    const { action, object } = await applyManifest(ctx.client, ref, required);
    if (action !== 'unchanged') logger.info({ kind: required.kind, name: key, action }, cached ? 'reverted drift' : 'created');
    return object as DeepReadonly<Obj>;
  }

  const rollout = (task: TaskName, live: DeepReadonly<Obj> | undefined, required: Obj): TaskOutcome => {
    if (!live) return { task, state: 'pending', message: `${required.kind} ${MCO_NAMESPACE}/${required.metadata?.name} not found` };
    const health = evaluateHealth(live as Obj, required, { mode: 'update' });
    if (health.ok) return { task, state: 'done' };
    return { task, state: health.retryable ? 'pending' : 'failed', message: health.message };
  };

  async function rootCA(): Promise<string | undefined> {
    const cm = await ctx.client.getIfExists<V1ConfigMap>(resources.configMaps, ROOT_CA_CONFIGMAP.namespace, ROOT_CA_CONFIGMAP.name);
    return cm?.data?.[ROOT_CA_CONFIGMAP.key] || undefined;
  }

  async function syncPools(): Promise<TaskOutcome> {
    for (const pool of builtinPools()) await ensure(pools as Informer<Obj>, resources.machineConfigPools, pool);
    return { task: 'MachineConfigPools', state: 'done' };
  }

  async function syncController(): Promise<TaskOutcome> {
    const task = 'MachineConfigController';
    const network = networks.store.get('cluster');
    const serviceNetwork = serviceNetworkOf(network);
    if (serviceNetwork.length === 0) return { task, state: 'pending', message: 'the Network configuration "cluster" has no service network yet' };
    const ca = await rootCA();
    if (!ca) return { task, state: 'pending', message: `ConfigMap ${ROOT_CA_CONFIGMAP.namespace}/${ROOT_CA_CONFIGMAP.name} has no ${ROOT_CA_CONFIGMAP.key} (the installer writes it)` };
    const cc = controllerConfigFor({
      infrastructure: infrastructures.store.get('cluster'),
      serviceNetwork,
      networkType: network?.status?.networkType ?? network?.spec?.networkType,
      rootCAPem: ca,
      images: o.images,
      releaseImage: o.releaseImage,
      operatorVersion: o.releaseVersion,
    });
    await ensure(controllerConfigs as Informer<Obj>, resources.controllerConfigs, cc);
    const required = controllerDeployment(operandOptions);
    const live = await ensure(deployments, resources.deployments, required);
    const deployed = rollout(task, live, required);
    if (deployed.state !== 'done') return deployed;
    const current = controllerConfigs.store.get(controllerConfigName);
    if (!current || !templatesCompleted(current)) return { task, state: 'pending', message: `ControllerConfig ${controllerConfigName} has not been rendered by the controller yet` };
    return { task, state: 'done' };
  }

  /** The serving certificate's Secret, issued again when it no longer fits. */
  async function ensureServingCert(want: ServingCertificate): Promise<string | undefined> {
    const found = signerFrom(secrets.store.get(`${MCO_NAMESPACE}/${secretNames.signer}`), secretNames.signer);
    if ('problem' in found) return found.problem;
    const now = ctx.clock.wallNow();
    const problem = servingCertProblem(secrets.store.get(`${MCO_NAMESPACE}/${want.secretName}`), found.signer.certPem, want, now);
    if (!problem) return undefined;
    logger.info({ secret: want.secretName, reason: problem }, 'issuing serving certificate');
    await applyManifest(ctx.client, resources.secrets, (await issueServingSecret(found.signer, want, now)) as Obj);
    return undefined;
  }

  async function ensureBootstrapToken(): Promise<void> {
    const existing = secrets.store.get(`${MCO_NAMESPACE}/${secretNames.bootstrapToken}`);
    if (existing?.data?.token) return;
    // A token anyone booting a machine must show: random, and kept until someone rotates it.
    const token = randomBytes(32).toString('base64url');
    const secret: V1Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretNames.bootstrapToken, namespace: MCO_NAMESPACE }, type: 'Opaque', data: { token: Buffer.from(token).toString('base64') } };
    await applyManifest(ctx.client, resources.secrets, secret as Obj);
    logger.info({ secret: secretNames.bootstrapToken }, 'created the config server\'s bootstrap token');
  }

  const addressesOf = (filter: (n: DeepReadonly<V1Node>) => boolean): string[] =>
    nodes.store
      .list()
      .filter(filter)
      .map((n) => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address)
      .filter((a): a is string => !!a)
      .sort();

  async function syncServer(): Promise<TaskOutcome> {
    const task = 'MachineConfigServer';
    // Clients reach the server through the load balancer on the API server's internal address, or a master's own.
    const lbHost = hostOf(infrastructures.store.get('cluster')?.status?.apiServerInternalURI);
    const masters = addressesOf((n) => n.metadata?.labels?.['node-role.kubernetes.io/master'] !== undefined);
    const problem = await ensureServingCert({ secretName: secretNames.serverTLS, commonName: 'machine-config-server', ipAddresses: [...new Set([...(lbHost ? [lbHost] : []), ...masters])] });
    if (problem) return { task, state: 'failed', message: problem };
    await ensureBootstrapToken();
    const required = serverDaemonSet(operandOptions);
    return rollout(task, await ensure(daemonSets, resources.daemonSets, required), required);
  }

  async function syncDaemon(): Promise<TaskOutcome> {
    const task = 'MachineConfigDaemon';
    const problem = await ensureServingCert({ secretName: secretNames.proxyTLS, commonName: 'machine-config-daemon', ipAddresses: addressesOf(() => true) });
    if (problem) return { task, state: 'failed', message: problem };
    const required = daemonDaemonSet(operandOptions);
    return rollout(task, await ensure(daemonSets, resources.daemonSets, required), required);
  }

  const steps: [TaskName, () => Promise<TaskOutcome>][] = [
    ['MachineConfigPools', syncPools],
    ['MachineConfigController', syncController],
    ['MachineConfigServer', syncServer],
    ['MachineConfigDaemon', syncDaemon],
    ['RequiredPools', async () => requiredPoolsOutcome(pools.store.list(), [masterPool])],
  ];

  const reconcile = async (): Promise<{ requeueAfterMs: number }> => {
    const tasks: TaskOutcome[] = [];
    // Every task runs whatever the one before it says: a deleted controller must not keep the
    // daemon's DaemonSet from being healed.
    for (const [task, run] of steps) {
      let outcome: TaskOutcome;
      try {
        outcome = await run();
      } catch (err) {
        outcome = { task, state: 'failed', message: errorText(err) };
      }
      tasks.push(withDeadline(outcome));
    }
    const co = clusterOperators.store.get(CLUSTER_OPERATOR);
    const report = operatorStatus({ releaseVersion: o.releaseVersion, operatorImage: o.images.machineConfigOperator, reported: co?.status?.versions ?? [], tasks, pools: pools.store.list() });
    await reportClusterOperatorStatus(ctx.client, CLUSTER_OPERATOR, report, ctx.clock.wallNow());
    const failed = tasks.find((t) => t.state === 'failed');
    if (failed) logger.warn({ task: failed.task, err: failed.state === 'failed' ? failed.message : '' }, 'sync failed');
    // Pending tasks need no timer while events arrive, but their deadline does.
    const waits = [...pendingSince.values()].map((since) => Math.max(1000, since + deadlineMs - ctx.clock.now()));
    return { requeueAfterMs: Math.min(resyncMs, ...waits) };
  };

  function withDeadline(t: TaskOutcome): TaskOutcome {
    if (t.state !== 'pending') {
      pendingSince.delete(t.task);
      return t;
    }
    const since = pendingSince.get(t.task) ?? ctx.clock.now();
    pendingSince.set(t.task, since);
    if (ctx.clock.now() - since < deadlineMs) return t;
    return { task: t.task, state: 'failed', message: `timed out after ${Math.round(deadlineMs / 1000)}s: ${t.message}` };
  }

  const controller = new Controller({
    name: NAME,
    workers: 1,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ err: errorText(r.error) }, 'sync failed'),
  });
  for (const informer of [infrastructures, networks, nodes, pools, controllerConfigs, deployments, daemonSets, secrets, clusterOperators] as Informer<Obj>[]) {
    controller.watchMapped(informer, () => [KEY]);
  }
  controller.enqueue(KEY);
  return controller;
}

/** The host of an https URL, if it is an address (`https://127.0.0.1:6443` → 127.0.0.1). */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const host = new URL(url).hostname;
    return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : undefined;
  } catch {
    return undefined;
  }
}
