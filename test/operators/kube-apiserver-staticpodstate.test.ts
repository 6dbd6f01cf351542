/**
 * The kube-apiserver operator's static-pod state controller (issue 17, item 5) against a real
 * API server, on a FakeClock; the test plays the kubelet by writing the mirror pods' status:
 * all running → StaticPodsDegraded False/AsExpected; a crash loop on master-1 → True/Error
 * naming the pod, the container state and the log's last lines (the kubelet's termination
 * message); a failure whose log cannot be read (no kubelet here) still reported without lines;
 * a container not ready only told, and only once the grace has passed on the clock; recovery;
 * and a crash loop without a termination message, whose previous run's log is read through
 * `pods/log` from the node's real kubelet log server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { createStaticPodStateController } from '../../src/operators/kube-apiserver/staticpodstate/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { ensureKubeletApiToken } from '../../src/apiserver/handlers/kubelet-logs.ts';
import { containerLogDir, criLine, previousLogPath } from '../../src/node/logs.ts';
import { startLogServer } from '../../src/node/log-server.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const CRS = refOf(KubeAPIServer);
const SLOW = { timeoutMs: 30_000 };
const MASTERS = ['master-0', 'master-1'];

describe('kube-apiserver static-pod state controller (API server, FakeClock)', () => {
  let rc: RunningControllers;
  let client: ApiClient;
  const clock = new FakeClock(0, { wall: Date.parse('2026-03-01T10:00:00Z') });
  const now = () => formatTimestamp(clock.wallNow()) as unknown as Date;

  const condition = async () => (await client.get<KubeAPIServer>(CRS, undefined, 'cluster')).status?.conditions?.find((c) => c.type === 'StaticPodsDegraded');
  const conditionBecomes = (what: string, test: (c: NonNullable<Awaited<ReturnType<typeof condition>>>) => boolean) =>
    until(what, async () => {
      const c = await condition();
      return c && test(c) ? c : undefined;
    }, SLOW);
  const container = (over: Partial<V1ContainerStatus>): V1ContainerStatus => ({ name: 'kube-apiserver', image: 'shipyard/kube-apiserver', imageID: '', restartCount: 0, ready: true, state: { running: { startedAt: now() } }, ...over });
  const setMirror = async (node: string, c: V1ContainerStatus) => {
    const p = await client.get<V1Pod>(resources.pods, NS, `kube-apiserver-${node}`);
    await client.updateStatus(resources.pods, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: c.ready ? 'True' : 'False', lastTransitionTime: now() }], containerStatuses: [c] } });
  };

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-staticpodstate-test',
        clock,
        seed: async (admin) => {
          for (const crd of operatorCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
          await until('kubeapiservers served', () => admin.list(CRS).then(() => true), { retryErrors: true, ...SLOW });
          await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).catch((e) => {
            if (!isAlreadyExists(e)) throw e;
          });
          for (const node of MASTERS) {
            await admin.create<V1Pod>(resources.pods, {
              metadata: { name: `kube-apiserver-${node}`, namespace: NS, labels: { apiserver: 'true', revision: '1' }, annotations: { 'kubernetes.io/config.mirror': 'x' } },
              spec: { nodeName: node, containers: [{ name: 'kube-apiserver', image: 'shipyard/kube-apiserver' }] },
            });
          }
          const created = await admin.create<KubeAPIServer>(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
          const named = await admin.updateStatus(CRS, { ...created, status: { latestAvailableRevision: 1, nodeStatuses: MASTERS.map((nodeName) => ({ nodeName })) } });
          await admin.updateStatus(CRS, { ...named, status: { ...named.status, nodeStatuses: MASTERS.map((nodeName) => ({ nodeName, currentRevision: 1 })) } });
        },
      },
      (ctx) => [createStaticPodStateController(ctx, { notReadyGraceMs: 120_000, logTimeoutMs: 2_000 })],
    );
    client = rc.client;
    for (const node of MASTERS) await setMirror(node, container({}));
  });
  after(() => rc?.stop());

  it('is False/AsExpected while every replica runs', async () => {
    const c = await conditionBecomes('AsExpected', (c) => c.reason === 'AsExpected');
    assert.equal(c.status, 'False');
    assert.equal(c.message, undefined);
  });

  it('a crash loop on master-1 is Degraded, naming the pod, the container state and the last log lines', async () => {
    await setMirror(
      'master-1',
      container({
        ready: false,
        restartCount: 4,
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=kube-apiserver pod=kube-apiserver-master-1_openshift-kube-apiserver(u)' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'starting kube-apiserver\nError: --config: servingInfo.bindAddress: invalid\n' } },
      }),
    );
    const c = await conditionBecomes('Degraded', (c) => c.status === 'True');
    assert.equal(c.reason, 'Error');
    assert.equal(
      c.message,
      'pod/kube-apiserver-master-1 container "kube-apiserver" is waiting: CrashLoopBackOff: back-off 40s restarting failed container=kube-apiserver pod=kube-apiserver-master-1_openshift-kube-apiserver(u); last log lines:\nstarting kube-apiserver\nError: --config: servingInfo.bindAddress: invalid',
    );
  });

  it('a failure whose log cannot be read is still reported, without lines', async () => {
    await setMirror('master-1', container({ ready: false, state: { terminated: { exitCode: 2, reason: 'Error', finishedAt: now() } } }));
    const c = await conditionBecomes('terminated', (c) => c.message?.includes('is terminated') ?? false);
    assert.equal(c.status, 'True');
    assert.equal(c.message, 'pod/kube-apiserver-master-1 container "kube-apiserver" is terminated: Error: exit code 2');
  });

  it('recovers, and a container not ready is told only after the grace, without Degraded', async () => {
    await setMirror('master-1', container({}));
    await conditionBecomes('AsExpected again', (c) => c.reason === 'AsExpected');
    await setMirror('master-0', container({ ready: false }));
    await sleep(300);
    assert.equal((await condition())?.reason, 'AsExpected', 'within the grace');
    clock.advance(120_000);
    const c = await conditionBecomes('still not ready', (c) => c.reason === 'Error');
    assert.equal(c.status, 'False');
    assert.equal(c.message, 'pod/kube-apiserver-master-0 container "kube-apiserver" is still not ready');
  });

  it("reads a crash-looping container's previous log through pods/log when the kubelet left no message", async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), 'kas-staticpodstate-node-'));
    const pki = join(rc.ts.dataDir, 'pki');
    // master-0's kubelet log server, as the node host starts it: the API server's serving pair and kubelet token.
    const logs = await startLogServer({
      host: '127.1.254.9',
      port: 0,
      tls: { cert: readFileSync(join(pki, 'apiserver.crt'), 'utf8'), key: readFileSync(join(pki, 'apiserver.key'), 'utf8') },
      token: ensureKubeletApiToken(pki),
      nodeDir,
    });
    try {
      const node = await client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'master-0' } });
      await client.updateStatus(resources.nodes, { ...node, status: { addresses: [{ type: 'InternalIP', address: '127.1.254.9' }], daemonEndpoints: { kubeletEndpoint: { Port: logs.port } } } });
      const p = await client.get<V1Pod>(resources.pods, NS, 'kube-apiserver-master-0');
      const dir = containerLogDir(nodeDir, { namespace: NS, name: 'kube-apiserver-master-0', uid: p.metadata!.uid! }, 'kube-apiserver');
      mkdirSync(dir, { recursive: true });
      writeFileSync(previousLogPath(dir), ['serving on 127.1.254.9:6443', 'opening store file:///nowhere/store', 'Error: store: no such directory'].map((l) => criLine('stderr', l)).join(''));
      await setMirror('master-0', container({ ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=kube-apiserver' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }));
      const c = await conditionBecomes('Degraded with the log', (c) => c.status === 'True' && (c.message?.includes('last log lines') ?? false));
      assert.equal(
        c.message,
        'pod/kube-apiserver-master-0 container "kube-apiserver" is waiting: CrashLoopBackOff: back-off 10s restarting failed container=kube-apiserver; last log lines:\nserving on 127.1.254.9:6443\nopening store file:///nowhere/store\nError: store: no such directory',
      );
    } finally {
      await logs.close();
      rmSync(nodeDir, { recursive: true, force: true });
    }
  });
});
