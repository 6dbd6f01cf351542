/**
 * The Machine Config Operator's API (issue 15, item 1) on one API server with a real kubectl:
 * the machineconfiguration.openshift.io CRDs as `shipyard up` stages them into the release
 * payload apply and become Established; the seed's `99-kubeinit-extra-config-worker` applies
 * verbatim and is stored as given; a MachineConfigPool and a KubeletConfig apply;
 * `kubectl get mc` and `kubectl get mcp` print the columns `oc` prints (the pool showing the
 * seed's degraded state); and a MachineConfig whose Ignition could never render is refused
 * with a 422 naming the `spec.config` field, on create and on update.
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
import { assertCauseField, assertFailureStatus, fixture, kubectlFails, kubectlJson, kubectlOk, parseTable, pollUntil, type Json } from './support.ts';

const MC_PATH = '/apis/machineconfiguration.openshift.io/v1/machineconfigs';
const SEED_FILE = '/usr/local/bin/kubeinit_kubevirt_extra_config_script';
const SEED_RENDERED = 'rendered-worker-a9681850fe39078ea0f42bd017922eb7';

describe('machineconfiguration.openshift.io API (e2e)', { timeout: 300_000 }, () => {
  let ts: TestServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-mco-api-'));
  const ok = (args: readonly string[], input?: string) => kubectlOk(ts, args, input === undefined ? undefined : { input });
  const machineConfig = (name: string, config: Json) => ({ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } }, spec: { config } });
  const v3 = (storage: Json) => ({ ignition: { version: '3.4.0' }, storage });
  const file = (path: string, extra: Json = {}) => ({ path, contents: { source: 'data:,hello' }, ...extra });

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    await ts?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the release payload carries the four CRDs at run level 80; they apply and become Established', async () => {
    buildRelease({ dataDir, images: openImageStore(join(dataDir, 'images')), version: DEFAULT_RELEASE_VERSION, previous: [] });
    const manifests = join(dataDir, 'releases', DEFAULT_RELEASE_VERSION, 'release-manifests', 'manifests');
    const files = readdirSync(manifests).filter((f) => f.startsWith('0000_80_machine-config_01_')).sort();
    assert.deepEqual(files, ['controllerconfigs', 'kubeletconfigs', 'machineconfigpools', 'machineconfigs'].map((p) => `0000_80_machine-config_01_${p}.crd.yaml`));
    for (const f of files) assert.equal(parseYaml(readFileSync(join(manifests, f), 'utf8')).spec.group, 'machineconfiguration.openshift.io', f);
    await ok(['apply', ...files.flatMap((f) => ['-f', join(manifests, f)])]);
    for (const plural of ['machineconfigs', 'machineconfigpools', 'kubeletconfigs', 'controllerconfigs']) {
      await pollUntil(`${plural} Established`, async () => {
        const r = await ts.kubectl(['get', 'crd', `${plural}.machineconfiguration.openshift.io`, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
        return r.code === 0 && r.stdout.trim() === 'True';
      });
    }
    // kubectl's discovery must know the short names before the tests below use them.
    await pollUntil('short names served', async () => (await ts.kubectl(['get', 'mc,mcp'])).code === 0);
  });

  it('the seed\'s 99-kubeinit-extra-config-worker applies verbatim and is stored as given', async () => {
    const applied = await ok(['apply', '-f', fixture('99-kubeinit-extra-config-worker.yaml')]);
    assert.match(applied.stdout, /machineconfig\.machineconfiguration\.openshift\.io\/99-kubeinit-extra-config-worker created/);
    const mc = await kubectlJson(ts, ['mc', '99-kubeinit-extra-config-worker']);
    assert.equal(mc.metadata.labels['machineconfiguration.openshift.io/role'], 'worker');
    assert.equal(mc.spec.osImageURL, '');
    const cfg = mc.spec.config;
    assert.equal(cfg.ignition.version, '2.2.0');
    assert.deepEqual(cfg.ignition.config, { replace: { verification: {} } }, 'kept as given, not translated or pruned');
    assert.deepEqual([cfg.networkd, cfg.passwd], [{}, {}]);
    const [f] = cfg.storage.files;
    assert.deepEqual([f.path, f.mode, f.filesystem], [SEED_FILE, 0o755, 'root']);
    assert.match(f.contents.source, /^data:text\/plain;charset=utf-8;base64,IyEvdXNyL2Jpbi9iYXNo/);
    // Applying the same file again changes nothing.
    assert.match((await ok(['apply', '-f', fixture('99-kubeinit-extra-config-worker.yaml')])).stdout, /unchanged/);
  });

  it('kubectl get mc prints NAME GENERATEDBYCONTROLLER IGNITIONVERSION AGE', async () => {
    const generated = machineConfig('00-worker', v3({ files: [file('/etc/motd')] }));
    (generated.metadata as Json).annotations = { 'machineconfiguration.openshift.io/generated-by-controller-version': 'shipyard-0.1.0' };
    await ok(['apply', '-f', '-'], JSON.stringify(generated));
    const table = parseTable((await ok(['get', 'mc'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'GENERATEDBYCONTROLLER', 'IGNITIONVERSION', 'AGE']);
    const rows = Object.fromEntries(table.rows.map((r) => [r[0], r.slice(1)]));
    assert.deepEqual(rows['00-worker']!.slice(0, 2), ['shipyard-0.1.0', '3.4.0']);
    assert.deepEqual(rows['99-kubeinit-extra-config-worker']!.slice(0, 2), ['', '2.2.0']);
    assert.match(rows['00-worker']![2]!, /^\d+s$/);
  });

  it('a MachineConfigPool applies, and kubectl get mcp prints the seed\'s degraded worker pool as oc does', async () => {
    const pool = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: {
        machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
        maxUnavailable: '10%',
        paused: false,
      },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(pool));
    const stored = await kubectlJson(ts, ['mcp', 'worker']);
    assert.equal(stored.spec.maxUnavailable, '10%');
    await ok(['patch', 'mcp', 'worker', '--type', 'merge', '-p', '{"spec":{"maxUnavailable":2}}']);
    assert.equal((await kubectlJson(ts, ['mcp', 'worker'])).spec.maxUnavailable, 2, 'an integer is as good as a percentage');

    const at = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = (type: string, status: string, message = '') => ({ type, status, lastTransitionTime: at, reason: '', message });
    const status = {
      observedGeneration: stored.metadata.generation,
      configuration: { name: SEED_RENDERED, source: [{ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', name: '00-worker' }] },
      machineCount: 1,
      updatedMachineCount: 0,
      readyMachineCount: 0,
      unavailableMachineCount: 1,
      degradedMachineCount: 1,
      conditions: [
        condition('Updated', 'False'),
        condition('Updating', 'True', 'All nodes are updating to MachineConfig rendered-worker-7131e04f110c489a0ad171e719cedc24'),
        condition('NodeDegraded', 'True', 'Node worker-0 is reporting: "failed to drain node worker-0"'),
        condition('RenderDegraded', 'False'),
        condition('Degraded', 'True', 'Node worker-0 is reporting: "failed to drain node worker-0"'),
      ],
    };
    const current = await kubectlJson(ts, ['mcp', 'worker']);
    await ok(['replace', '--subresource=status', '-f', '-'], JSON.stringify({ ...current, status }));

    const table = parseTable((await ok(['get', 'mcp', 'worker'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'CONFIG', 'UPDATED', 'UPDATING', 'DEGRADED', 'MACHINECOUNT', 'READYMACHINECOUNT', 'UPDATEDMACHINECOUNT', 'DEGRADEDMACHINECOUNT', 'AGE']);
    assert.deepEqual(table.rows[0]!.slice(0, 9), ['worker', SEED_RENDERED, 'False', 'True', 'True', '1', '0', '0', '1']);
    assert.match(table.rows[0]![9]!, /^\d+s$/);
    const long = parseTable((await ok(['get', 'machineconfigpool/worker'])).stdout);
    assert.deepEqual(long.rows[0]!.slice(0, 9), table.rows[0]!.slice(0, 9), 'the full name and the short name are one resource');
  });

  it('a KubeletConfig applies with its kubelet configuration kept as sent; logLevel is bounded', async () => {
    const kc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'KubeletConfig',
      metadata: { name: 'max-pods' },
      spec: { machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } }, kubeletConfig: { maxPods: 50, evictionHard: { 'memory.available': '200Mi' } } },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(kc));
    const stored = await kubectlJson(ts, ['kubeletconfig', 'max-pods']);
    assert.deepEqual(stored.spec.kubeletConfig, { maxPods: 50, evictionHard: { 'memory.available': '200Mi' } });
    const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify({ ...kc, metadata: { name: 'loud' }, spec: { ...kc.spec, logLevel: 11 } }) });
    assert.match(r.stderr, /spec\.logLevel: Invalid value: 11: spec\.logLevel in body should be less than or equal to 10/);
  });

  it('kubectl get machineconfiguration lists the group\'s objects together', async () => {
    const out = (await ok(['get', 'machineconfiguration', '-o', 'name'])).stdout.split('\n').filter(Boolean).sort();
    assert.deepEqual(out, [
      'kubeletconfig.machineconfiguration.openshift.io/max-pods',
      'machineconfig.machineconfiguration.openshift.io/00-worker',
      'machineconfig.machineconfiguration.openshift.io/99-kubeinit-extra-config-worker',
      'machineconfigpool.machineconfiguration.openshift.io/worker',
    ]);
  });

  const refused: Array<{ what: string; name: string; config: Json; field: string; detail: RegExp }> = [
    { what: 'an unknown Ignition version, listing the supported ones', name: 'bad-version', config: { ignition: { version: '3.9.0' } }, field: 'spec.config.ignition.version', detail: /unsupported config version "3\.9\.0" \(supported: 2\.2\.0, 3\.0\.0, 3\.1\.0, 3\.2\.0, 3\.3\.0, 3\.4\.0\)/ },
    { what: 'a data URL that does not decode', name: 'bad-data-url', config: v3({ files: [{ path: '/etc/a', contents: { source: 'data:text/plain;base64,@@not-base64@@' } }] }), field: 'spec.config.storage.files[0].contents.source', detail: /invalid data URL: malformed base64/ },
    { what: 'a relative path', name: 'relative-path', config: v3({ files: [file('etc/motd')] }), field: 'spec.config.storage.files[0].path', detail: /must be absolute \(got "etc\/motd"\)/ },
    { what: 'a mode above 0777', name: 'setuid', config: v3({ files: [file('/usr/local/bin/x', { mode: 0o4755 })] }), field: 'spec.config.storage.files[0].mode', detail: /invalid mode 04755 for \/usr\/local\/bin\/x, cannot exceed 0777/ },
    { what: 'one path twice in one config', name: 'duplicate-path', config: v3({ files: [file('/etc/a'), file('/etc/a')] }), field: 'spec.config.storage.files[1].path', detail: /duplicate path "\/etc\/a" \(also storage\.files\[0\]\)/ },
  ];

  for (const c of refused) {
    it(`refuses ${c.what} with a 422 naming ${c.field}`, async () => {
      const body = machineConfig(c.name, c.config);
      const res = await ts.request('POST', MC_PATH, { body: JSON.stringify(body), contentType: 'application/json', accept: 'application/json' });
      const s = assertFailureStatus(res, 422, 'Invalid', c.name);
      assertCauseField(s, c.field, c.name);
      assert.match(s.message!, new RegExp(`^MachineConfig\\.machineconfiguration\\.openshift\\.io "${c.name}" is invalid: `));
      assert.match(s.details!.causes!.find((x) => x.field === c.field)!.message!, c.detail);
      assert.deepEqual([s.details!.kind, s.details!.group, s.details!.name], ['MachineConfig', 'machineconfiguration.openshift.io', c.name]);
      const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(body) });
      assert.ok(r.stderr.includes(`The MachineConfig "${c.name}" is invalid: ${c.field}: `), r.stderr);
      assert.match(r.stderr, c.detail);
      assert.equal((await ts.kubectl(['get', 'mc', c.name])).code, 1, 'nothing was stored');
    });
  }

  it('refuses an update that breaks the config, and takes one that fixes it', async () => {
    await ok(['apply', '-f', '-'], JSON.stringify(machineConfig('99-update', v3({ files: [file('/etc/a')] }))));
    const r = await kubectlFails(ts, ['patch', 'mc', '99-update', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/config/storage/files/0/path","value":"etc/a"}]']);
    assert.match(r.stderr, /The MachineConfig "99-update" is invalid: spec\.config\.storage\.files\[0\]\.path: Invalid value: "etc\/a": must be absolute/);
    assert.equal((await kubectlJson(ts, ['mc', '99-update'])).spec.config.storage.files[0].path, '/etc/a');
    await ok(['patch', 'mc', '99-update', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/config/storage/files/0/path","value":"/etc/b"}]']);
    assert.equal((await kubectlJson(ts, ['mc', '99-update'])).spec.config.storage.files[0].path, '/etc/b');
  });

  it('a ControllerConfig with OpenShift\'s required fields applies, embedding Infrastructure and DNS', async () => {
    const cc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: { name: 'machine-config-controller' },
      spec: {
        clusterDNSIP: '127.64.0.10',
        cloudProviderConfig: '',
        kubeAPIServerServingCAData: Buffer.from('ca').toString('base64'),
        rootCAData: Buffer.from('root').toString('base64'),
        cloudProviderCAData: null,
        additionalTrustBundle: null,
        images: {},
        baseOSContainerImage: 'shipyard.local/rhcos:0.1.0',
        releaseImage: 'shipyard.local/release:0.1.0',
        proxy: null,
        infra: { apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'None' } }, status: { platformStatus: { type: 'None' }, apiServerInternalURI: 'https://127.0.0.1:6443' } },
        dns: { apiVersion: 'config.openshift.io/v1', kind: 'DNS', metadata: { name: 'cluster' }, spec: { baseDomain: 'shipyard.local', platform: { type: '' } } },
        ipFamilies: 'IPv4',
        network: { mtuMigration: null },
      },
    };
    await ok(['create', '-f', '-'], JSON.stringify(cc));
    const stored = await kubectlJson(ts, ['controllerconfig', 'machine-config-controller']);
    assert.equal(stored.spec.infra.status.apiServerInternalURI, 'https://127.0.0.1:6443');
    assert.equal(stored.spec.proxy, null);
    const bad = structuredClone(cc);
    bad.metadata.name = 'aws-dns';
    (bad.spec.dns.spec.platform as Json).type = 'GCP';
    const r = await kubectlFails(ts, ['create', '-f', '-'], { input: JSON.stringify(bad) });
    assert.match(r.stderr, /spec\.dns\.spec\.platform\.type: Invalid value: "string": allowed values are '' and 'AWS'/);
  });
});
