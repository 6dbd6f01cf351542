/**
 * A custom release (issue 17, item 8; the seed's bootstrap-phase workflow): an image imported
 * for a component the payload deploys (`config-operator`, the built-in launcher under a new
 * reference), `shipyard release new --from-release 0.1.0 config-operator=<image> --to-image
 * <ref>` (with the kube-apiserver operator replaced too, as the seed does), then `shipyard up
 * --release-image <ref>` on one schedulable master. The operators' Deployments run the imported
 * images (the kube-apiserver operator's installer pods too), the CVO runs the custom release image, and ClusterVersion
 * names it (`kubectl get clusterversion -o wide`). Refusals (an unknown component, an image not
 * imported) are checked with the CLI first, before the cluster starts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseTable, pollUntil, type Json } from './support.ts';
import { kubectlWith, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';

const COMPONENT_IMAGE = 'example.test/e2e/config-operator:custom';
/** The seed's own case: a developer's kube-apiserver operator in the release the cluster installs from. */
const KAS_OPERATOR_IMAGE = 'example.test/e2e/cluster-kube-apiserver-operator:custom';
const RELEASE = 'example.test/e2e/release:custom';
const launcher = fileURLToPath(new URL('../../bin/components/config-operator.js', import.meta.url));
const kasOperatorLauncher = fileURLToPath(new URL('../../bin/components/cluster-kube-apiserver-operator.js', import.meta.url));

describe('a custom release installed with shipyard up --release-image (e2e)', { timeout: 600_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-custom-release-'));
  const kubectl = kubectlWith(join(dataDir, 'kubeconfig'));
  const { ok, json } = strictKubectl(kubectl);
  let up: UpProcess | undefined;
  const newRelease = (...images: string[]) => runShipyard(['release', 'new', '--from-release', '0.1.0', ...images, '--to-image', RELEASE, '--data-dir', dataDir], 120_000);

  before(async () => {
    const missing = await newRelease(`config-operator=${COMPONENT_IMAGE}`);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, new RegExp(`image ${COMPONENT_IMAGE} is not in the local image store of .*; import it first: shipyard image import ${COMPONENT_IMAGE}`));

    const imported = await runShipyard(['image', 'import', COMPONENT_IMAGE, '--entrypoint', launcher, '--data-dir', dataDir]);
    assert.equal(imported.code, 0, imported.stderr);
    const importedKas = await runShipyard(['image', 'import', KAS_OPERATOR_IMAGE, '--entrypoint', kasOperatorLauncher, '--data-dir', dataDir]);
    assert.equal(importedKas.code, 0, importedKas.stderr);

    const unknown = await newRelease(`no-such-operator=${COMPONENT_IMAGE}`);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /the release has no component no-such-operator; its components are: .*\bconfig-operator\b.*\bmachine-api-operator\b/);

    const made = await newRelease(`config-operator=${COMPONENT_IMAGE}`, `cluster-kube-apiserver-operator=${KAS_OPERATOR_IMAGE}`);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, new RegExp(`Created release ${RELEASE} \\(version 0\\.1\\.0\\) from shipyard\\.local/release:0\\.1\\.0`));
    const info = await runShipyard(['release', 'info', RELEASE, '--data-dir', dataDir]);
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, /From:\s+shipyard\.local\/release:0\.1\.0/);
    assert.match(info.stdout, new RegExp(`config-operator\\s+${COMPONENT_IMAGE}\\s+\\(replaced\\)`));
    assert.match(info.stdout, new RegExp(`cluster-kube-apiserver-operator\\s+${KAS_OPERATOR_IMAGE}\\s+\\(replaced\\)`));

    up = startUp(dataDir, ['--masters', '1', '--workers', '0', '--masters-schedulable', '--release-image', RELEASE, '--api-port', '21443', '--cloud-port', '21080']);
    await up.ready(420_000);
  });

  after(() => stopUp(up, dataDir));

  it('the install summary names the custom release image', () => {
    assert.match(up!.output(), new RegExp(`release image:\\s+${RELEASE}`));
  });

  it('the replaced component runs the imported image', async () => {
    const deployment = await json(['deployment', 'openshift-config-operator', '-n', 'openshift-config-operator']);
    assert.equal(deployment.spec.template.spec.containers[0].image, COMPONENT_IMAGE);
    const pod = await pollUntil(
      'a Ready config-operator pod of the imported image',
      async () => ((await json(['pods', '-n', 'openshift-config-operator'])).items as Json[]).find((p) => p.status?.containerStatuses?.some((c: Json) => c.image === COMPONENT_IMAGE && c.ready)),
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    assert.equal(pod.spec.containers[0].image, COMPONENT_IMAGE);
    // The others keep the source release's images.
    const mao = await json(['deployment', 'machine-api-operator', '-n', 'openshift-machine-api']);
    assert.equal(mao.spec.template.spec.containers[0].image, 'shipyard.local/machine-api-operator:v0.1.0');
  });

  it('the kube-apiserver operator of the custom release runs, and its installer pods run its image too', async () => {
    const deployment = await json(['deployment', 'kube-apiserver-operator', '-n', 'openshift-kube-apiserver-operator']);
    assert.equal(deployment.spec.template.spec.containers[0].image, KAS_OPERATOR_IMAGE);
    assert.equal(deployment.spec.template.spec.containers[0].env.find((e: Json) => e.name === 'OPERATOR_IMAGE')?.value, KAS_OPERATOR_IMAGE);
    await pollUntil(
      'master-0 at revision 1 or later',
      async () => ((await json(['kubeapiserver', 'cluster'])).status?.nodeStatuses ?? []).some((n: Json) => n.nodeName === 'master-0' && n.currentRevision >= 1),
      { timeoutMs: 240_000, intervalMs: 1000 },
    );
    const installers = ((await json(['pods', '-n', 'openshift-kube-apiserver', '-l', 'app=installer'])).items as Json[]);
    assert.ok(installers.length >= 1, 'an installer pod ran');
    for (const p of installers) assert.equal(p.spec.containers[0].image, KAS_OPERATOR_IMAGE, p.metadata.name);
  });

  it('the CVO runs the custom release, and kubectl get clusterversion shows it', async () => {
    const cvo = await json(['deployment', 'cluster-version-operator', '-n', 'openshift-cluster-version']);
    assert.equal(cvo.spec.template.spec.containers[0].image, RELEASE);
    assert.ok(cvo.spec.template.spec.containers[0].args.includes(`--release-image=${RELEASE}`));
    const cv = await json(['clusterversion', 'version']);
    assert.deepEqual({ version: cv.status.desired.version, image: cv.status.desired.image }, { version: '0.1.0', image: RELEASE });
    assert.equal(cv.status.history[0].image, RELEASE);
    const { header, rows } = parseTable(await ok(['get', 'clusterversion', '-o', 'wide']));
    assert.deepEqual(header, ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'SINCE', 'STATUS', 'IMAGE']);
    assert.deepEqual([rows[0]![0], rows[0]![1], rows[0]![2], rows[0]![6]], ['version', '0.1.0', 'True', RELEASE]);
  });
});
