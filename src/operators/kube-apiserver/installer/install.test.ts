import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { installRevision, installerFailedMessage, InstallError, substitute, type InstallInput } from './install.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-apiserver\n  labels: {revision: "REVISION"}\nspec:\n  volumes: [{hostPath: {path: /etc/kubernetes/static-pod-resources/kube-apiserver-pod-REVISION}}]\n  env: [{name: NODE_ENVVAR_NAME_IP, value: NODE_NAME}]\n';

const inputs = (podYaml: string | null = POD, extra: Partial<Record<string, InstallInput>> = {}): InstallInput[] => [
  { kind: 'configmap', name: 'kube-apiserver-pod', object: { data: podYaml === null ? { version: '1' } : { 'pod.yaml': podYaml, version: '1' } } },
  { kind: 'configmap', name: 'config', object: { data: { 'config.yaml': '{"revision":"REVISION"}' } } },
  { kind: 'configmap', name: 'oauth-metadata', optional: true, object: undefined },
  { kind: 'secret', name: 'etcd-client', object: { data: { 'tls.key': b64('KEY-REVISION'), 'run.sh': b64('#!/bin/sh\n') } } },
  ...Object.values(extra).filter((x): x is InstallInput => !!x),
];

describe('installRevision', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kas-install-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const rev = (n: number, ...p: string[]) => join(root, 'etc/kubernetes/static-pod-resources', `kube-apiserver-pod-${n}`, ...p);
  const manifest = () => join(root, 'etc/kubernetes/manifests/kube-apiserver-pod.yaml');

  it('writes the revision directory and the manifest, placeholders filled in, secrets decoded, modes 0600 / scripts executable', async () => {
    const host = await installRevision({ root, revision: 3, nodeName: 'master-0.example', inputs: inputs() });
    assert.equal(host, manifest());
    const want = substitute(POD, 3, 'master-0.example');
    assert.match(want, /revision: "3"/);
    assert.match(want, /kube-apiserver-pod-3/);
    assert.match(want, /name: master_0_example_IP, value: master-0.example/);
    assert.equal(readFileSync(manifest(), 'utf8'), want);
    assert.equal(statSync(manifest()).mode & 0o777, 0o600);
    assert.equal(readFileSync(rev(3, 'kube-apiserver-pod.yaml'), 'utf8'), want);
    assert.equal(readFileSync(rev(3, 'configmaps/config/config.yaml'), 'utf8'), '{"revision":"3"}');
    assert.equal(readFileSync(rev(3, 'configmaps/kube-apiserver-pod/version'), 'utf8'), '1');
    assert.equal(readFileSync(rev(3, 'secrets/etcd-client/tls.key'), 'utf8'), 'KEY-REVISION', 'secret bytes are not templates');
    assert.equal(statSync(rev(3, 'secrets/etcd-client/tls.key')).mode & 0o777, 0o600);
    assert.equal(statSync(rev(3, 'secrets/etcd-client/run.sh')).mode & 0o777, 0o700);
    assert.ok(!existsSync(rev(3, 'configmaps/oauth-metadata')), 'an absent optional input is skipped');
    assert.deepEqual(readdirSync(join(root, 'etc/kubernetes/static-pod-resources')), ['kube-apiserver-pod-3'], 'no staging left behind');
  });

  it('a reinstall replaces the revision directory whole; an older revision stays', async () => {
    await installRevision({ root, revision: 3, nodeName: 'm0', inputs: inputs() });
    writeFileSync(rev(3, 'configmaps/config/stale'), 'x');
    await installRevision({ root, revision: 4, nodeName: 'm0', inputs: inputs() });
    await installRevision({ root, revision: 3, nodeName: 'm0', inputs: inputs() });
    assert.ok(!existsSync(rev(3, 'configmaps/config/stale')));
    assert.ok(existsSync(rev(4, 'configmaps/config/config.yaml')));
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "3"/);
  });

  it('a missing required input fails before anything changes: the previous revision and manifest stay', async () => {
    await installRevision({ root, revision: 3, nodeName: 'm0', inputs: inputs() });
    const broken = inputs().map((i) => (i.name === 'etcd-client' ? { ...i, object: undefined } : i));
    const err = await installRevision({ root, revision: 4, nodeName: 'm0', inputs: broken }).catch((e: unknown) => e);
    assert.ok(err instanceof InstallError);
    assert.equal(err.message, 'secrets "etcd-client-4" not found');
    assert.equal(installerFailedMessage(4, err), 'Installing revision 4: secrets "etcd-client-4" not found');
    assert.ok(!existsSync(rev(4)));
    assert.match(readFileSync(manifest(), 'utf8'), /revision: "3"/);
    assert.deepEqual(readdirSync(join(root, 'etc/kubernetes/static-pod-resources')), ['kube-apiserver-pod-3']);
  });

  it("fails without pod.yaml, in upstream's words", async () => {
    await assert.rejects(installRevision({ root, revision: 1, nodeName: 'm0', inputs: inputs(null) }), { message: "required 'pod.yaml' key does not exist in configmap" });
    assert.ok(!existsSync(manifest()));
  });

  it('cert inputs are copied unrevisioned and overwritten', async () => {
    const cert = (v: string): InstallInput[] => [{ kind: 'secret', name: 'localhost-serving-cert-certkey', object: { data: { 'tls.crt': b64(v) } } }];
    await installRevision({ root, revision: 1, nodeName: 'm0', inputs: inputs(), certInputs: cert('one') });
    await installRevision({ root, revision: 2, nodeName: 'm0', inputs: inputs(), certInputs: cert('two') });
    assert.equal(readFileSync(join(root, 'etc/kubernetes/static-pod-resources/kube-apiserver-certs/secrets/localhost-serving-cert-certkey/tls.crt'), 'utf8'), 'two');
  });

  it('a key that is not a file name is refused', async () => {
    const bad = inputs(POD, { x: { kind: 'configmap', name: 'bad', object: { data: { '../escape': 'x' } } } });
    await assert.rejects(installRevision({ root, revision: 1, nodeName: 'm0', inputs: bad }), /key "..\/escape" is not a file name/);
  });

  it('links inside the root are followed inside it, never out of it', async () => {
    // /etc/kubernetes/manifests → /srv/manifests, absolute as the node sees it.
    mkdirSync(join(root, 'etc/kubernetes'), { recursive: true });
    mkdirSync(join(root, 'srv/manifests'), { recursive: true });
    symlinkSync('/srv/manifests', join(root, 'etc/kubernetes/manifests'));
    await installRevision({ root, revision: 1, nodeName: 'm0', inputs: inputs() });
    assert.ok(existsSync(join(root, 'srv/manifests/kube-apiserver-pod.yaml')));
  });
});
