/**
 * The machine-config-controller (issue 15, item 2) against a real API server with RBAC
 * enforced, running as its own ServiceAccount with only the payload's role. The component is
 * started in-process as its pod starts it (`start`, RELEASE_VERSION, leader election, metrics
 * on its address); the daemons are simulated by flipping node annotations, as the real daemon
 * does. Covered: the Lease and /metrics; the template configs written and put back; the render
 * (event, source, a path written by two configs, stable names, RenderDegraded and recovery,
 * SelectingAll); a rollout over 5 nodes with maxUnavailable 2 never having more than 2
 * unavailable, with the UpdateInProgress taint; pause and resume; the pool's counts and
 * condition wording for a degraded node; a node in two custom pools left alone; a KubeletConfig
 * (maxPods 50) rendered into the pool's kubelet.conf, a refused one, and its deletion. The
 * collection of unused rendered configs runs on a FakeClock in its own suite below.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Lease, V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from '../../src/api/prometheus.ts';
import { parse as parseYaml } from 'yaml';
import { decodeDataUrl, type IgnitionConfig } from '../../src/api/ignition/index.ts';
import {
  machineConfigurationCRDs,
  nodeAnnotations,
  roleLabel,
  type ControllerConfig,
  type KubeletConfig,
  type MachineConfig,
  type MachineConfigPool,
} from '../../src/api/machineconfiguration/index.ts';
import { start } from '../../src/operators/machine-config/controller/component.ts';
import { machineConfigControllers } from '../../src/operators/machine-config/controller/controllers.ts';
import { controllerConfig, filesConfig, machineConfig, pool as poolOf } from '../../src/operators/machine-config/render/testing.ts';
import { ApiClient, isAlreadyExists, isNotFound } from '../../src/runtime/client.ts';
import { FakeClock, type Clock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import type { Informer } from '../../src/runtime/informer.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createComponentMetrics } from '../../src/runtime/metrics.ts';
import type { DeepReadonly } from '../../src/runtime/readonly.ts';
import { resources } from '../../src/runtime/resources.ts';
import { parseTable } from '../e2e/support.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-config-operator';
const VERSION = '0.1.0-mcc-test';
const RBAC = new URL('../../src/release/payload/manifests/0000_80_machine-config_02_controller-rbac.yaml', import.meta.url).pathname;
const PULL_SECRET = '{"auths":{"registry.example":{"auth":"dXNlcjpwYXNz"}}}';
const KEY_1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one@example';
const KEY_2 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two@example';
const SLOW = { timeoutMs: 60_000 };
/** The cluster CA's bundle, as the operator fills it in (the schema's `byte` fields). */
const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const CA = { rootCAData: Buffer.from(CA_PEM).toString('base64'), kubeAPIServerServingCAData: Buffer.from(CA_PEM).toString('base64') };

type Pool = MachineConfigPool;

/** Everything the controller needs on a fresh server, made by the admin; returns a kubeconfig of the controller's ServiceAccount. */
async function prepare(ts: TestServer, admin: ApiClient, dir: string): Promise<string> {
  for (const crd of machineConfigurationCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
  for (const ref of [resources.machineConfigs, resources.machineConfigPools, resources.kubeletConfigs, resources.controllerConfigs]) {
    await until(`${ref.resource} served`, () => admin.list(ref).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
  }
  for (const name of [NS, 'openshift-config', 'kube-system']) {
    await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
  }
  const applied = await ts.kubectl(['apply', '-f', RBAC]);
  assert.equal(applied.code, 0, applied.stderr);
  return serviceAccountKubeconfig(ts, admin, NS, 'machine-config-controller', join(dir, 'kubeconfig'));
}

function adminOf(ts: TestServer): ApiClient {
  const config = new ClientConfig();
  config.loadFromFile(ts.server.kubeconfigPath);
  return new ApiClient(config, { userAgent: 'mcc-test-admin' });
}

/** A custom pool: its own role's configs (and the workers', when asked), nodes labelled with its role. */
function customPool(name: string, o: { withWorker?: boolean; spec?: Partial<Pool['spec']> } = {}): Pool {
  const p = poolOf(name, { roles: o.withWorker ? [name, 'worker'] : [name] });
  p.spec = { ...p.spec, ...o.spec };
  return p;
}

function fileOf(mc: DeepReadonly<MachineConfig>, path: string): string | undefined {
  const config = mc.spec.config as unknown as IgnitionConfig;
  const file = config.storage?.files?.find((f) => f.path === path);
  if (!file) return undefined;
  const decoded = decodeDataUrl(file.contents?.source ?? '');
  assert.ok(decoded.ok, path);
  return decoded.data.toString('utf8');
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

const httpGet = (url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });

/** Unavailable as a user counts it: cordoned, or its daemon not done at its desired config. */
const unavailable = (n: DeepReadonly<V1Node>): boolean => {
  const a = n.metadata?.annotations ?? {};
  return !!n.spec?.unschedulable || a[nodeAnnotations.currentConfig] !== a[nodeAnnotations.desiredConfig] || a[nodeAnnotations.state] !== 'Done';
};
const hasUpdateTaint = (n: DeepReadonly<V1Node>): boolean => (n.spec?.taints ?? []).some((t) => t.key === 'UpdateInProgress' && t.effect === 'PreferNoSchedule');

/**
 * The daemons of a set of nodes, reduced to their annotations: a node given a new desiredConfig
 * is cordoned and Working, then done (current = desired, uncordoned). A node is finished only
 * once the wave is full (as many working as the pool allows) or no idle node waits for the
 * update (tainted UpdateInProgress), so the controller's limit, not the daemons' speed, decides
 * how many update at once. Every node event is also a sample of how many nodes are unavailable.
 */
class FakeDaemons {
  maxSeen = 0;
  samples = 0;
  /** A node still to update carried the UpdateInProgress taint. */
  sawWaitingTainted = false;
  /** Nodes in the order they were first seen targeted at the pool's target. */
  readonly targeted: string[] = [];
  enabled = true;
  private readonly stop = new AbortController();
  private readonly loop: Promise<void>;

  constructor(
    private readonly admin: ApiClient,
    private readonly nodes: Informer<V1Node>,
    private readonly names: readonly string[],
    private readonly target: () => string | undefined,
    private readonly wave: number,
  ) {
    const sample = () => {
      const mine = this.mine();
      const n = mine.filter(unavailable).length;
      this.samples++;
      this.maxSeen = Math.max(this.maxSeen, n);
      const t = this.target();
      if (t && mine.some((x) => x.metadata?.annotations?.[nodeAnnotations.desiredConfig] !== t && hasUpdateTaint(x))) this.sawWaitingTainted = true;
      for (const x of mine) {
        const name = x.metadata?.name ?? '';
        if (t && x.metadata?.annotations?.[nodeAnnotations.desiredConfig] === t && x.metadata?.annotations?.[nodeAnnotations.currentConfig] !== t && !this.targeted.includes(name)) this.targeted.push(name);
      }
    };
    nodes.on('add', sample);
    nodes.on('update', sample);
    this.loop = this.run();
  }

  private mine(): DeepReadonly<V1Node>[] {
    return this.names.map((n) => this.nodes.store.get(n)).filter((n): n is DeepReadonly<V1Node> => !!n);
  }

  private async run(): Promise<void> {
    while (!this.stop.signal.aborted) {
      if (this.enabled) await this.step().catch(() => {});
      await new Promise((r) => setTimeout(r, 15));
    }
  }

  private async step(): Promise<void> {
    const mine = this.mine();
    const annotations = (n: DeepReadonly<V1Node>) => n.metadata?.annotations ?? {};
    for (const node of mine) {
      const a = annotations(node);
      if (a[nodeAnnotations.desiredConfig] !== a[nodeAnnotations.currentConfig] && a[nodeAnnotations.state] === 'Done') {
        await this.patch(node, { [nodeAnnotations.state]: 'Working' }, true);
      }
    }
    const working = mine.filter((n) => annotations(n)[nodeAnnotations.state] === 'Working');
    // Not the pool's target as this test last read it, which may lag: the controller taints every node still to target before it targets any.
    const waiting = mine.filter((n) => hasUpdateTaint(n) && annotations(n)[nodeAnnotations.currentConfig] === annotations(n)[nodeAnnotations.desiredConfig]);
    if (working.length > 0 && (working.length >= this.wave || waiting.length === 0)) {
      for (const node of working) {
        const desired = annotations(node)[nodeAnnotations.desiredConfig]!;
        await this.patch(node, { [nodeAnnotations.currentConfig]: desired, [nodeAnnotations.state]: 'Done', [nodeAnnotations.reason]: null }, false);
      }
    }
  }

  private patch(node: DeepReadonly<V1Node>, annotations: Record<string, string | null>, cordon: boolean) {
    return this.admin.patch(resources.nodes, undefined, node.metadata!.name!, { metadata: { annotations }, spec: { unschedulable: cordon ? true : null } });
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.loop;
  }
}

describe('machine-config-controller against a real API server', { timeout: 600_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let metricsPort: number;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  const watchStop = new AbortController();
  let informers: InformerFactory;
  let nodeInformer: Informer<V1Node>;
  let poolInformer: Informer<Pool>;

  const getPool = (name: string) => admin.get<Pool>(resources.machineConfigPools, undefined, name);
  const getMc = (name: string) => admin.get<MachineConfig>(resources.machineConfigs, undefined, name);
  const condition = (p: Pool, type: string) => p.status?.conditions?.find((c) => c.type === type);
  const createPool = (p: Pool) => admin.create(resources.machineConfigPools, p);
  const createMc = (mc: MachineConfig) => admin.create(resources.machineConfigs, mc);
  const deleteMc = (name: string) => admin.deleteIfExists(resources.machineConfigs, undefined, name);
  /** The pool's target, once it differs from `previous`. */
  const targetAfter = (name: string, previous?: string) =>
    until(`pool ${name} targets a new rendered config`, async () => {
      const t = (await getPool(name)).spec?.configuration?.name;
      return t && t !== previous ? t : undefined;
    }, SLOW);
  const events = async (reason: string, involved: string) =>
    (await admin.list<CoreV1Event>(resources.events, 'default')).items.filter((e) => e.reason === reason && e.involvedObject?.name === involved);
  const nodeNames = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const createNodes = async (names: readonly string[], labels: Record<string, string>, config: string) => {
    for (const [i, name] of names.entries()) {
      const created = await admin.create<V1Node>(resources.nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: { 'kubernetes.io/hostname': name, ...labels, ...(i % 2 === 0 ? { 'topology.kubernetes.io/zone': 'zone-a' } : {}) },
          annotations: { [nodeAnnotations.currentConfig]: config, [nodeAnnotations.desiredConfig]: config, [nodeAnnotations.state]: 'Done' },
        },
      });
      await admin.updateStatus(resources.nodes, { ...created, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: '' }] } });
    }
  };
  const nodesAt = (names: readonly string[], config: string) =>
    until(`${names.length} nodes done at ${config}`, () => names.every((n) => {
      const a = nodeInformer.store.get(n)?.metadata?.annotations ?? {};
      return a[nodeAnnotations.currentConfig] === config && a[nodeAnnotations.desiredConfig] === config && a[nodeAnnotations.state] === 'Done';
    }), SLOW);
  const poolUpdatedAt = (name: string, config: string) =>
    until(`pool ${name} Updated at ${config}`, async () => {
      const p = await getPool(name);
      return p.status?.configuration?.name === config && condition(p, 'Updated')?.status === 'True' ? p : undefined;
    }, SLOW);

  before(async () => {
    ts = await startTestServer({ controllers: true });
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mcc-'));
    const kubeconfig = await prepare(ts, admin, dir);

    // What the operator and the installer provide: the ControllerConfig, the pull secret, the install config, the two pools.
    const cc = controllerConfig({ ...CA, pullSecret: { namespace: 'openshift-config', name: 'pull-secret' } }, { 'machineconfiguration.openshift.io/generated-by-version': VERSION });
    delete cc.metadata!.uid;
    await admin.create(resources.controllerConfigs, cc);
    await admin.create(resources.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull-secret', namespace: 'openshift-config' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(PULL_SECRET).toString('base64') } } as never);
    await admin.create(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-config-v1', namespace: 'kube-system' }, data: { 'install-config': `apiVersion: v1\nbaseDomain: example.com\nsshKey: ${KEY_1}\n` } });
    for (const name of ['master', 'worker']) await createPool(poolOf(name));

    informers = new InformerFactory({ client: admin, signal: watchStop.signal });
    nodeInformer = informers.informer<V1Node>(resources.nodes);
    poolInformer = informers.informer<Pool>(resources.machineConfigPools);
    await informers.waitForSync();

    metricsPort = await freePort();
    running = start({
      signal: stop.signal,
      args: ['start', '--kubeconfig', kubeconfig, `--metrics-bind-address=127.0.0.1:${metricsPort}`, '--leader-elect-lease-duration=15s'],
      env: { RELEASE_VERSION: VERSION, HOSTNAME: 'machine-config-controller-7d9f-abcde', SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_TEST_LOG ?? 'silent' },
    });
    running.catch(() => {});
  });

  after(async () => {
    stop.abort();
    watchStop.abort();
    await running?.catch(() => {});
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('leads on its Lease in its namespace and serves /metrics on its address', async () => {
    const lease = await until('the Lease is held', async () => {
      const l = await admin.getIfExists<V1Lease>(resources.leases, NS, 'machine-config-controller');
      return l?.spec?.holderIdentity ? l : undefined;
    }, SLOW);
    assert.equal(lease.spec?.holderIdentity, 'machine-config-controller-7d9f-abcde');
    const metrics = await until('metrics served', async () => {
      const r = await httpGet(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => undefined);
      return r && /machine_config_controller_reconcile_total\{controller="template",result="(success|requeue)"\} [1-9]/.test(r.body) ? r : undefined;
    }, SLOW);
    assert.equal(metrics.status, 200);
    for (const c of ['render', 'node', 'kubelet-config', 'rendered-config-gc']) assert.match(metrics.body, new RegExp(`machine_config_controller_reconcile_total\\{controller="${c}"`));
  });

  it('writes the six template configs from the ControllerConfig, the pull secret and the SSH key, and puts them back', async () => {
    const names = ['00-master', '00-worker', '01-master-kubelet', '01-worker-kubelet', '99-master-ssh', '99-worker-ssh'];
    await until('template configs exist', async () => (await Promise.all(names.map((n) => getMc(n).then(() => true, () => false)))).every(Boolean), SLOW);
    const worker = await getMc('00-worker');
    assert.equal(fileOf(worker, '/var/lib/kubelet/config.json'), PULL_SECRET);
    assert.equal(worker.metadata?.labels?.[roleLabel], 'worker');
    assert.equal(worker.metadata?.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version'], VERSION);
    assert.deepEqual(worker.metadata?.ownerReferences?.map((r) => [r.kind, r.name]), [['ControllerConfig', 'machine-config-controller']]);
    assert.match(fileOf(await getMc('01-worker-kubelet'), '/etc/kubernetes/kubelet.conf') ?? '', /maxPods: 250/);
    const keys = (mc: MachineConfig) => (mc.spec.config as unknown as IgnitionConfig).passwd?.users?.[0]?.sshAuthorizedKeys;
    assert.deepEqual(keys(await getMc('99-worker-ssh')), [KEY_1]);
    // The status is written after the configs waited for above.
    const cc = await until('TemplateControllerCompleted', async () => {
      const c = await admin.get<ControllerConfig>(resources.controllerConfigs, undefined, 'machine-config-controller');
      return c.status?.conditions?.some((x) => x.type === 'TemplateControllerCompleted' && x.status === 'True') ? c : undefined;
    }, SLOW);
    assert.equal(cc.status?.conditions?.find((c) => c.type === 'TemplateControllerCompleted')?.status, 'True');
    assert.equal(cc.status?.observedGeneration, 1);

    // An edit is undone, a deletion is undone.
    const edited = await ts.kubectl(['patch', 'mc', '00-worker', '--type=merge', '-p', JSON.stringify({ spec: { config: { ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/hacked', contents: { source: 'data:,x' } }] } } } })]);
    assert.equal(edited.code, 0, edited.stderr);
    await until('00-worker put back', async () => fileOf(await getMc('00-worker'), '/var/lib/kubelet/config.json') === PULL_SECRET && fileOf(await getMc('00-worker'), '/etc/hacked') === undefined, SLOW);
    const uid = (await getMc('99-master-ssh')).metadata?.uid;
    await deleteMc('99-master-ssh');
    await until('99-master-ssh recreated', async () => (await getMc('99-master-ssh').catch(() => undefined))?.metadata?.uid !== uid, { ...SLOW, retryErrors: true });

    // The SSH key changes where the installer recorded it; the next pass (here, prompted by an owned config's event) writes it.
    const workerTarget = await targetAfter('worker');
    await admin.patch(resources.configMaps, 'kube-system', 'cluster-config-v1', { data: { 'install-config': `sshKey: |\n  ${KEY_1}\n  ${KEY_2}\n` } });
    await admin.patch(resources.machineConfigs, undefined, '99-worker-ssh', { metadata: { annotations: { touched: 'yes' } } });
    await until('99-worker-ssh has both keys', async () => JSON.stringify(keys(await getMc('99-worker-ssh'))) === JSON.stringify([KEY_1, KEY_2]), SLOW);
    const next = await targetAfter('worker', workerTarget);
    assert.deepEqual((await getMc(next)).spec.config && (((await getMc(next)).spec.config as unknown as IgnitionConfig).passwd?.users?.[0]?.sshAuthorizedKeys), [KEY_1, KEY_2]);
  });

  it('renders each pool into rendered-<pool>-<hash>, owned by the pool, with its sources, and says so in an event', async () => {
    const target = await targetAfter('master');
    assert.match(target, /^rendered-master-[0-9a-f]{32}$/);
    const p = await getPool('master');
    assert.deepEqual(p.spec.configuration?.source?.map((s) => s.name), ['00-master', '01-master-kubelet', '99-master-ssh']);
    const rendered = await getMc(target);
    assert.deepEqual(rendered.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['MachineConfigPool', 'master', true]]);
    assert.equal(rendered.metadata?.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version'], VERSION);
    assert.equal(fileOf(rendered, '/var/lib/kubelet/config.json'), PULL_SECRET);
    const ev = await until('RenderedConfigGenerated event', async () => (await events('RenderedConfigGenerated', 'master'))[0], SLOW);
    assert.match(ev.message ?? '', new RegExp(`^rendered-master-[0-9a-f]{32} successfully generated \\(release version: 4\\.99\\.0, controller version: ${VERSION.replace(/\./g, '\\.')}\\)$`));
    // A pool without nodes is Updated at once: its CONFIG is its target.
    const updated = await poolUpdatedAt('master', (await getPool('master')).spec.configuration!.name!);
    assert.equal(updated.status?.machineCount, 0);
    // Deleted while in use (MCO issues 2010, 2635: nodes and the config server then fail), it is made again.
    const current = updated.spec.configuration!.name!;
    const uid = (await getMc(current)).metadata?.uid;
    await deleteMc(current);
    await until('the targeted rendered config is made again', async () => {
      const got = await getMc(current).catch(() => undefined);
      return got && got.metadata?.uid !== uid;
    }, SLOW);
  });

  it('two configs writing one path: the later by name wins; the name is stable for equal content and changes with it', async () => {
    await createPool(customPool('paths'));
    await createMc(machineConfig('10-paths-a', 'paths', { config: filesConfig({ '/etc/shared': 'from a' }) }));
    const onlyA = await targetAfter('paths');
    await createMc(machineConfig('20-paths-b', 'paths', { config: filesConfig({ '/etc/shared': 'from b' }) }));
    const both = await targetAfter('paths', onlyA);
    assert.equal(fileOf(await getMc(both), '/etc/shared'), 'from b');
    await deleteMc('20-paths-b');
    assert.equal(await targetAfter('paths', both), onlyA, 'back to the same content, back to the same name');
    await createMc(machineConfig('20-paths-b', 'paths', { config: filesConfig({ '/etc/shared': 'from b' }) }));
    assert.equal(await targetAfter('paths', onlyA), both);
    await admin.patch(resources.machineConfigs, undefined, '20-paths-b', { spec: { config: filesConfig({ '/etc/shared': 'from b, changed' }) } });
    const changed = await targetAfter('paths', both);
    assert.notEqual(changed, onlyA);
    assert.equal(fileOf(await getMc(changed), '/etc/shared'), 'from b, changed');
  });

  it('a config that passes admission but cannot render: RenderDegraded with the cause, the target kept; recovery when it goes', async () => {
    const before = (await getPool('paths')).spec.configuration!.name!;
    await createMc(machineConfig('30-paths-bad', 'paths', { kernelType: 'bogus' }));
    const degraded = await until('RenderDegraded', async () => {
      const p = await getPool('paths');
      return condition(p, 'RenderDegraded')?.status === 'True' && condition(p, 'Degraded')?.status === 'True' ? p : undefined;
    }, SLOW);
    assert.match(condition(degraded, 'RenderDegraded')?.message ?? '', /^Failed to render configuration for pool paths: .*kernelType=bogus is invalid/);
    assert.equal(condition(degraded, 'Degraded')?.message, condition(degraded, 'RenderDegraded')?.message);
    assert.equal(degraded.spec.configuration?.name, before, 'the previous target stays');
    const table = parseTable((await ts.kubectl(['get', 'mcp', 'paths'])).stdout);
    assert.deepEqual(table.rows[0]?.slice(0, 5), ['paths', before, 'True', 'False', 'True']);
    await deleteMc('30-paths-bad');
    await until('RenderDegraded clears', async () => {
      const p = await getPool('paths');
      return condition(p, 'RenderDegraded')?.status === 'False' && condition(p, 'Degraded')?.status === 'False';
    }, SLOW);
  });

  it('a pool selecting every config renders nothing and gets a SelectingAll warning', async () => {
    await createPool(customPool('everything', { spec: { machineConfigSelector: {} } }));
    const [ev] = await until('SelectingAll event', async () => {
      const found = await events('SelectingAll', 'everything');
      return found.length > 0 ? found : undefined;
    }, SLOW);
    assert.equal(ev?.type, 'Warning');
    assert.equal(ev?.message, 'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.');
    assert.equal((await getPool('everything')).spec.configuration?.name, undefined);
  });

  describe('a rollout over 5 nodes', () => {
    const names = nodeNames('rollout', 5);
    let daemons: FakeDaemons;
    let target = '';

    before(async () => {
      await createPool(customPool('rollout', { spec: { maxUnavailable: 2 } }));
      await createMc(machineConfig('00-rollout', 'rollout', { config: filesConfig({ '/etc/rollout': 'v1' }) }));
      target = await targetAfter('rollout');
      await createNodes(names, { 'node-role.kubernetes.io/rollout': '' }, target);
      await poolUpdatedAt('rollout', target);
      daemons = new FakeDaemons(admin, nodeInformer, names, () => poolInformer.store.get('rollout')?.spec?.configuration?.name, 2);
    });
    after(async () => {
      await daemons?.close();
    });

    it('with maxUnavailable 2 never has more than 2 nodes unavailable, and taints the nodes still to update', async () => {
      await createMc(machineConfig('10-rollout-change', 'rollout', { config: filesConfig({ '/etc/rollout': 'v2' }) }));
      const previous = target;
      target = await targetAfter('rollout', previous);
      await nodesAt(names, target);
      const done = await poolUpdatedAt('rollout', target);
      assert.ok(daemons.maxSeen <= 2, `at most 2 unavailable at once; saw ${daemons.maxSeen}`);
      assert.equal(daemons.maxSeen, 2, 'two at a time, as allowed');
      assert.ok(daemons.sawWaitingTainted, 'nodes waiting for the update carried UpdateInProgress:PreferNoSchedule');
      await until('no taint left once updated', () => names.every((n) => !hasUpdateTaint(nodeInformer.store.get(n)!)), SLOW);
      assert.deepEqual(daemons.targeted, ['rollout-0', 'rollout-2', 'rollout-4', 'rollout-1', 'rollout-3'], 'zone-a first, then the unzoned, oldest (then by name) first');
      assert.deepEqual([done.status?.machineCount, done.status?.updatedMachineCount, done.status?.readyMachineCount, done.status?.unavailableMachineCount], [5, 5, 5, 0]);
      assert.equal(condition(done, 'Updated')?.message, `All nodes are updated with MachineConfig ${target}`);
      // The first wave is two nodes at once: all five were available.
      await until('SetDesiredConfig event', async () => (await events('SetDesiredConfig', 'rollout')).some((e) => e.message === `Set target for 2 nodes to MachineConfig: ${target}`), SLOW);
    });

    it('a paused pool is rendered but not rolled out; unpausing resumes', async () => {
      await admin.patch(resources.machineConfigPools, undefined, 'rollout', { spec: { paused: true } });
      await until('pool paused seen', async () => (await getPool('rollout')).metadata?.generation !== undefined && (await getPool('rollout')).spec.paused === true);
      const previous = target;
      await createMc(machineConfig('20-rollout-paused', 'rollout', { config: filesConfig({ '/etc/rollout': 'v3' }) }));
      const next = await targetAfter('rollout', previous);
      const paused = await until('pool says it is paused', async () => {
        const p = await getPool('rollout');
        return condition(p, 'Updating')?.message === `Pool is paused; will not update to MachineConfig ${next}` ? p : undefined;
      }, SLOW);
      assert.equal(condition(paused, 'Updating')?.status, 'False');
      assert.equal(condition(paused, 'Updated')?.status, 'False');
      assert.equal(paused.status?.configuration?.name, previous, 'CONFIG is still the last completed one');
      assert.deepEqual(names.filter((n) => nodeInformer.store.get(n)?.metadata?.annotations?.[nodeAnnotations.desiredConfig] === next), [], 'no node targeted while paused');
      target = next;
      await admin.patch(resources.machineConfigPools, undefined, 'rollout', { spec: { paused: false } });
      await nodesAt(names, next);
      await poolUpdatedAt('rollout', next);
      assert.ok(daemons.maxSeen <= 2);
    });

    it('counts and words a degraded node as the MCO does, and kubectl get mcp shows it', async () => {
      daemons.enabled = false;
      const previous = target;
      await createMc(machineConfig('30-rollout-degrade', 'rollout', { config: filesConfig({ '/etc/rollout': 'v4' }) }));
      const next = await targetAfter('rollout', previous);
      const targeted = await until('two nodes targeted', () => {
        const t = names.filter((n) => nodeInformer.store.get(n)?.metadata?.annotations?.[nodeAnnotations.desiredConfig] === next);
        return t.length === 2 ? t : undefined;
      }, SLOW);
      const reason = `failed to drain node ${targeted[0]}: Cannot evict pod openshift-ingress/router-default-x: would violate PodDisruptionBudget openshift-ingress/router-default`;
      await admin.patch(resources.nodes, undefined, targeted[0]!, { metadata: { annotations: { [nodeAnnotations.state]: 'Degraded', [nodeAnnotations.reason]: reason } }, spec: { unschedulable: true } });
      await admin.patch(resources.nodes, undefined, targeted[1]!, { metadata: { annotations: { [nodeAnnotations.state]: 'Working' } }, spec: { unschedulable: true } });
      const p = await until('pool reports the degraded node', async () => {
        const got = await getPool('rollout');
        return got.status?.degradedMachineCount === 1 && got.status.unavailableMachineCount === 2 ? got : undefined;
      }, SLOW);
      const message = `Node ${targeted[0]} is reporting: ${JSON.stringify(reason)}`;
      assert.deepEqual(condition(p, 'NodeDegraded') && [condition(p, 'NodeDegraded')!.status, condition(p, 'NodeDegraded')!.reason, condition(p, 'NodeDegraded')!.message], ['True', '1 nodes are reporting degraded status on sync', message]);
      assert.deepEqual([condition(p, 'Degraded')?.status, condition(p, 'Degraded')?.message], ['True', message]);
      assert.deepEqual([condition(p, 'Updating')?.status, condition(p, 'Updating')?.message], ['True', `All nodes are updating to MachineConfig ${next}`]);
      assert.deepEqual([p.status?.machineCount, p.status?.updatedMachineCount, p.status?.readyMachineCount], [5, 0, 0]);
      assert.equal(p.status?.configuration?.name, previous);
      assert.equal(p.status?.observedGeneration, p.metadata?.generation);
      const table = parseTable((await ts.kubectl(['get', 'mcp', 'rollout'])).stdout);
      assert.deepEqual(table.header, ['NAME', 'CONFIG', 'UPDATED', 'UPDATING', 'DEGRADED', 'MACHINECOUNT', 'READYMACHINECOUNT', 'UPDATEDMACHINECOUNT', 'DEGRADEDMACHINECOUNT', 'AGE']);
      assert.deepEqual(table.rows[0]?.slice(0, 9), ['rollout', previous, 'False', 'True', 'True', '5', '0', '0', '1']);
      assert.deepEqual(names.filter((n) => nodeInformer.store.get(n)?.metadata?.annotations?.[nodeAnnotations.desiredConfig] === next).sort(), [...targeted].sort(), 'no third node while two are unavailable');

      // The daemon recovers alone (the cause went away): the pool finishes.
      await admin.patch(resources.nodes, undefined, targeted[0]!, { metadata: { annotations: { [nodeAnnotations.state]: 'Working', [nodeAnnotations.reason]: null } } });
      target = next;
      daemons.enabled = true;
      await nodesAt(names, next);
      const done = await poolUpdatedAt('rollout', next);
      assert.deepEqual([condition(done, 'NodeDegraded')?.status, condition(done, 'Degraded')?.status, done.status?.degradedMachineCount], ['False', 'False', 0]);
    });
  });

  it('a node two custom pools select belongs to neither, and is reported on the node', async () => {
    for (const name of ['dual-a', 'dual-b']) {
      const p = customPool(name);
      p.spec.nodeSelector = { matchLabels: { dual: '' } };
      await createPool(p);
      await createMc(machineConfig(`00-${name}`, name, { config: filesConfig({ [`/etc/${name}`]: name }) }));
    }
    await createNodes(['dual-0'], { dual: '' }, 'rendered-none');
    const [ev] = await until('the node is reported', async () => {
      const found = await events('NodeInMultiplePools', 'dual-0');
      return found.length > 0 ? found : undefined;
    }, SLOW);
    assert.equal(ev?.message, 'node dual-0 belongs to 2 custom roles, cannot proceed with this Node (pools dual-a, dual-b)');
    for (const name of ['dual-a', 'dual-b']) {
      const p = await until(`${name} has a status`, async () => {
        const got = await getPool(name);
        return got.status?.machineCount !== undefined ? got : undefined;
      }, SLOW);
      assert.equal(p.status?.machineCount, 0);
    }
    assert.equal(nodeInformer.store.get('dual-0')?.metadata?.annotations?.[nodeAnnotations.desiredConfig], 'rendered-none');
  });

  it('a KubeletConfig with maxPods 50 ends in the pool\'s rendered kubelet.conf; a refused one says why; deleting it reverts', async () => {
    await createPool(customPool('kubelet', { withWorker: true }));
    const initial = await targetAfter('kubelet');
    assert.equal(parseYaml(fileOf(await getMc(initial), '/etc/kubernetes/kubelet.conf') ?? '').maxPods, 250);
    const kc = (name: string, kubeletConfig: Record<string, unknown>): KubeletConfig => ({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'KubeletConfig',
      metadata: { name },
      spec: { machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/kubelet': '' } }, kubeletConfig },
    });
    await admin.create(resources.kubeletConfigs, kc('max-pods', { maxPods: 50 }));
    const generated = await until('99-kubelet-generated-kubelet', () => getMc('99-kubelet-generated-kubelet'), { ...SLOW, retryErrors: true });
    assert.deepEqual(generated.metadata?.ownerReferences?.map((r) => [r.kind, r.name]), [['KubeletConfig', 'max-pods']]);
    const withKc = await targetAfter('kubelet', initial);
    assert.equal(parseYaml(fileOf(await getMc(withKc), '/etc/kubernetes/kubelet.conf') ?? '').maxPods, 50);
    const status = await until('KubeletConfig status', async () => {
      const got = await admin.get<KubeletConfig>(resources.kubeletConfigs, undefined, 'max-pods');
      return got.status?.conditions?.length ? got.status : undefined;
    }, SLOW);
    assert.deepEqual(status.conditions?.map((c) => [c.type, c.status, c.message]), [['Success', 'True', 'Success']]);

    await admin.create(resources.kubeletConfigs, kc('bad-dns', { clusterDNS: ['192.0.2.10'] }));
    const refused = await until('refused KubeletConfig status', async () => {
      const got = await admin.get<KubeletConfig>(resources.kubeletConfigs, undefined, 'bad-dns');
      return got.status?.conditions?.length ? got.status : undefined;
    }, SLOW);
    assert.equal(refused.conditions?.[0]?.type, 'Failure');
    assert.match(refused.conditions?.[0]?.message ?? '', /^Error: .*clusterDNS/);
    await admin.delete(resources.kubeletConfigs, undefined, 'bad-dns');

    await admin.delete(resources.kubeletConfigs, undefined, 'max-pods');
    await until('the generated config is collected with its owner', async () => (await getMc('99-kubelet-generated-kubelet').then(() => false, (err: unknown) => isNotFound(err))), SLOW);
    assert.equal(await targetAfter('kubelet', withKc), initial, 'back to the template kubelet.conf');
  });
});

/** The controllers in-process under the ServiceAccount, on a clock the test drives. */
async function runControllers(kubeconfig: string, clock: Clock, o: { gracePeriodMs: number }) {
  const abort = new AbortController();
  const config = new ClientConfig();
  config.loadFromFile(kubeconfig);
  const client = new ApiClient(config, { userAgent: 'mcc-test' });
  const informers = new InformerFactory({ client, signal: abort.signal });
  const registry = new Registry();
  const ctx: ControllerContext = { client, informers, recorder: { event: () => {} }, logger: pino({ level: 'silent' }), metrics: createComponentMetrics('mcc', registry), clock };
  const controllers = machineConfigControllers(ctx, { controllerVersion: VERSION, renderDelayMs: 0, renderedConfigGracePeriodMs: o.gracePeriodMs });
  await informers.waitForSync();
  const running = Promise.all(controllers.map((c) => c.run(abort.signal)));
  /** Reconciles of one controller so far. */
  const reconciles = async (controller: string): Promise<number> => {
    const metric = registry.getSingleMetric('mcc_reconcile_total');
    const values = (await metric!.get()).values;
    return values.filter((v) => v.labels.controller === controller).reduce((sum, v) => sum + v.value, 0);
  };
  return {
    reconciles,
    stop: async () => {
      abort.abort();
      await running;
      client.close();
    },
  };
}

describe('collection of unused rendered configs (FakeClock)', { timeout: 180_000 }, () => {
  const GRACE = 10 * 60_000;
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let mcc: Awaited<ReturnType<typeof runControllers>>;
  const clock = new FakeClock();

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mcc-gc-'));
    const kubeconfig = await prepare(ts, admin, dir);
    const cc = controllerConfig(CA, { 'machineconfiguration.openshift.io/generated-by-version': VERSION });
    delete cc.metadata!.uid;
    await admin.create(resources.controllerConfigs, cc);
    mcc = await runControllers(kubeconfig, clock, { gracePeriodMs: GRACE });
  });
  after(async () => {
    await mcc?.stop();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('deletes a rendered config no pool or node has used for the grace period; never one in use', async () => {
    const target = async (previous?: string) =>
      until('a new target', async () => {
        const t = (await admin.get<Pool>(resources.machineConfigPools, undefined, 'gc')).spec?.configuration?.name;
        return t && t !== previous ? t : undefined;
      }, SLOW);
    const completed = (name: string) =>
      until(`gc completed ${name}`, async () => (await admin.get<Pool>(resources.machineConfigPools, undefined, 'gc')).status?.configuration?.name === name, SLOW);
    const exists = (name: string) => admin.get(resources.machineConfigs, undefined, name).then(() => true, (err: unknown) => (isNotFound(err) ? false : Promise.reject(err)));

    await admin.create(resources.machineConfigPools, customPool('gc'));
    await admin.create(resources.machineConfigs, machineConfig('00-gc', 'gc', { config: filesConfig({ '/etc/gc': 'a' }) }));
    const first = await target();
    await completed(first);
    // A node outside every pool still runs the first config: it stays in use.
    await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'outsider', annotations: { [nodeAnnotations.currentConfig]: first, [nodeAnnotations.desiredConfig]: first, [nodeAnnotations.state]: 'Done' } } });
    await admin.create(resources.machineConfigs, machineConfig('10-gc', 'gc', { config: filesConfig({ '/etc/gc2': 'b' }) }));
    const second = await target(first);
    await completed(second);
    await admin.create(resources.machineConfigs, machineConfig('20-gc', 'gc', { config: filesConfig({ '/etc/gc3': 'c' }) }));
    const third = await target(second);
    await completed(third);

    // Not yet: one second short of the grace period, a pass (prompted by a node event) deletes nothing.
    clock.advance(GRACE - 1000);
    const before = await mcc.reconciles('rendered-config-gc');
    await admin.patch(resources.nodes, undefined, 'outsider', { metadata: { labels: { poke: '1' } } });
    await until('a collection pass ran', async () => (await mcc.reconciles('rendered-config-gc')) > before);
    assert.deepEqual([await exists(first), await exists(second), await exists(third)], [true, true, true]);

    clock.advance(1000);
    await until('the unused config is deleted', async () => !(await exists(second)), SLOW);
    assert.equal(await exists(first), true, 'a node runs it');
    assert.equal(await exists(third), true, 'the pool targets it');

    // Once the node moves on, the first becomes unused and goes after its own grace period.
    const afterMove = await mcc.reconciles('rendered-config-gc');
    await admin.patch(resources.nodes, undefined, 'outsider', { metadata: { annotations: { [nodeAnnotations.currentConfig]: third, [nodeAnnotations.desiredConfig]: third } } });
    await until('a collection pass ran', async () => (await mcc.reconciles('rendered-config-gc')) > afterMove);
    assert.equal(await exists(first), true, 'not before its grace period');
    clock.advance(GRACE);
    await until('the first config is deleted', async () => !(await exists(first)), SLOW);
    assert.equal(await exists(third), true);
  });
});
