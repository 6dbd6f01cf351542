/**
 * The status writer against the real Shipyard API server: a status that does not change is not
 * written, a write from a stale copy re-reads and applies its mutations again on what another
 * writer left, and a status whose object is gone or replaced by a namesake reports it gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1PodDisruptionBudget, type V1PodDisruptionBudgetStatus } from '@kubernetes/client-node';
import { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../src/runtime/update-status.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Status = V1PodDisruptionBudgetStatus;
const PDB = resources.podDisruptionBudgets;

describe('updateStatus (API server)', () => {
  let ts: TestServer;
  let client: ApiClient;

  before(async () => {
    ts = await startTestServer();
    const kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kc, { userAgent: 'update-status-test' });
  });
  after(async () => {
    client.close();
    await ts.stop();
  });

  const budget = (name: string): Promise<V1PodDisruptionBudget> =>
    client.create<V1PodDisruptionBudget>(PDB, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } });
  const counts = (s: Status, expected: number): Status => ({ ...s, currentHealthy: s.currentHealthy ?? 0, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: expected });

  it('writes what the mutations make of the status, and nothing when that is what the server holds', async () => {
    const pdb = await budget('steady');
    const first = await updateStatus<Status, V1PodDisruptionBudget>(client, statusTargetOf(PDB, pdb), (s) => counts(s, 2));
    assert.equal(first.changed, true);
    assert.equal(first.object?.status?.expectedPods, 2);
    const again = await updateStatus<Status, V1PodDisruptionBudget>(client, statusTargetOf(PDB, first.object!), (s) => counts(s, 2));
    assert.equal(again.changed, false);
    assert.equal(again.object?.metadata?.resourceVersion, first.object?.metadata?.resourceVersion, 'no write');
  });

  it('from a stale copy: the 409 makes it read again and apply the mutation to what another writer left', async () => {
    const stale = await budget('contended');
    const other = await updateStatus<Status, V1PodDisruptionBudget>(client, statusTargetOf(PDB, stale), (s) => ({ ...counts(s, 3), currentHealthy: 3 }));
    assert.equal(other.changed, true);
    let calls = 0;
    const mine = await updateStatus<Status, V1PodDisruptionBudget>(client, statusTargetOf(PDB, stale), (s) => {
      calls++;
      return { ...s, disruptionsAllowed: (s.currentHealthy ?? 0) - 1, desiredHealthy: 1, expectedPods: s.expectedPods ?? 0, currentHealthy: s.currentHealthy ?? 0 };
    });
    assert.equal(calls, 2, 'applied to the stale copy, then again to the fresh read');
    assert.deepEqual([mine.changed, mine.object?.status?.currentHealthy, mine.object?.status?.disruptionsAllowed], [true, 3, 2]);
  });

  it('reports a deleted object, or a namesake created since, as gone without writing', async () => {
    await budget('gone');
    await client.delete(PDB, 'default', 'gone');
    assert.deepEqual(await updateStatus<Status>(client, { resource: PDB, namespace: 'default', name: 'gone' }, (s) => counts(s, 1)), { object: undefined, changed: false });

    const old = await budget('namesake');
    await client.delete(PDB, 'default', 'namesake');
    await budget('namesake');
    // The cached copy is stale (409) and the fresh read has another uid: not the object asked about.
    assert.deepEqual(await updateStatus<Status>(client, statusTargetOf(PDB, old), (s) => counts(s, 1)), { object: undefined, changed: false });
  });
});
