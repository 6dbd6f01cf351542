/**
 * The seed's ClusterVersion override, pasted as the kube-apiserver operator's README writes it
 * (`group: apps/v1`), through a real kubectl: the API server accepts it as written and answers
 * with a `Warning` header, which kubectl prints, saying the group is `apps` (issue 17, item 9).
 * The CVO side of it (matching `apps/v1` to `apps`) is unit-tested in src/release/payload.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClusterVersion, configCRDs } from '../../src/api/config/index.ts';
import { fixture, kubectlJson, kubectlOk, pollUntil } from '../e2e/support.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// The seed's patch, verbatim but for the heredoc (kubectl, like oc, takes a YAML patch).
const seedPatch = readFileSync(fixture('seed-002-override.yaml'), 'utf8');
const warning = 'Warning: spec.overrides[0].group: "apps/v1" names a group and a version; the group is "apps"';

describe('ClusterVersion overrides: a group written as an apiVersion', { timeout: 90_000 }, () => {
  let ts: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-cv-overrides-'));

  before(async () => {
    ts = await startTestServer();
    for (const crd of configCRDs()) writeFileSync(join(dir, `${crd.metadata.name}.json`), JSON.stringify(crd));
    await kubectlOk(ts, ['apply', '-f', dir]);
    await pollUntil('clusterversions Established', async () => {
      const r = await ts.kubectl(['get', 'crd', 'clusterversions.config.openshift.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
      return r.code === 0 && r.stdout.trim() === 'True';
    });
    await kubectlOk(ts, ['create', '-f', '-'], { input: JSON.stringify({ apiVersion: ClusterVersion.apiVersion, kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: '3f1c2d4e-0000-4000-8000-000000000001' } }) });
  });
  after(async () => {
    await ts?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl patch with the seed\'s override succeeds, prints the warning and stores the group as written', async () => {
    const r = await kubectlOk(ts, ['patch', 'clusterversion/version', '--type=merge', '-p', seedPatch]);
    assert.match(r.stdout, /clusterversion.config.openshift.io\/version patched/);
    assert.ok(r.stderr.split('\n').includes(warning), `kubectl printed the warning: ${r.stderr}`);
    const cv = await kubectlJson(ts, ['clusterversion', 'version']);
    assert.equal(cv.spec.overrides[0].group, 'apps/v1', 'the server warns; it does not rewrite what the admin wrote');
  });

  it('warns on every write of the main resource that still carries it, and not on status writes or a corrected group', async () => {
    const cv = await kubectlJson(ts, ['clusterversion', 'version']);
    const replaced = await kubectlOk(ts, ['replace', '-f', '-'], { input: JSON.stringify(cv) });
    assert.ok(replaced.stderr.includes(warning), `replace warns: ${replaced.stderr}`);
    const status = await kubectlOk(ts, ['patch', 'clusterversion/version', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { desired: { version: '0.1.0', image: 'shipyard.local/release:0.1.0' }, observedGeneration: 1, versionHash: 'h', availableUpdates: [] } })]);
    assert.doesNotMatch(status.stderr, /Warning/);
    const fixed = await kubectlOk(ts, ['patch', 'clusterversion/version', '--type=json', '-p', '[{"op":"replace","path":"/spec/overrides/0/group","value":"apps"}]']);
    assert.doesNotMatch(fixed.stderr, /Warning/);
    const core = await kubectlOk(ts, ['patch', 'clusterversion/version', '--type=json', '-p', '[{"op":"add","path":"/spec/overrides/-","value":{"group":"v1","kind":"ConfigMap","name":"c","namespace":"n","unmanaged":true}}]']);
    assert.ok(core.stderr.includes('Warning: spec.overrides[1].group: "v1" is a version; the group is "" (the core group)'), core.stderr);
  });

  it('a create carrying it warns too', async () => {
    await kubectlOk(ts, ['delete', 'clusterversion', 'version']);
    const r = await kubectlOk(ts, ['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: ClusterVersion.apiVersion, kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: '3f1c2d4e-0000-4000-8000-000000000001', overrides: [{ group: 'apps/v1', kind: 'Deployment', name: 'x', namespace: 'y', unmanaged: true }] } }),
    });
    assert.ok(r.stderr.includes(warning), r.stderr);
  });
});
