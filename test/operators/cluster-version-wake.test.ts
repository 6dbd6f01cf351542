/**
 * The CVO passes again as soon as a ClusterOperator it waited on changes its availability,
 * degradation or versions, not after the failure backoff. The real CVO runs against a real
 * API server with a one-release payload loaded by the project's own payload reader; the test
 * plays the operator and reports it Available through the operators' own status writer.
 *
 * The reconcile interval is an hour, so the failure backoff after a failed pass is three to
 * four and a half minutes: ClusterVersion turning Available within the 60 s deadline can only
 * come from the wake-up.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { configCRDs, type ClusterOperator, type ClusterVersion } from '../../src/api/config/index.ts';
import { createClusterVersionOperator } from '../../src/operators/cluster-version/operator.ts';
import { loadPayloadDir, type LoadedPayload } from '../../src/operators/cluster-version/payload.ts';
import type { PayloadSource } from '../../src/operators/cluster-version/payload-source.ts';
import type { TaskBackoff } from '../../src/operators/cluster-version/sync-worker.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { reportClusterOperatorStatus } from '../../src/runtime/cluster-operator-status.ts';
import { resources, type ResourceRef } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { until } from '../support/until.ts';

const VERSION = '4.99.0';
const RELEASE_IMAGE = `shipyard.local/release:${VERSION}`;
const OPERATOR = 'test-operator';
/** Where the payload's last manifest goes: until it exists, that manifest is retried and the pass stays open. */
const LATE_NS = 'test-wake-late';
const HOUR = 3_600_000;
/** Patient: a manifest the API refuses is retried for minutes within one pass, so only the test ends the pass. */
const patient: TaskBackoff = { initialMs: 50, factor: 2, capMs: 250, steps: 2000 };

/**
 * The operator (waited on), then a Job (a level of its own in every mode, so once it exists
 * the pass has finished looking at the operator), then a ConfigMap in a namespace that may
 * not exist yet.
 */
const manifests: Record<string, string> = {
  '0000_50_test-operator_07_clusteroperator.yaml': `apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata:
  name: ${OPERATOR}
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec: {}
status:
  versions:
  - name: operator
    version: "${VERSION}"
`,
  '0000_60_test-barrier_00_job.yaml': `apiVersion: batch/v1
kind: Job
metadata:
  name: wake-barrier
  namespace: default
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: barrier
        image: example.invalid/barrier:1
`,
  '0000_70_test-late_00_configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: late
  namespace: ${LATE_NS}
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
data:
  step: late
`,
};

/** A release directory as the release image carries it, read back by the CVO's own loader. */
function writePayload(dir: string): LoadedPayload {
  mkdirSync(join(dir, 'manifests'));
  for (const [file, text] of Object.entries(manifests)) writeFileSync(join(dir, 'manifests', file), text);
  writeFileSync(join(dir, 'release-metadata'), JSON.stringify({ kind: 'cincinnati-metadata-v0', version: VERSION, previous: [] }));
  writeFileSync(join(dir, 'image-references'), JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: VERSION }, spec: { tags: [] } }));
  return loadPayloadDir(dir, RELEASE_IMAGE);
}

/** Only its own release: nothing here asks for another. */
const payloadSource = (payload: LoadedPayload): PayloadSource => ({
  own: async () => payload,
  load: async (image) => {
    throw new Error(`this test has no release ${image}`);
  },
  imageForVersion: (version) => `shipyard.local/release:${version}`,
});

const condition = (cv: ClusterVersion | undefined, type: string) => cv?.status?.conditions?.find((c) => c.type === type);

const clusterVersion = (client: ApiClient): Promise<ClusterVersion | undefined> => client.getIfExists<ClusterVersion>(resources.clusterVersions, undefined, 'version');

const exists = async (client: ApiClient, ref: ResourceRef, namespace: string, name: string): Promise<boolean> => (await client.getIfExists(ref, namespace, name)) !== undefined;

/** What the operator writes once it runs the release: Available, not Degraded, at the payload's version. */
const reportAvailable = (client: ApiClient): Promise<boolean> =>
  reportClusterOperatorStatus(client, OPERATOR, {
    available: { status: 'True', reason: 'AsExpected', message: 'the test operator is running' },
    progressing: { status: 'False', reason: 'AsExpected' },
    degraded: { status: 'False', reason: 'AsExpected' },
    versions: [{ name: 'operator', version: VERSION }],
  });

/** ClusterVersion Available with the release's history entry Completed, within the generous deadline. */
const untilInstalled = (client: ApiClient): Promise<ClusterVersion> =>
  until(
    'ClusterVersion Available with its install Completed',
    async () => {
      const cv = await clusterVersion(client);
      return condition(cv, 'Available')?.status === 'True' && cv?.status?.history?.[0]?.state === 'Completed' ? cv : undefined;
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );

describe('the CVO wakes when a ClusterOperator it waited on changes', { timeout: 150_000 }, () => {
  let dir: string;
  let payload: LoadedPayload;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'shipyard-cvo-wake-'));
    payload = writePayload(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const start = (userAgent: string, seed: (client: ApiClient) => Promise<void> = async () => {}): Promise<RunningControllers> =>
    startControllers(
      {
        userAgent,
        seed: async (client) => {
          await createEstablishedCRDs(client, configCRDs());
          // As the installer does. A CVO that finds none creates it and looks again a second
          // later, and that second look would start a pass of its own.
          await client.create<ClusterVersion>(resources.clusterVersions, { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: randomUUID(), channel: '' } });
          await seed(client);
        },
      },
      (ctx) => [createClusterVersionOperator(ctx, { releaseImage: RELEASE_IMAGE, payloads: payloadSource(payload), reconcileIntervalMs: HOUR, taskBackoff: patient })],
    );

  it('reads the payload the test wrote', () => {
    assert.deepEqual(
      payload.manifests.map((m) => `${m.kind} ${m.name}`),
      [`ClusterOperator ${OPERATOR}`, 'Job wake-barrier', 'ConfigMap late'],
    );
  });

  it('a failed pass runs again as soon as the operator reports Available, not after the failure backoff', async (t) => {
    const cluster = await start('cvo-wake-after-pass', async (client) => {
      await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LATE_NS } });
    });
    t.after(() => cluster.stop());
    const { client } = cluster;

    const failed = await until(
      'the first pass to fail on the operator',
      async () => {
        const cv = await clusterVersion(client);
        return condition(cv, 'Failing')?.status === 'True' ? cv : undefined;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    assert.deepEqual(
      { reason: condition(failed, 'Failing')?.reason, message: condition(failed, 'Failing')?.message },
      { reason: 'ClusterOperatorNotAvailable', message: `Cluster operator ${OPERATOR} is not available (ClusterOperator ${OPERATOR} from 0000_50_test-operator_07_clusteroperator.yaml)` },
    );
    assert.equal(condition(failed, 'Available')?.status, 'False');
    assert.equal(failed.status?.history?.[0]?.state, 'Partial');
    assert.equal(await exists(client, resources.configMaps, LATE_NS, 'late'), true, 'the rest of the payload was applied in that pass');

    await reportAvailable(client);
    const installed = await untilInstalled(client);
    assert.equal(condition(installed, 'Failing')?.status, 'False');
    assert.equal(installed.status?.history?.[0]?.version, VERSION);
  });

  it('a change after the pass last looked at the operator, while the pass still runs, leads to a new pass when it ends', async (t) => {
    const cluster = await start('cvo-wake-during-pass');
    t.after(() => cluster.stop());
    const { client } = cluster;

    // The Job is planned after the operator's level: once it exists, the pass has given up on the
    // operator (not available) and sits at the ConfigMap, which it retries until its namespace exists.
    await until('the pass to reach the Job', () => exists(client, resources.jobs, 'default', 'wake-barrier'), { timeoutMs: 60_000, everyMs: 50 });
    assert.equal(await exists(client, resources.configMaps, LATE_NS, 'late'), false);
    assert.notEqual(condition(await clusterVersion(client), 'Failing')?.status, 'True', 'the pass has not ended');

    await reportAvailable(client);
    // The CVO's own informer (shared through the harness's factory) runs its handlers as it
    // stores an update: once the store shows the report, the CVO has seen it while its pass ran.
    const operators = cluster.informers.existing<ClusterOperator>(resources.clusterOperators);
    assert.ok(operators, 'the CVO watches ClusterOperators');
    await until('the CVO to see the report', () => operators.store.get(OPERATOR)?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True'), { timeoutMs: 30_000 });
    assert.equal(await exists(client, resources.configMaps, LATE_NS, 'late'), false, 'the pass is still running');

    // The pass can now finish; it fails on the operator it looked at before the report.
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LATE_NS } });
    const installed = await untilInstalled(client);
    assert.equal(condition(installed, 'Failing')?.status, 'False');
    assert.equal(await exists(client, resources.configMaps, LATE_NS, 'late'), true);
  });
});
