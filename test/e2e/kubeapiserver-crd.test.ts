/**
 * The KubeAPIServer API (issue 17, item 1; slice A) on one API server with a real kubectl: the
 * CRD as `shipyard up` stages it into the release payload (run level 20) applies and becomes
 * Established; `cluster` is created as the payload creates it and gets its log-level
 * defaults; a managementState other than Managed or Force is refused with kube's 422 naming
 * the field; the CEL rules upstream puts on the status hold through the status subresource (at
 * most one node with a non-zero targetRevision, revisions that only increase, nothing set on a
 * new node entry, currentRevision never unset); `kubectl get kubeapiserver` prints Shipyard's
 * LATEST REVISION, NODES AT LATEST, PROGRESSING and DEGRADED; `kubectl explain` describes
 * managementState.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { buildRelease, DEFAULT_RELEASE_VERSION } from '../../src/cli/up/install.ts';
import { openImageStore } from '../../src/node/images.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertCauseField, assertFailureStatus, kubectlFails, kubectlJson, kubectlOk, parseTable, pollUntil, sendJson, type Json } from './support.ts';

const PATH = '/apis/operator.openshift.io/v1/kubeapiservers/cluster';
const MANAGED_PATTERN = "spec.managementState in body should match '^(Managed|Force)$'";

describe('KubeAPIServer CRD (e2e)', { timeout: 300_000 }, () => {
  let ts: TestServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-kubeapiserver-'));
  const ok = (args: readonly string[], input?: string) => kubectlOk(ts, args, input === undefined ? undefined : { input });
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  /** Replaces the status through the status subresource, as the operator's controllers write it. */
  const replaceStatus = async (status: Json) => {
    const current = await kubectlJson(ts, ['kubeapiserver', 'cluster']);
    return ts.kubectl(['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify({ ...current, status }) });
  };
  const statusNow = async () => (await kubectlJson(ts, ['kubeapiserver', 'cluster'])).status ?? {};
  const mustReplaceStatus = async (status: Json) => {
    const r = await replaceStatus(status);
    assert.equal(r.code, 0, `status write refused: ${r.stderr}`);
  };

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the release payload carries the CRD at run level 20 under the operator\'s file name; it applies and becomes Established', async () => {
    buildRelease({ dataDir, images: openImageStore(join(dataDir, 'images')), version: DEFAULT_RELEASE_VERSION, previous: [] });
    const manifests = join(dataDir, 'releases', DEFAULT_RELEASE_VERSION, 'release-manifests', 'manifests');
    const files = readdirSync(manifests).filter((f) => f.startsWith('0000_20_kube-apiserver-operator_'));
    // The operator's manifests share the run level; the CRD comes before the CR that needs it.
    const crdFile = '0000_20_kube-apiserver-operator_01_config.crd.yaml';
    assert.ok(files.includes(crdFile), files.join(', '));
    assert.ok(files.indexOf(crdFile) < files.indexOf('0000_20_kube-apiserver-operator_04_config.cr.yaml'), files.join(', '));
    const crd = parseYaml(readFileSync(join(manifests, crdFile), 'utf8'));
    assert.equal(crd.metadata.name, 'kubeapiservers.operator.openshift.io');
    assert.equal(crd.metadata.annotations['include.release.openshift.io/self-managed-high-availability'], 'true');
    await ok(['apply', '-f', join(manifests, crdFile)]);
    await pollUntil('kubeapiservers.operator.openshift.io Established', async () => {
      const r = await ts.kubectl(['get', 'crd', 'kubeapiservers.operator.openshift.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
      return r.code === 0 && r.stdout.trim() === 'True';
    });
    await pollUntil('kubeapiservers served to kubectl', async () => (await ts.kubectl(['get', 'kubeapiservers'])).code === 0);
  });

  it('cluster, created as the payload creates it, is cluster-scoped and gets logLevel and operatorLogLevel Normal', async () => {
    const manifest = { apiVersion: 'operator.openshift.io/v1', kind: 'KubeAPIServer', metadata: { name: 'cluster', annotations: { 'release.openshift.io/create-only': 'true' } }, spec: { managementState: 'Managed' } };
    assert.match((await ok(['apply', '-f', '-'], JSON.stringify(manifest))).stdout, /kubeapiserver\.operator\.openshift\.io\/cluster created/);
    const cluster = await kubectlJson(ts, ['kubeapiserver', 'cluster']);
    assert.equal(cluster.metadata.namespace, undefined);
    assert.deepEqual(cluster.spec, { managementState: 'Managed', logLevel: 'Normal', operatorLogLevel: 'Normal' });
    // The category lists it beside other operators' CRs.
    assert.match((await ok(['get', 'coreoperators', '-o', 'name'])).stdout, /^kubeapiserver\.operator\.openshift\.io\/cluster$/m);
  });

  it('managementState Unmanaged or Removed is refused with a 422 naming the field; Force is accepted', async () => {
    const r = await kubectlFails(ts, ['patch', 'kubeapiserver', 'cluster', '--type', 'merge', '-p', '{"spec":{"managementState":"Unmanaged"}}']);
    assert.ok(r.stderr.includes(`spec.managementState: Invalid value: "Unmanaged": ${MANAGED_PATTERN}`), r.stderr);
    const raw = await sendJson(ts, 'PATCH', PATH, { spec: { managementState: 'Removed' } }, 'application/merge-patch+json');
    const status = assertFailureStatus({ status: raw.status, body: raw.text }, 422, 'Invalid', 'Removed');
    assertCauseField(status, 'spec.managementState', 'Removed');
    assert.ok(status.message?.includes(`KubeAPIServer.operator.openshift.io "cluster" is invalid: spec.managementState: Invalid value: "Removed": ${MANAGED_PATTERN}`), status.message);
    const created = await kubectlFails(ts, ['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'operator.openshift.io/v1', kind: 'KubeAPIServer', metadata: { name: 'other' }, spec: { managementState: 'Unmanaged' } }),
    });
    assert.ok(created.stderr.includes(MANAGED_PATTERN), created.stderr);
    await ok(['patch', 'kubeapiserver', 'cluster', '--type', 'merge', '-p', '{"spec":{"managementState":"Force"}}']);
    await ok(['patch', 'kubeapiserver', 'cluster', '--type', 'merge', '-p', '{"spec":{"managementState":"Managed"}}']);
    const badLevel = await kubectlFails(ts, ['patch', 'kubeapiserver', 'cluster', '--type', 'merge', '-p', '{"spec":{"logLevel":"Verbose"}}']);
    assert.match(badLevel.stderr, /spec\.logLevel: Unsupported value: "Verbose": supported values: "", "Normal", "Debug", "Trace", "TraceAll"/);
  });

  it('spec keeps free-form observedConfig and unsupportedConfigOverrides as sent, null included', async () => {
    const overrides = { apiServerArguments: { v: ['4'] }, servingInfo: { bindAddres: '0.0.0.0:6443' } };
    // A JSON patch: in a merge patch null means "remove".
    const ops = [
      { op: 'add', path: '/spec/unsupportedConfigOverrides', value: overrides },
      { op: 'add', path: '/spec/observedConfig', value: null },
      { op: 'add', path: '/spec/forceRedeploymentReason', value: 'because' },
      { op: 'add', path: '/spec/succeededRevisionLimit', value: -1 },
    ];
    await ok(['patch', 'kubeapiserver', 'cluster', '--type', 'json', '-p', JSON.stringify(ops)]);
    const spec = (await kubectlJson(ts, ['kubeapiserver', 'cluster'])).spec;
    assert.deepEqual([spec.unsupportedConfigOverrides, spec.observedConfig, spec.forceRedeploymentReason, spec.succeededRevisionLimit], [overrides, null, 'because', -1]);
    await ok(['patch', 'kubeapiserver', 'cluster', '--type', 'json', '-p', '[{"op":"remove","path":"/spec/unsupportedConfigOverrides"},{"op":"remove","path":"/spec/observedConfig"}]']);
  });

  it('status: new node entries are empty; then one node is targeted at a time, and two non-zero targets are refused', async () => {
    const entries = ['master-0', 'master-1', 'master-2'].map((nodeName) => ({ nodeName }));
    const early = await replaceStatus({ latestAvailableRevision: 1, nodeStatuses: [{ nodeName: 'master-0', targetRevision: 1 }] });
    assert.notEqual(early.code, 0);
    assert.ok(early.stderr.includes('status.nodeStatuses[0].targetRevision: Invalid value: "object": targetRevision can not be set on creation of a nodeStatus'), early.stderr);
    const earlyCurrent = await replaceStatus({ nodeStatuses: [{ nodeName: 'master-0', currentRevision: 1 }] });
    assert.ok(earlyCurrent.stderr.includes('status.nodeStatuses[0].currentRevision: Invalid value: "object": currentRevision can not be set on creation of a nodeStatus'), earlyCurrent.stderr);

    await mustReplaceStatus({ latestAvailableRevision: 1, nodeStatuses: entries, nodesAtLatestRevision: '0/3' });
    await mustReplaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0', targetRevision: 1 }, entries[1], entries[2]] });

    const two = await replaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0', targetRevision: 1 }, { nodeName: 'master-1', targetRevision: 1 }, entries[2]] });
    assert.notEqual(two.code, 0);
    assert.ok(two.stderr.includes('status.nodeStatuses: Invalid value: "array": no more than 1 node status may have a nonzero targetRevision'), two.stderr);
    // The same through the raw API: a 422 whose cause names the list.
    const current = await kubectlJson(ts, ['kubeapiserver', 'cluster']);
    const raw = await sendJson(ts, 'PUT', `${PATH}/status`, { ...current, status: { ...current.status, nodeStatuses: [{ nodeName: 'master-0', targetRevision: 1 }, { nodeName: 'master-1', targetRevision: 2 }, entries[2]] } });
    assertCauseField(assertFailureStatus({ status: raw.status, body: raw.text }, 422, 'Invalid', 'two targets'), 'status.nodeStatuses', 'two targets');
    assert.deepEqual((await statusNow()).nodeStatuses, [{ nodeName: 'master-0', targetRevision: 1 }, entries[1], entries[2]], 'nothing written');
  });

  it('status: currentRevision and latestAvailableRevision only go up, and currentRevision is never unset', async () => {
    await mustReplaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0', currentRevision: 1, targetRevision: 0 }, { nodeName: 'master-1' }, { nodeName: 'master-2' }] });
    await mustReplaceStatus({ ...(await statusNow()), latestAvailableRevision: 2 });
    await mustReplaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0', currentRevision: 2, targetRevision: 0 }, { nodeName: 'master-1' }, { nodeName: 'master-2' }] });

    const down = await replaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0', currentRevision: 1 }, { nodeName: 'master-1' }, { nodeName: 'master-2' }] });
    assert.notEqual(down.code, 0);
    assert.ok(down.stderr.includes('status.nodeStatuses[0].currentRevision: Invalid value: "integer": must only increase'), down.stderr);
    const unset = await replaceStatus({ ...(await statusNow()), nodeStatuses: [{ nodeName: 'master-0' }, { nodeName: 'master-1' }, { nodeName: 'master-2' }] });
    assert.ok(unset.stderr.includes('status.nodeStatuses[0].currentRevision: Invalid value: "object": cannot be unset once set'), unset.stderr);
    const latestDown = await replaceStatus({ ...(await statusNow()), latestAvailableRevision: 1 });
    assert.ok(latestDown.stderr.includes('status.latestAvailableRevision: Invalid value: "integer": must only increase'), latestDown.stderr);
    // A merge patch of the status subresource is held to the same rules.
    const patched = await kubectlFails(ts, ['patch', 'kubeapiserver', 'cluster', '--subresource=status', '--type', 'merge', '-p', '{"status":{"latestAvailableRevision":0}}']);
    assert.ok(patched.stderr.includes('status.latestAvailableRevision: Invalid value: "integer": must only increase'), patched.stderr);
    const s = await statusNow();
    assert.deepEqual([s.latestAvailableRevision, s.nodeStatuses[0].currentRevision], [2, 2]);
  });

  it('kubectl get kubeapiserver prints NAME LATEST REVISION NODES AT LATEST PROGRESSING DEGRADED AGE', async () => {
    await mustReplaceStatus({
      ...(await statusNow()),
      nodesAtLatestRevision: '1/3',
      conditions: [
        { type: 'NodeInstallerProgressing', status: 'True', reason: '', message: '2 nodes are at revision 0; 1 node is at revision 2', lastTransitionTime: now() },
        { type: 'NodeInstallerDegraded', status: 'False', lastTransitionTime: now() },
        { type: 'Degraded', status: 'False', reason: 'AsExpected', lastTransitionTime: now() },
      ],
    });
    const table = parseTable((await ok(['get', 'kubeapiserver'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'LATEST REVISION', 'NODES AT LATEST', 'PROGRESSING', 'DEGRADED', 'AGE']);
    assert.deepEqual(table.rows[0]!.slice(0, 5), ['cluster', '2', '1/3', 'True', 'False']);
    assert.match(table.rows[0]![5]!, /^\d+[sm]$/);
  });

  it('kubectl explain kubeapiserver.spec.managementState describes the field', async () => {
    const out = (await ok(['explain', 'kubeapiserver.spec.managementState'])).stdout;
    assert.match(out, /GROUP:\s+operator\.openshift\.io/);
    assert.match(out, /KIND:\s+KubeAPIServer/);
    assert.match(out, /VERSION:\s+v1/);
    assert.match(out, /FIELD: managementState <string>/);
    assert.match(out, /managementState indicates whether and how the operator should manage the\s+component/);
    const status = (await ok(['explain', 'kubeapiserver.status.nodesAtLatestRevision'])).stdout;
    assert.match(status, /Shipyard's, not in OpenShift's API/);
  });
});
