/**
 * Test support for the Machine API's MachineSet and nodelink controllers against a real API
 * server with RBAC enforced: the Machine API CRDs and namespace, a ServiceAccount holding only
 * the rules a controller's README lists (so a missing permission fails the test), the controller
 * run in-process under that account on a clock the test drives, and an informer whose events the
 * test can hold back, to play a cache that lags behind the server. Not a test file itself.
 */
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from '../../src/api/prometheus.ts';
import { machineAPICRDs, machineAPINamespace } from '../../src/api/machine/index.ts';
import { ObjectCache, type IndexFunc } from '../../src/runtime/cache.ts';
import { ApiClient, isAlreadyExists } from '../../src/runtime/client.ts';
import type { Clock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import type { Controller } from '../../src/runtime/controller.ts';
import { createEventRecorder } from '../../src/runtime/events.ts';
import { InformerFactory, type InformerScope } from '../../src/runtime/informer-factory.ts';
import type { AddHandler, DeleteHandler, Informer, UpdateHandler } from '../../src/runtime/informer.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createComponentMetrics } from '../../src/runtime/metrics.ts';
import type { DeepReadonly } from '../../src/runtime/readonly.ts';
import { resources, type ResourceRef } from '../../src/runtime/resources.ts';
import type { TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

export const NS = machineAPINamespace;

export function adminOf(ts: TestServer): ApiClient {
  const config = new ClientConfig();
  config.loadFromFile(ts.server.kubeconfigPath);
  return new ApiClient(config, { userAgent: 'machine-api-test-admin' });
}

export interface Rule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** The Lease rules every controller needs in its namespace (leader election). */
export const leaseRules: Rule[] = [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];

/**
 * The CRDs, the namespace, and a ServiceAccount `account` bound to a ClusterRole of exactly
 * `rules` (and a Role with `leaseRules` in the namespace); returns a kubeconfig of that account.
 */
export async function prepare(ts: TestServer, admin: ApiClient, dir: string, account: string, rules: readonly Rule[]): Promise<string> {
  for (const crd of machineAPICRDs()) await admin.create(resources.customResourceDefinitions, crd as never).catch(ignoreExists);
  for (const resource of ['machines', 'machinesets']) {
    await until(`${resource} served`, () => admin.list({ group: 'machine.openshift.io', version: 'v1beta1', resource, kind: '', namespaced: true }).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
  }
  await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).catch(ignoreExists);
  await admin.create(resources.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace: NS } });
  const clusterRole = `test:${account}`;
  await admin.create(resources.clusterRoles, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: clusterRole }, rules: rules.map((r) => ({ ...r })) } as never);
  await admin.create({ ...resources.clusterRoles, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding' }, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: clusterRole },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace: NS }],
  } as never);
  return serviceAccountKubeconfig(ts, admin, NS, account, join(dir, `${account}.kubeconfig`));
}

function ignoreExists(err: unknown): void {
  if (!isAlreadyExists(err)) throw err;
}

export interface RunningController {
  readonly client: ApiClient;
  /** Reconciles of the controller so far. */
  reconciles(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The controller `build` makes, in-process under the account of `kubeconfig`, on `clock`, its
 * Events written through a real recorder (so the account's event rules are exercised too).
 * `wrap` may replace an informer the controller asks for (see GatedInformer).
 */
export async function runController(
  kubeconfig: string,
  clock: Clock,
  build: (ctx: ControllerContext) => Controller,
  wrap?: (ref: ResourceRef, informer: Informer<KubernetesObject>) => Informer<KubernetesObject>,
): Promise<RunningController> {
  const abort = new AbortController();
  const config = new ClientConfig();
  config.loadFromFile(kubeconfig);
  const client = new ApiClient(config, { userAgent: 'machine-api-controller-test' });
  const informers = wrap ? new WrappingInformerFactory({ client, signal: abort.signal }, wrap) : new InformerFactory({ client, signal: abort.signal });
  const registry = new Registry();
  const recorder = createEventRecorder({ kubeConfig: config, component: 'machine-api-test', signal: abort.signal, retryDelayMs: 100 });
  const ctx: ControllerContext = { client, informers, recorder, logger: pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' }), metrics: createComponentMetrics('mapi', registry), clock };
  const controller = build(ctx);
  await informers.waitForSync();
  const running = controller.run(abort.signal);
  return {
    client,
    reconciles: async () => {
      const values = (await registry.getSingleMetric('mapi_reconcile_total')!.get()).values;
      return values.filter((v) => v.labels.controller === controller.name).reduce((sum, v) => sum + v.value, 0);
    },
    stop: async () => {
      abort.abort();
      await running;
      await recorder.flush().catch(() => {});
      client.close();
    },
  };
}

class WrappingInformerFactory extends InformerFactory {
  private readonly wrap: (ref: ResourceRef, informer: Informer<KubernetesObject>) => Informer<KubernetesObject>;
  private readonly wrapped = new Map<string, Informer<KubernetesObject>>();

  constructor(options: ConstructorParameters<typeof InformerFactory>[0], wrap: (ref: ResourceRef, informer: Informer<KubernetesObject>) => Informer<KubernetesObject>) {
    super(options);
    this.wrap = wrap;
  }

  override informer<T extends KubernetesObject>(ref: ResourceRef, scope: InformerScope = {}): Informer<T> {
    const id = `${ref.group}/${ref.resource}/${scope.namespace ?? ''}`;
    let informer = this.wrapped.get(id);
    if (!informer) this.wrapped.set(id, (informer = this.wrap(ref, super.informer<KubernetesObject>(ref, scope))));
    return informer as unknown as Informer<T>;
  }
}

/**
 * An informer over a real one whose events (and so its cache) can be held back: `hold()` makes
 * it stop taking what the real informer sees, `release()` applies what it missed, in order. It
 * plays a cache lagging behind the server, deterministically.
 */
export class GatedInformer<T extends KubernetesObject> implements Informer<T> {
  readonly store = new ObjectCache<T>();
  private held = false;
  private readonly backlog: Array<() => void> = [];
  private readonly handlers = { add: new Set<AddHandler<T>>(), update: new Set<UpdateHandler<T>>(), delete: new Set<DeleteHandler<T>>() };

  constructor(private readonly real: Informer<T>) {
    real.on('add', (obj) => this.apply(() => this.upsert(obj)));
    real.on('update', (obj) => this.apply(() => this.upsert(obj)));
    real.on('delete', (obj) => this.apply(() => this.remove(obj)));
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const step of this.backlog.splice(0)) step();
  }

  private apply(step: () => void): void {
    if (this.held) this.backlog.push(step);
    else step();
  }

  private upsert(obj: DeepReadonly<T>): void {
    const { obj: now, old } = this.store.upsert(obj);
    if (old) for (const h of this.handlers.update) h(now, old);
    else for (const h of this.handlers.add) h(now);
  }

  private remove(obj: DeepReadonly<T>): void {
    const gone = this.store.remove(`${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name ?? ''}`);
    if (gone) for (const h of this.handlers.delete) h(gone);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  hasSynced(): boolean {
    return this.real.hasSynced();
  }

  waitForSync(): Promise<void> {
    return this.real.waitForSync();
  }

  on(event: 'add', handler: AddHandler<T>): () => void;
  on(event: 'update', handler: UpdateHandler<T>): () => void;
  on(event: 'delete', handler: DeleteHandler<T>): () => void;
  on(event: 'add' | 'update' | 'delete', handler: AddHandler<T> | UpdateHandler<T> | DeleteHandler<T>): () => void {
    const set = this.handlers[event] as Set<typeof handler>;
    set.add(handler);
    if (event === 'add') for (const obj of this.store.list()) (handler as AddHandler<T>)(obj);
    return () => set.delete(handler);
  }

  resourceVersion(): string | undefined {
    return this.real.resourceVersion();
  }

  get done(): Promise<void> {
    return this.real.done;
  }
}

/** Events about the object `kind`/`name` in the namespace (as `kubectl describe` finds them), as `reason: message`. */
export async function eventsAbout(admin: ApiClient, kind: string, name: string): Promise<string[]> {
  const list = await admin.list<{ metadata?: object; involvedObject?: { kind?: string; name?: string }; reason?: string; message?: string }>(resources.events, NS);
  return list.items.filter((e) => e.involvedObject?.kind === kind && e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
}

