/**
 * The kube-apiserver operator's `installer` command (issue 17, item 5; reference §8) against a
 * real API server and a temp node root reached, as in a pod, through the container's
 * `/etc/kubernetes` mount: revision N's copies and manifest written, the events recorded, a
 * missing input failing with StaticPodInstallerFailed and the old manifest left alone, a newer
 * installer on the node making it stop, an older one still running waited for (FakeClock).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type CoreV1Event, type V1ConfigMap, type V1Pod } from '@kubernetes/client-node';
import { nodeRootOf, otherInstallers, parseInstallerArgs, runInstaller, type InstallerContext } from '../../src/operators/kube-apiserver/installer/command.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const NODE = 'master-0';
const POD_YAML = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-apiserver\n  labels: {revision: "REVISION"}\nspec:\n  nodeName: NODE_NAME\n';

const argsFor = (revision: number, ...extra: string[]) => [
  'cluster-kube-apiserver-operator',
  'installer',
  '-v=2',
  `--revision=${revision}`,
  `--namespace=${NS}`,
  '--pod=kube-apiserver-pod',
  '--resource-dir=/etc/kubernetes/static-pod-resources',
  '--pod-manifest-dir=/etc/kubernetes/manifests',
  '--configmaps=kube-apiserver-pod',
  '--configmaps=config',
  '--optional-secrets=encryption-config',
  '--timeout-duration=1h',
  ...extra,
];

describe('parseInstallerArgs', () => {
  it('reads the inputs per flag, skipping the command words', () => {
    const a = parseInstallerArgs([...argsFor(3), '--secrets=etcd-client', '--optional-configmaps=oauth-metadata', '--cert-dir=/etc/kubernetes/static-pod-resources/kube-apiserver-certs', '--cert-secrets=serving']);
    assert.equal(a.revision, 3);
    assert.equal(a.namespace, NS);
    assert.equal(a.timeoutMs, 3_600_000);
    assert.deepEqual(a.inputs, [
      { kind: 'configmap', name: 'kube-apiserver-pod', optional: false },
      { kind: 'configmap', name: 'config', optional: false },
      { kind: 'configmap', name: 'oauth-metadata', optional: true },
      { kind: 'secret', name: 'etcd-client', optional: false },
      { kind: 'secret', name: 'encryption-config', optional: true },
    ]);
    assert.deepEqual(a.certInputs, [{ kind: 'secret', name: 'serving', optional: false }]);
  });

  it('refuses an unknown flag, a bad revision and a directory install.ts does not write', () => {
    assert.throws(() => parseInstallerArgs([...argsFor(1), '--bogus=1']), /bogus/);
    assert.throws(() => parseInstallerArgs(['--revision=0']), /--revision must be a positive integer, got "0"/);
    assert.throws(() => parseInstallerArgs([...argsFor(1), '--pod-manifest-dir=/tmp']), /--pod-manifest-dir=\/tmp: only \/etc\/kubernetes\/manifests is supported/);
  });
});

describe('otherInstallers', () => {
  const pod = (name: string, node: string, phase?: string): V1Pod => ({ metadata: { name }, spec: { nodeName: node, containers: [] }, ...(phase ? { status: { phase } } : {}) });
  it('a newer revision on the node wins; older ones not finished are waited for; other nodes and this revision do not count', () => {
    assert.deepEqual(otherInstallers([pod('installer-5-master-0', NODE, 'Succeeded'), pod('installer-2-master-0', NODE, 'Running')], NODE, 3), { kind: 'newer', revision: 5 });
    assert.deepEqual(otherInstallers([pod('installer-2-retry-1-master-0', NODE, 'Running'), pod('installer-1-master-0', NODE, 'Failed'), pod('installer-2-master-1', 'master-1')], NODE, 3), {
      kind: 'running',
      names: ['installer-2-retry-1-master-0'],
    });
    assert.deepEqual(otherInstallers([pod('installer-3-master-0', NODE), pod('installer-9-master-1', 'master-1')], NODE, 3), { kind: 'settled' });
  });
});

describe('installer command (API server, temp node root)', () => {
  let ts: TestServer;
  let client: ApiClient;
  let kubeConfig: KubeConfig;
  let dir: string;
  let root: string;
  let rootfs: string;

  const manifest = () => join(root, 'etc/kubernetes/manifests/kube-apiserver-pod.yaml');
  const events = async (reason: string): Promise<string[]> => (await client.list<CoreV1Event>(resources.events, NS)).items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
  const ctx = (revision: number, extra: Partial<InstallerContext> = {}, args: string[] = []): InstallerContext => ({
    signal: new AbortController().signal,
    args: argsFor(revision, ...args),
    env: { NODE_NAME: NODE, POD_NAME: `installer-${revision}-${NODE}` },
    rootfs,
    kubeConfig,
    ...extra,
  });
  const revision = async (n: number, podYaml = POD_YAML) => {
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: `kube-apiserver-pod-${n}`, namespace: NS }, data: { 'pod.yaml': podYaml, version: '1' } });
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: `config-${n}`, namespace: NS }, data: { 'config.yaml': `{"rev":"REVISION","n":${n}}` } });
  };
  const installerPod = async (name: string, phase: string) => {
    const p = await client.create<V1Pod>(resources.pods, { metadata: { name, namespace: NS, labels: { app: 'installer' } }, spec: { nodeName: NODE, containers: [{ name: 'installer', image: 'x' }] } });
    await client.updateStatus(resources.pods, { ...p, status: { phase } });
  };

  before(async () => {
    ts = await startTestServer();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: 'kas-installer-command-test' });
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    dir = mkdtempSync(join(tmpdir(), 'kas-installer-'));
    root = join(dir, 'node');
    rootfs = join(dir, 'pod/rootfs');
    // As the kubelet lays out a pod: the hostPath volume on the node, the mountPath a link to it.
    mkdirSync(join(root, 'etc/kubernetes'), { recursive: true });
    mkdirSync(join(rootfs, 'etc'), { recursive: true });
    symlinkSync(join(root, 'etc/kubernetes'), join(rootfs, 'etc/kubernetes'));
  });
  after(async () => {
    client?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the node root through the /etc/kubernetes mount', async () => {
    assert.equal(await nodeRootOf(rootfs), root);
  });

  it('installs revision 1: copies, manifest with placeholders filled, StaticPodInstallerCompleted', async () => {
    await revision(1);
    await runInstaller(ctx(1));
    assert.equal(readFileSync(manifest(), 'utf8'), POD_YAML.replace('REVISION', '1').replace('NODE_NAME', NODE));
    assert.equal(readFileSync(join(root, 'etc/kubernetes/static-pod-resources/kube-apiserver-pod-1/configmaps/config/config.yaml'), 'utf8'), '{"rev":"1","n":1}');
    assert.ok(!existsSync(join(root, 'etc/kubernetes/static-pod-resources/kube-apiserver-pod-1/secrets')), 'the absent optional secret is skipped');
    await until('StaticPodInstallerCompleted', async () => (await events('StaticPodInstallerCompleted')).includes('Successfully installed revision 1'), 30_000);
    const e = (await client.list<CoreV1Event>(resources.events, NS)).items.find((x) => x.reason === 'StaticPodInstallerCompleted');
    assert.equal(e?.involvedObject?.name, 'installer-1-master-0');
  });

  it('a missing required input fails with StaticPodInstallerFailed and leaves the manifest alone', async () => {
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'kube-apiserver-pod-2', namespace: NS }, data: { 'pod.yaml': POD_YAML } });
    await assert.rejects(runInstaller(ctx(2)), /configmaps "config-2" not found/);
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "1"/);
    await until('StaticPodInstallerFailed', async () => (await events('StaticPodInstallerFailed')).includes('Installing revision 2: configmaps "config-2" not found'), 30_000);
  });

  it('stops when a newer revision has an installer on the node', async () => {
    await revision(3);
    await installerPod('installer-5-master-0', 'Pending');
    await assert.rejects(runInstaller(ctx(3)), /more recent revision present on node: thisRevision=3, moreRecentRevision=5/);
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "1"/);
    await client.delete(resources.pods, NS, 'installer-5-master-0', { gracePeriodSeconds: 0 });
    await until('installer-5 gone', async () => (await client.list<V1Pod>(resources.pods, NS)).items.every((p) => p.metadata?.name !== 'installer-5-master-0'), 30_000);
  });

  it('waits for an older installer still running on the node, then the settle time, then installs', async () => {
    await revision(4);
    await installerPod('installer-3-master-0', 'Running');
    const clock = new FakeClock();
    const waits = { pollMs: 10_000, timeoutMs: 60_000, settleMs: 30_000 };
    let finished = false;
    const run = runInstaller(ctx(4, { clock, waits })).finally(() => {
      finished = true;
    });
    // The run's timeout timer, and its poll sleep once it has seen installer-3 running.
    await until('polling', () => clock.pending() === 2, 30_000);
    await sleep(100);
    assert.equal(finished, false);
    const p = await client.get<V1Pod>(resources.pods, NS, 'installer-3-master-0');
    await client.updateStatus(resources.pods, { ...p, status: { phase: 'Succeeded' } });
    clock.advance(10_000);
    await until('settling', () => clock.pending() === 2, 30_000);
    await sleep(100);
    assert.equal(finished, false, 'the settle time runs after the older installer finished');
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "1"/);
    clock.advance(30_000);
    await run;
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "4"/);
  });

  it('gives up when an older installer does not finish within the wait', async () => {
    await revision(6);
    await installerPod('installer-4-master-0', 'Running');
    const clock = new FakeClock();
    const run = runInstaller(ctx(6, { clock, waits: { pollMs: 10_000, timeoutMs: 20_000, settleMs: 30_000 } }));
    for (let i = 0; i < 2; i++) {
      await until(`poll ${i}`, () => clock.pending() === 2, 30_000);
      clock.advance(10_000);
    }
    await assert.rejects(run, /timed out waiting for installer pods installer-4-master-0 on node master-0 to finish/);
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "4"/);
  });
});
