/**
 * Node Lease renewals against a real API server: in the caller's thread (LeaseRenewals) and on
 * the heartbeat thread a kubelet host runs them on, including a thread that dies and is
 * started again with the Leases it was renewing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1Lease } from '@kubernetes/client-node';
import pino from 'pino';
import { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { LeaseRenewals, type Renewal } from '../../src/node/heartbeat/lease-renewals.ts';
import { startHeartbeatThread } from '../../src/node/heartbeat/heartbeat-thread.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from './support.ts';

const renewTime = (l: V1Lease | undefined): number => Date.parse(String(l?.spec?.renewTime ?? ''));

describe('node lease renewals', () => {
  let ts: TestServer;
  let kubeConfig: KubeConfig;
  let client: ApiClient;
  const lease = (name: string): Promise<V1Lease | undefined> => client.get<V1Lease>(resources.leases, 'kube-node-lease', name).catch(() => undefined);

  before(async () => {
    ts = await startTestServer();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig);
  });

  after(async () => {
    client?.close();
    await ts?.stop();
  });

  /**
   * Renews a Lease of its own in this thread, every 50 ms, until it has done so `times` times.
   * It stands in for "a while" after a stop: long enough for a loop of the same period that
   * should have stopped to show (as the witness was timed by the same busy machine), and its
   * writes queue behind any renewal that was already in flight at the stop.
   */
  let witnesses = 0;
  async function witness(times: number): Promise<void> {
    const done: Renewal[] = [];
    const w = new LeaseRenewals(client, (r) => done.push(r));
    try {
      w.set({ nodeName: `witness-${++witnesses}`, durationSeconds: 40, renewMs: 50 });
      await until(`${times} renewals of the witness`, () => done.filter((r) => r.ok).length >= times);
    } finally {
      await w.close();
    }
  }

  it('create the Lease at once, renew it each interval, write the owner when the uid is known, and stop on delete', async (t) => {
    const renewals: Renewal[] = [];
    const leases = new LeaseRenewals(client, (r) => renewals.push(r));
    t.after(() => leases.close());
    leases.set({ nodeName: 'lr-a', durationSeconds: 40, renewMs: 50 });
    const first = await until('the Lease', () => lease('lr-a'));
    assert.equal(first.spec?.holderIdentity, 'lr-a');
    assert.equal(first.spec?.leaseDurationSeconds, 40);
    assert.equal(first.metadata?.ownerReferences, undefined, 'no owner before the Node uid is known');
    // The microsecond form the Lease API uses.
    assert.match(String((await ts.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/lr-a')).body), /"renewTime":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/);

    leases.set({ nodeName: 'lr-a', nodeUid: 'uid-of-lr-a', durationSeconds: 60, renewMs: 50 });
    const owned = await until('the owner and new duration', async () => {
      const l = await lease('lr-a');
      return l?.metadata?.ownerReferences?.[0]?.uid === 'uid-of-lr-a' && l.spec?.leaseDurationSeconds === 60 && l;
    });
    assert.deepEqual(owned.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['Node', 'lr-a', 'uid-of-lr-a']]);
    const t0 = renewTime(owned);
    await until('a later renewal', async () => renewTime(await lease('lr-a')) > t0);
    assert.ok(renewals.length >= 3 && renewals.every((r) => r.ok && r.nodeName === 'lr-a' && r.ms >= 0), `${renewals.length} renewals reported`);

    leases.delete('lr-a');
    assert.equal(leases.size, 0);
    await witness(3); // a renewal in flight at delete may still land
    const stopped = renewTime(await lease('lr-a'));
    const count = renewals.length;
    await witness(3);
    assert.equal(renewTime(await lease('lr-a')), stopped, 'no renewal after delete');
    assert.equal(renewals.length, count);
  });

  it('report a failed renewal and keep trying', async (t) => {
    const renewals: Renewal[] = [];
    // A name the API rejects: every renewal fails.
    const leases = new LeaseRenewals(client, (r) => renewals.push(r));
    t.after(() => leases.close());
    leases.set({ nodeName: 'Not_A_Valid_Name', durationSeconds: 40, renewMs: 30 });
    await until('two failed renewals', () => renewals.length >= 2);
    await leases.close();
    assert.ok(renewals.every((r) => !r.ok && /Not_A_Valid_Name/.test(r.error ?? '')), JSON.stringify(renewals[0]));
  });

  it('on the heartbeat thread without reportAll: report failures only, not each healthy renewal', async () => {
    const renewals: Renewal[] = [];
    const thread = startHeartbeatThread({ kubeConfig, logger: pino({ level: 'silent' }), onRenewal: (r) => renewals.push(r) });
    try {
      thread.set({ nodeName: 'hb-quiet', durationSeconds: 40, renewMs: 50 });
      thread.set({ nodeName: 'Not_A_Valid_Name', durationSeconds: 40, renewMs: 50 });
      const first = await until('hb-quiet Lease from the thread', () => lease('hb-quiet'), 30_000);
      await until('hb-quiet renewed again', async () => renewTime(await lease('hb-quiet')) > renewTime(first));
      await until('two failures reported', () => renewals.length >= 2);
    } finally {
      await thread.close();
    }
    assert.ok(renewals.every((r) => !r.ok && r.nodeName === 'Not_A_Valid_Name'), JSON.stringify(renewals.map((r) => [r.nodeName, r.ok])));
  });

  it('on the heartbeat thread: renew, stop on delete, come back after the thread dies, and end on close', async () => {
    const renewals: Renewal[] = [];
    const thread = startHeartbeatThread({ kubeConfig, logger: pino({ level: 'silent' }), restartDelayMs: 50, reportAll: true, onRenewal: (r) => renewals.push(r) });
    try {
      thread.set({ nodeName: 'hb-a', nodeUid: 'uid-hb-a', durationSeconds: 40, renewMs: 50 });
      thread.set({ nodeName: 'hb-b', durationSeconds: 40, renewMs: 50 });
      const a = await until('hb-a Lease from the thread', () => lease('hb-a'), 30_000);
      assert.equal(a.metadata?.ownerReferences?.[0]?.uid, 'uid-hb-a');
      await until('hb-b Lease from the thread', () => lease('hb-b'));
      await until('renewals of both reported back', () => new Set(renewals.filter((r) => r.ok).map((r) => r.nodeName)).size === 2);
      assert.notEqual(thread.worker?.threadId, undefined);

      thread.delete('hb-b');
      await witness(3); // a renewal in flight at delete may still land
      const bStopped = renewTime(await lease('hb-b'));

      // The thread dies: it is started again and renews what it renewed before (hb-a only).
      const dead = thread.worker!;
      await dead.terminate();
      await until('the thread to be started again', () => thread.restarts === 1 && thread.worker !== undefined && thread.worker !== dead);
      const reportedBefore = renewals.length;
      const before = renewTime(await lease('hb-a'));
      await until('hb-a renewed by the new thread', async () => renewTime(await lease('hb-a')) > before, 30_000);
      await until('three renewals of hb-a reported by the new thread', () => renewals.slice(reportedBefore).filter((r) => r.ok && r.nodeName === 'hb-a').length >= 3);
      assert.equal(renewTime(await lease('hb-b')), bStopped, 'a deleted Lease is not renewed by the new thread');
      assert.deepEqual(renewals.slice(reportedBefore).filter((r) => r.nodeName === 'hb-b'), [], 'nor reported');
    } finally {
      await thread.close();
    }
    assert.equal(thread.worker, undefined, 'the thread has exited');
    await witness(3); // a renewal in flight at close may still land
    const closedAt = renewTime(await lease('hb-a'));
    await witness(3);
    assert.equal(renewTime(await lease('hb-a')), closedAt, 'no renewal after close');
    assert.equal(thread.restarts, 1, 'a closed thread is not restarted');
  });
});
