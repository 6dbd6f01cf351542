/**
 * The Machine API's API (issue 16, slice A) on one API server with a real kubectl: the CRDs as
 * `shipyard up` stages them into the release payload (run level 30) apply and become
 * Established; the seed's healthchecking.openshift.io/v1alpha1 MachineHealthCheck applies
 * verbatim; a worker MachineSet, a master Machine and a MachineHealthCheck as OpenShift users
 * write them apply, with OpenShift's defaults filled in; `kubectl get machines|machinesets|mhc`
 * print the columns `oc` prints; `kubectl scale machineset` works through the scale
 * subresource; a MachineSet whose selector misses its template, or is empty, or changes, is
 * refused with a 422 naming the field; and `kubectl explain` describes the schema.
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
import { assertCauseField, assertFailureStatus, fixture, getObject, kubectlFails, kubectlJson, kubectlOk, parseTable, pollUntil, sendJson, type Json } from './support.ts';

const NS = 'openshift-machine-api';
const MS_PATH = `/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinesets`;
const SET = 'cluster-worker-a';

describe('Machine API CRDs (e2e)', { timeout: 300_000 }, () => {
  let ts: TestServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-machine-api-'));
  const ok = (args: readonly string[], input?: string) => kubectlOk(ts, args, input === undefined ? undefined : { input });
  const inNs = (...args: string[]) => [...args, '-n', NS];
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
  /** Writes `status` through the status subresource, as the controllers do. */
  const writeStatus = async (resource: string, name: string, status: Json) => {
    const current = await kubectlJson(ts, inNs(resource, name));
    await ok(inNs('replace', '--subresource=status', '-f', '-'), JSON.stringify({ ...current, status }));
  };
  const machineSet = (name: string, selector: Json, labels: Record<string, string>) => ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name, namespace: NS },
    spec: { selector, template: { metadata: { labels }, spec: { providerSpec: { value: { instanceType: 's.large' } } } } },
  });

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the release payload carries the four CRDs at run level 30; they apply and become Established', async () => {
    buildRelease({ dataDir, images: openImageStore(join(dataDir, 'images')), version: DEFAULT_RELEASE_VERSION, previous: [] });
    const manifests = join(dataDir, 'releases', DEFAULT_RELEASE_VERSION, 'release-manifests', 'manifests');
    const files = readdirSync(manifests)
      .filter((f) => f.startsWith('0000_30_machine-api-operator_01_') && f.endsWith('.crd.yaml'))
      .sort();
    assert.deepEqual(files, [
      '0000_30_machine-api-operator_01_machinehealthchecks.crd.yaml',
      '0000_30_machine-api-operator_01_machinehealthchecks.healthchecking.openshift.io.crd.yaml',
      '0000_30_machine-api-operator_01_machines.crd.yaml',
      '0000_30_machine-api-operator_01_machinesets.crd.yaml',
    ]);
    const names = files.map((f) => parseYaml(readFileSync(join(manifests, f), 'utf8')).metadata.name);
    for (const f of files) assert.equal(parseYaml(readFileSync(join(manifests, f), 'utf8')).metadata.annotations['include.release.openshift.io/self-managed-high-availability'], 'true', f);
    await ok(['apply', ...files.flatMap((f) => ['-f', join(manifests, f)])]);
    for (const name of names) {
      await pollUntil(`${name} Established`, async () => {
        const r = await ts.kubectl(['get', 'crd', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
        return r.code === 0 && r.stdout.trim() === 'True';
      });
    }
    await ok(['create', 'namespace', NS]);
    // kubectl's discovery must know the short names before the tests below use them.
    await pollUntil('short names served', async () => (await ts.kubectl(inNs('get', 'ma,ms,mhc,mhcs'))).code === 0);
  });

  it('the seed\'s healthchecking.openshift.io/v1alpha1 MachineHealthCheck applies verbatim and is stored as given', async () => {
    const applied = await ok(['apply', '-f', fixture('machinehealthcheck-v1alpha1.yaml')]);
    assert.match(applied.stdout, /machinehealthcheck\.healthchecking\.openshift\.io\/example created/);
    const mhc = await kubectlJson(ts, ['machinehealthchecks.healthchecking.openshift.io', 'example', '-n', 'default']);
    assert.equal(mhc.apiVersion, 'healthchecking.openshift.io/v1alpha1');
    assert.deepEqual(mhc.spec, {
      selector: {
        matchLabels: {
          'machine.openshift.io/cluster-api-cluster': 'cluster',
          'machine.openshift.io/cluster-api-machine-role': 'worker',
          'machine.openshift.io/cluster-api-machine-type': 'worker',
          'machine.openshift.io/cluster-api-machineset': 'cluster-worker-us-east-1a',
        },
      },
    });
    assert.match((await ok(['apply', '-f', fixture('machinehealthcheck-v1alpha1.yaml')])).stdout, /unchanged/);
    // The short name is the v1beta1 kind's alone.
    assert.equal((await kubectlJson(ts, ['mhc', '-n', 'default'])).items.length, 0);
  });

  it('a worker MachineSet, a master Machine and a MachineHealthCheck as OpenShift users write them apply, defaults filled in', async () => {
    const applied = await ok(['apply', '-f', fixture('machine-api-worker.yaml')]);
    assert.match(applied.stdout, /machineset\.machine\.openshift\.io\/cluster-worker-a created/);
    assert.match(applied.stdout, /machine\.machine\.openshift\.io\/cluster-master-0 created/);
    assert.match(applied.stdout, /machinehealthcheck\.machine\.openshift\.io\/workers created/);
    const set = await kubectlJson(ts, inNs('machineset', SET));
    assert.deepEqual(set.spec.template.spec.providerSpec.value, { instanceType: 's.large', zone: 'a', userDataSecret: { name: 'worker-user-data' } }, 'providerSpec kept as sent');
    assert.deepEqual(set.spec.template.spec.lifecycleHooks.preDrain, [{ name: 'EtcdQuorumOperator', owner: 'clusteroperator/etcd' }]);
    const machine = await kubectlJson(ts, inNs('ma', 'cluster-master-0'));
    assert.deepEqual(machine.spec.taints, [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]);
    const mhc = await kubectlJson(ts, inNs('mhc', 'workers'));
    assert.deepEqual([mhc.spec.maxUnhealthy, mhc.spec.nodeStartupTimeout, mhc.spec.unhealthyConditions.length], ['40%', '10m', 2]);

    // Left out, replicas is 1; maxUnhealthy 100%, nodeStartupTimeout 10m, unhealthyConditions Ready False/Unknown 300s.
    const bare = machineSet('bare', { matchLabels: { app: 'bare' } }, { app: 'bare' });
    await ok(['apply', '-f', '-'], JSON.stringify(bare));
    assert.equal((await kubectlJson(ts, inNs('ms', 'bare'))).spec.replicas, 1);
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineHealthCheck', metadata: { name: 'defaults', namespace: NS }, spec: { selector: {} } }));
    const defaulted = await kubectlJson(ts, inNs('mhc', 'defaults'));
    assert.deepEqual(defaulted.spec, {
      selector: {},
      maxUnhealthy: '100%',
      nodeStartupTimeout: '10m',
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeout: '300s' },
        { type: 'Ready', status: 'Unknown', timeout: '300s' },
      ],
    });
  });

  it('MachineHealthCheck takes maxUnhealthy as a number or a percentage, and refuses what is neither', async () => {
    await ok(inNs('patch', 'mhc', 'defaults', '--type', 'merge', '-p', '{"spec":{"maxUnhealthy":0}}'));
    assert.equal((await kubectlJson(ts, inNs('mhc', 'defaults'))).spec.maxUnhealthy, 0);
    const r = await kubectlFails(ts, inNs('patch', 'mhc', 'defaults', '--type', 'merge', '-p', '{"spec":{"maxUnhealthy":"150%"}}'));
    assert.match(r.stderr, /spec\.maxUnhealthy: Invalid value: "150%": spec\.maxUnhealthy in body should match '\^\(\(100\|\[0-9\]\{1,2\}\)%\|\[0-9\]\+\)\$'/);
    const t = await kubectlFails(ts, inNs('patch', 'mhc', 'defaults', '--type', 'merge', '-p', '{"spec":{"unhealthyConditions":[{"type":"Ready","status":"False","timeout":"5 minutes"}]}}'));
    assert.match(t.stderr, /spec\.unhealthyConditions\[0\]\.timeout: Invalid value: "5 minutes"/);
    const empty = await kubectlFails(ts, inNs('patch', 'mhc', 'defaults', '--type', 'merge', '-p', '{"spec":{"unhealthyConditions":[]}}'));
    assert.match(empty.stderr, /spec\.unhealthyConditions: Invalid value: 0: spec\.unhealthyConditions in body should have at least 1 items/);
  });

  it('kubectl get machines prints NAME PHASE TYPE REGION ZONE AGE, and -o wide NODE PROVIDERID STATE, as oc does', async () => {
    await ok(inNs('annotate', 'machine', 'cluster-master-0', 'machine.openshift.io/instance-state=running'));
    await ok(inNs('patch', 'machine', 'cluster-master-0', '--type', 'merge', '-p', '{"spec":{"providerID":"shipyard://local/a/i-0001"}}'));
    await writeStatus('machine', 'cluster-master-0', { phase: 'Running', nodeRef: { kind: 'Node', name: 'master-0', uid: 'u-1' }, addresses: [{ type: 'InternalIP', address: '127.1.0.2' }], lastUpdated: ago(0) });
    const table = parseTable((await ok(inNs('get', 'machines'))).stdout);
    assert.deepEqual(table.header, ['NAME', 'PHASE', 'TYPE', 'REGION', 'ZONE', 'AGE']);
    assert.deepEqual(table.rows[0]!.slice(0, 5), ['cluster-master-0', 'Running', 's.xlarge', 'local', 'a']);
    assert.match(table.rows[0]![5]!, /^\d+s$/);
    const wide = parseTable((await ok(inNs('get', 'ma', '-o', 'wide'))).stdout);
    assert.deepEqual(wide.header, ['NAME', 'PHASE', 'TYPE', 'REGION', 'ZONE', 'AGE', 'NODE', 'PROVIDERID', 'STATE']);
    assert.deepEqual(wide.rows[0]!.slice(6), ['master-0', 'shipyard://local/a/i-0001', 'running']);
  });

  it('kubectl get machinesets prints NAME DESIRED CURRENT READY AVAILABLE AGE, and kubectl scale machineset sets spec.replicas', async () => {
    await writeStatus('machineset', SET, { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1, labelSelector: 'machine.openshift.io/cluster-api-cluster=cluster,machine.openshift.io/cluster-api-machineset=cluster-worker-a' });
    const table = parseTable((await ok(inNs('get', 'machinesets', SET))).stdout);
    assert.deepEqual(table.header, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AVAILABLE', 'AGE']);
    assert.deepEqual(table.rows[0]!.slice(0, 5), [SET, '1', '1', '1', '1']);

    const scaled = await ok(['scale', 'machineset', SET, '--replicas=3', '-n', NS]);
    assert.match(scaled.stdout, /machineset\.machine\.openshift\.io\/cluster-worker-a scaled/);
    const set = await kubectlJson(ts, inNs('ms', SET));
    assert.equal(set.spec.replicas, 3);
    assert.equal(set.status.replicas, 1, 'status is the controller\'s to change');
    const scale = await getObject(ts, `${MS_PATH}/${SET}/scale`);
    assert.deepEqual([scale.kind, scale.apiVersion, scale.spec.replicas, scale.status.replicas], ['Scale', 'autoscaling/v1', 3, 1]);
    assert.equal(scale.status.selector, 'machine.openshift.io/cluster-api-cluster=cluster,machine.openshift.io/cluster-api-machineset=cluster-worker-a');
    assert.deepEqual(parseTable((await ok(inNs('get', 'ms', SET))).stdout).rows[0]!.slice(1, 3), ['3', '1']);
    // Only when the current count still is what the caller saw, as kubectl scale --current-replicas asks.
    const stale = await kubectlFails(ts, ['scale', 'machineset', SET, '--current-replicas=2', '--replicas=0', '-n', NS]);
    assert.match(stale.stderr, /Expected replicas to be 2, was 3/);
    await ok(['scale', 'machineset', SET, '--current-replicas=3', '--replicas=0', '-n', NS]);
    assert.equal((await kubectlJson(ts, inNs('ms', SET))).spec.replicas, 0);
  });

  it('kubectl get mhc prints NAME MAXUNHEALTHY EXPECTEDMACHINES CURRENTHEALTHY', async () => {
    await writeStatus('mhc', 'workers', { expectedMachines: 3, currentHealthy: 2, remediationsAllowed: 0, conditions: [{ type: 'RemediationAllowed', status: 'True', lastTransitionTime: ago(0) }] });
    const table = parseTable((await ok(inNs('get', 'mhc', 'workers'))).stdout);
    assert.deepEqual(table.header, ['NAME', 'MAXUNHEALTHY', 'EXPECTEDMACHINES', 'CURRENTHEALTHY']);
    assert.deepEqual(table.rows, [['workers', '40%', '3', '2']]);
  });

  const refused: Array<{ what: string; name: string; selector: Json; labels: Record<string, string>; field: string; message: RegExp }> = [
    {
      what: 'a matchLabels value the template lacks',
      name: 'bad-labels',
      selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': 'other' } },
      labels: { 'machine.openshift.io/cluster-api-machineset': 'bad-labels' },
      field: 'spec.template.metadata.labels',
      message: /spec\.template\.metadata\.labels: Invalid value: \{"machine\.openshift\.io\/cluster-api-machineset":"bad-labels"\}: `selector` does not match template `labels`/,
    },
    {
      what: 'a matchExpressions In the template misses',
      name: 'bad-in',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] },
      labels: { tier: 'silver' },
      field: 'spec.template.metadata.labels',
      message: /`selector` does not match template `labels`/,
    },
    {
      what: 'a DoesNotExist the template breaks',
      name: 'bad-dne',
      selector: { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'spot', operator: 'DoesNotExist' }] },
      labels: { tier: 'gold', spot: 'true' },
      field: 'spec.template.metadata.labels',
      message: /`selector` does not match template `labels`/,
    },
    { what: 'an empty selector', name: 'bad-empty', selector: {}, labels: { tier: 'gold' }, field: 'spec.selector', message: /spec\.selector: Invalid value: \{\}: empty selector is not valid for MachineSet\./ },
  ];

  for (const c of refused) {
    it(`refuses a MachineSet with ${c.what} with a 422 naming ${c.field}`, async () => {
      const body = machineSet(c.name, c.selector, c.labels);
      const res = await ts.request('POST', MS_PATH, { body: JSON.stringify(body), contentType: 'application/json', accept: 'application/json' });
      const s = assertFailureStatus(res, 422, 'Invalid', c.name);
      assertCauseField(s, c.field, c.name);
      assert.match(s.message!, new RegExp(`^MachineSet\\.machine\\.openshift\\.io "${c.name}" is invalid: `));
      assert.match(s.message!, c.message);
      assert.deepEqual([s.details!.kind, s.details!.group, s.details!.name], ['MachineSet', 'machine.openshift.io', c.name]);
      const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(body) });
      assert.ok(r.stderr.includes(`The MachineSet "${c.name}" is invalid: ${c.field}: `), r.stderr);
      assert.equal((await ts.kubectl(inNs('get', 'ms', c.name))).code, 1, 'nothing was stored');
    });
  }

  it('refuses a change of selector, and an update that breaks the template\'s match, naming the field', async () => {
    const r = await kubectlFails(ts, inNs('patch', 'ms', 'bare', '--type', 'merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"bare","tier":"gold"}},"template":{"metadata":{"labels":{"app":"bare","tier":"gold"}}}}}'));
    assert.match(r.stderr, /The MachineSet "bare" is invalid: spec\.selector: Forbidden: selector is immutable/);
    const broken = await sendJson(ts, 'PATCH', `${MS_PATH}/bare`, { spec: { template: { metadata: { labels: { app: 'other' } } } } }, 'application/merge-patch+json');
    const s = assertFailureStatus({ status: broken.status, body: broken.text }, 422, 'Invalid', 'bare');
    assertCauseField(s, 'spec.template.metadata.labels', 'bare');
    await ok(inNs('patch', 'ms', 'bare', '--type', 'merge', '-p', '{"spec":{"template":{"metadata":{"labels":{"app":"bare","extra":"yes"}}}}}'));
    assert.deepEqual((await kubectlJson(ts, inNs('ms', 'bare'))).spec.template.metadata.labels, { app: 'bare', extra: 'yes' });
  });

  it('kubectl explain machineset.spec.deletePolicy describes the policy and lists its values', async () => {
    const out = (await ok(['explain', 'machineset.spec.deletePolicy'])).stdout;
    assert.match(out, /GROUP:\s+machine\.openshift\.io/);
    assert.match(out, /FIELD: deletePolicy <string>/);
    assert.match(out, /DESCRIPTION:\s+Which Machines go first when scaling down: Random \(the default\), Newest or\s+Oldest\./);
    assert.match(out, /ENUM:\s+Random\s+Newest\s+Oldest/);
    const mhc = (await ok(['explain', 'mhc.spec.unhealthyConditions'])).stdout;
    assert.match(mhc, /FIELD: unhealthyConditions <\[\]Object>/);
    assert.match(mhc, /timeout\t<string> -required-/);
  });
});
