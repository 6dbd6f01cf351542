/**
 * A payload Job is a barrier for the CVO (issue 14, item 2): planned as a level of its own, and
 * in an update the manifests after it are not applied until the Job has completed. One sync
 * pass runs with the CVO's own planner, apply and health layers against a real API server with
 * the Job controller running; the test plays the kubelet and finishes the Job's pod.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject, V1ConfigMap, V1Job, V1Pod } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createJobController } from '../../src/cluster/job/controller.ts';
import { applyManifest, checkHealth } from '../../src/runtime/apply/index.ts';
import { planPayload } from '../../src/operators/cluster-version/payload.ts';
import { runSyncPass, type PlannedManifest, type SyncResult } from '../../src/operators/cluster-version/sync-worker.ts';
import { isNotFound, type ApiClient } from '../../src/runtime/client.ts';
import { resources, type ResourceRef } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'default';

interface Manifest extends PlannedManifest {
  readonly ref: ResourceRef;
  readonly object: KubernetesObject;
}

const configMap = (file: string, name: string): Manifest => ({
  file,
  index: 0,
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: NS,
  name,
  ref: resources.configMaps,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { step: name } } as V1ConfigMap,
});

const migration: Manifest = {
  file: '0000_10_storage_02_migration-job.yaml',
  index: 0,
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespace: NS,
  name: 'storage-migration',
  ref: resources.jobs,
  object: {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'storage-migration', namespace: NS },
    spec: { backoffLimit: 2, template: { spec: { containers: [{ name: 'migrate', image: 'example/migrator:1' }], restartPolicy: 'Never' } } },
  } as V1Job,
};

describe('the CVO waits at a payload Job until it completes', { timeout: 120_000 }, () => {
  let cluster: RunningControllers;
  let client: ApiClient;

  before(async () => {
    cluster = await startControllers({ userAgent: 'cvo-job-barrier-test' }, (ctx) => createJobController(ctx));
    ({ client } = cluster);
  });
  after(() => cluster?.stop());

  const exists = async (name: string): Promise<boolean> => {
    try {
      await client.get(resources.configMaps, NS, name);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  };

  it('applies what comes before the Job, then nothing after it until the Job is Complete', async () => {
    const manifests = [configMap('0000_10_storage_01_before.yaml', 'before'), migration, configMap('0000_10_storage_03_after.yaml', 'after')];
    const plan = planPayload(manifests, 'update');
    assert.deepEqual(plan.map((level) => level.map((node) => node.map((m) => m.name))), [[['before']], [['storage-migration']], [['after']]], 'the Job is a level of its own');

    const abort = new AbortController();
    let result: SyncResult | undefined;
    const pass = runSyncPass({
      mode: 'update',
      plan,
      parallelism: 4,
      // Patient enough for the test to finish the pod: the CVO itself would report JobNotComplete and come back next pass.
      backoff: { initialMs: 50, factor: 1.5, capMs: 500, steps: 1000 },
      signal: abort.signal,
      apply: async (m) => void (await applyManifest(client, (m as Manifest).ref, (m as Manifest).object)),
      health: (m) => checkHealth(client, (m as Manifest).ref, (m as Manifest).object, { mode: 'update' }),
      remove: async () => {},
    }).then((r) => (result = r));
    try {
      const [pod] = await until('the Job\'s pod', async () => {
        const pods = (await client.list<V1Pod>(resources.pods, NS, { labelSelector: 'batch.kubernetes.io/job-name=storage-migration' })).items;
        return pods.length === 1 ? pods : undefined;
      }, 30_000);
      assert.equal(await exists('before'), true, 'the manifest before the Job was applied');
      // The Job controller counts the pod in its status a moment after creating it.
      const waiting = await until('the Job to count its pod active', async () => {
        const h = await checkHealth(client, resources.jobs, migration.object, { mode: 'update' });
        return !h.ok && h.message?.includes('active=1') ? h : undefined;
      });
      assert.deepEqual(waiting, { ok: false, reason: 'JobNotComplete', message: `job ${NS}/storage-migration has not completed: active=1, succeeded=0, failed=0`, retryable: true });
      assert.equal(await exists('after'), false, 'nothing after the Job while it runs');
      assert.equal(result, undefined, 'the pass is still waiting at the Job');

      // The migration finishes; the barrier lifts.
      const at = formatTimestamp();
      await client.patch(resources.pods, NS, pod!.metadata!.name!, { status: { phase: 'Succeeded', containerStatuses: [{ name: 'migrate', image: 'example/migrator:1', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at } } }] } }, { subresource: 'status' });
      const done = await until('the pass over', async () => result, 60_000);
      assert.deepEqual(done.failures, []);
      assert.equal(done.done, 3);
      assert.equal(await exists('after'), true, 'the manifest after the Job applied once it completed');
      const job = await client.get<V1Job>(resources.jobs, NS, 'storage-migration');
      assert.equal(job.status?.conditions?.find((c) => c.type === 'Complete')?.status, 'True');
    } finally {
      abort.abort();
      await pass;
    }
  });
});
