/**
 * The config.openshift.io CRDs (src/api/config) on the real API server, read back with a real
 * kubectl: every CRD applies and becomes Established, and `kubectl get clusterversion` and
 * `kubectl get clusteroperators` print the columns `oc` prints, filled from status through the
 * JSONPath filters of the printer columns.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatTimestamp } from '../../src/api/time.ts';
import { ClusterOperator, ClusterVersion, configCRDs, recordHistory, setConditions, type ClusterOperatorStatusCondition } from '../../src/api/config/index.ts';
import { kubectlJson, kubectlOk, parseTable, pollUntil } from '../e2e/support.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('config.openshift.io CRDs on the API server', { timeout: 90_000 }, () => {
  let ts: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-config-crds-'));
  const ok = (args: readonly string[], input?: string) => kubectlOk(ts, args, input === undefined ? undefined : { input });
  const minutesAgo = (m: number) => formatTimestamp(Date.now() - m * 60_000);
  /** Replaces the status as controllers write it (an update of /status, not a merge patch: merge patches drop nulls inside lists). */
  const writeStatus = async (resource: string, name: string, status: unknown) => {
    const obj = await kubectlJson(ts, [resource, name]);
    await ok(['replace', '--subresource=status', '-f', '-'], JSON.stringify({ ...obj, status }));
  };

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every CRD with kubectl apply -f and each becomes Established', async () => {
    for (const crd of configCRDs()) writeFileSync(join(dir, `${crd.metadata.name}.json`), JSON.stringify(crd, null, 2));
    await ok(['apply', '-f', dir]);
    for (const crd of configCRDs()) {
      await pollUntil(`${crd.metadata.name} Established`, async () => {
        const r = await ts.kubectl(['get', 'crd', crd.metadata.name, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
        return r.code === 0 && r.stdout.trim() === 'True';
      });
    }
    const stored = await kubectlJson(ts, ['crd', 'clusteroperators.config.openshift.io']);
    assert.deepEqual(stored.status.acceptedNames.shortNames, ['co']);
    // Applying the same manifests again changes nothing.
    const again = await ok(['apply', '-f', dir]);
    assert.match(again.stdout, /unchanged/);
  });

  it('kubectl get clusterversion prints NAME VERSION AVAILABLE PROGRESSING SINCE STATUS', async () => {
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: ClusterVersion.apiVersion, kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: '3f1c2d4e-0000-4000-8000-000000000001', channel: 'stable-0.1' } }));
    const now = minutesAgo(3);
    let history = recordHistory(undefined, { version: '0.1.0', image: 'shipyard.local/release:0.1.0' }, { completed: false, now: minutesAgo(10) });
    history = recordHistory(history, { version: '0.1.0', image: 'shipyard.local/release:0.1.0' }, { completed: true, now });
    history = recordHistory(history, { version: '0.2.0', image: 'shipyard.local/release:0.2.0' }, { completed: false, now });
    const conditions = setConditions<ClusterOperatorStatusCondition>(
      [],
      [
        { type: 'Available', status: 'True', message: 'Done applying 0.1.0' },
        { type: 'Failing', status: 'False' },
        { type: 'Progressing', status: 'True', message: 'Working towards 0.2.0: 3 of 7 done (42% complete)' },
      ],
      now,
    );
    const status = { desired: { version: '0.2.0', image: 'shipyard.local/release:0.2.0' }, history, observedGeneration: 1, versionHash: 'r2O9TIYBt74=', availableUpdates: null, conditions };
    await writeStatus('clusterversion', 'version', status);

    const table = parseTable((await ok(['get', 'clusterversion'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'SINCE', 'STATUS']);
    assert.equal(table.rows.length, 1);
    const [name, version, available, progressing, since, message] = table.rows[0]!;
    assert.deepEqual([name, version, available, progressing, message], ['version', '0.1.0', 'True', 'True', 'Working towards 0.2.0: 3 of 7 done (42% complete)']);
    assert.match(since!, /^3m(\d+s)?$/);

    const stored = await kubectlJson(ts, ['clusterversion', 'version']);
    assert.equal(stored.status.history[1].completionTime, now);
    assert.equal(stored.status.history[0].completionTime, null, 'a null completionTime survives validation and pruning');
    assert.equal(stored.status.availableUpdates, null);
  });

  it('kubectl get clusteroperators (and co) prints NAME VERSION AVAILABLE PROGRESSING DEGRADED SINCE MESSAGE', async () => {
    for (const name of ['machine-api', 'kube-apiserver']) {
      await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: ClusterOperator.apiVersion, kind: 'ClusterOperator', metadata: { name }, spec: {} }));
    }
    const conditions = (progressing: string) =>
      setConditions<ClusterOperatorStatusCondition>(
        [],
        [
          { type: 'Available', status: 'True', reason: 'AsExpected', message: 'Cluster Machine API Operator is available at operator: 0.1.0' },
          { type: 'Progressing', status: progressing === '' ? 'False' : 'True', reason: 'SyncingResources', message: progressing },
          { type: 'Degraded', status: 'False', reason: 'AsExpected' },
          { type: 'Upgradeable', status: 'True', reason: 'AsExpected' },
        ],
        minutesAgo(5),
      );
    const status = (progressing: string) => ({
      conditions: conditions(progressing),
      versions: [{ name: 'operator', version: '0.1.0' }, { name: 'operand', version: '9.9.9' }],
      relatedObjects: [{ group: '', resource: 'namespaces', name: 'openshift-machine-api' }],
    });
    await writeStatus('clusteroperator', 'machine-api', status('Progressing towards operator: 0.2.0'));
    await writeStatus('clusteroperator', 'kube-apiserver', status(''));

    for (const resource of ['clusteroperators', 'co']) {
      const table = parseTable((await ok(['get', resource])).stdout);
      assert.deepEqual(table.header, ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE']);
      const rows = Object.fromEntries(table.rows.map((r) => [r[0], r.slice(1)]));
      const [version, available, progressing, degraded, since, message] = rows['machine-api']!;
      assert.deepEqual([version, available, progressing, degraded, message], ['0.1.0', 'True', 'True', 'False', 'Progressing towards operator: 0.2.0']);
      assert.match(since!, /^5m(\d+s)?$/);
      assert.deepEqual(rows['kube-apiserver']!.slice(0, 4), ['0.1.0', 'True', 'False', 'False']);
      assert.equal(rows['kube-apiserver']![5], '', 'no message for a settled operator');
    }
  });

  it('serves the config singletons', async () => {
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'External', external: {} } } }));
    const status = { infrastructureName: 'shipyard-x1', platform: 'None', platformStatus: { type: 'None' }, apiServerURL: 'https://127.0.0.1:6443', apiServerInternalURI: 'https://127.0.0.1:6443', controlPlaneTopology: 'HighlyAvailable' };
    await writeStatus('infrastructure', 'cluster', status);
    const infra = await kubectlJson(ts, ['infrastructure', 'cluster']);
    assert.equal(infra.spec.platformSpec.external.platformName, 'Unknown', 'spec defaults apply');
    assert.deepEqual(infra.status, { ...status, infrastructureTopology: 'HighlyAvailable', cpuPartitioning: 'None' }, 'status defaults apply to /status writes');

    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'Network', metadata: { name: 'cluster' }, spec: { clusterNetwork: [{ cidr: '127.128.0.0/9', hostPrefix: 24 }], serviceNetwork: ['127.64.0.0/16'], networkType: 'Shipyard' }, status: { networkType: 'Shipyard' } }));
    const network = await kubectlJson(ts, ['network', 'cluster']);
    assert.deepEqual(network.spec.clusterNetwork, [{ cidr: '127.128.0.0/9', hostPrefix: 24 }]);
    assert.equal(network.status.networkType, 'Shipyard', 'Network has no status subresource: status is written with the object');

    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'Image', metadata: { name: 'cluster' }, spec: { registrySources: { insecureRegistries: ['shipyard.local'] } } }));
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: { featureSet: '' } }));
    await writeStatus('featuregate', 'cluster', { featureGates: [{ version: '0.1.0', enabled: [{ name: 'MachineAPIMigration' }], disabled: [] }] });
    const gates = await kubectlJson(ts, ['featuregate', 'cluster']);
    assert.deepEqual(gates.status.featureGates[0].enabled, [{ name: 'MachineAPIMigration' }]);

    const refused = await ts.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'second' }, spec: { channel: 'x' } }) });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec\.clusterID: Required value/);
  });

  it('checks a status written through /status against the schema, as kube-apiserver does', async () => {
    await writeStatus('infrastructure', 'cluster', { platform: 'None' });
    const infra = await kubectlJson(ts, ['infrastructure', 'cluster']);
    assert.equal(infra.status.controlPlaneTopology, 'HighlyAvailable', 'status defaults apply');
    const cv = await kubectlJson(ts, ['clusterversion', 'version']);
    const bad = await ts.kubectl(['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify({ ...cv, status: { ...cv.status, observedGeneration: 'one', versionHash: undefined } }) });
    assert.notEqual(bad.code, 0, 'a status of the wrong shape is refused');
    assert.match(bad.stderr, /status\.versionHash: Required value/);
  });
});
