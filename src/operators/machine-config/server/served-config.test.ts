import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { decodeDataUrl, parseObject, type IgnitionConfig, type IgnitionV2Config } from '../../../api/ignition/index.ts';
import type { MachineConfig, MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { renderBootstrap } from '../render/render.ts';
import { renderTemplates } from '../render/templates.ts';
import { controllerConfig, controllerVersion, pool, seedMachineConfig } from '../render/testing.ts';
import { checkBearer } from './bootstrap-token.ts';
import { nodeBootstrapKubeconfig } from './node-kubeconfig.ts';
import { servedConfig, servedConfigName } from './served-config.ts';

const SEED_FILE = '/usr/local/bin/kubeinit_kubevirt_extra_config_script';

/** The worker pool rendered from the templates and the seed's MachineConfig, as the controller renders it. */
function renderedWorker(): MachineConfig {
  const cc = controllerConfig();
  const configs = [...renderTemplates({ controllerConfig: cc, controllerVersion, sshAuthorizedKeys: ['ssh-ed25519 AAAA core@example'] }), seedMachineConfig()];
  return renderBootstrap([pool('worker')], configs, cc, { controllerVersion }).renderedConfigs[0]!;
}

const kubeconfig = nodeBootstrapKubeconfig({ server: 'https://127.0.0.1:6443', caPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', token: 'bootstrapper.jwt' });

type AnyFile = { path: string; mode?: number; overwrite?: boolean; filesystem?: string; contents?: { source?: string } };

function fileText(files: readonly AnyFile[] | undefined, path: string): { text: string; mode?: number; overwrite?: boolean; filesystem?: string } {
  const matches = (files ?? []).filter((f) => f.path === path);
  assert.equal(matches.length, 1, `exactly one entry for ${path}`);
  const decoded = decodeDataUrl(matches[0]!.contents?.source ?? '');
  assert.ok(decoded.ok);
  return { text: decoded.data.toString('utf8'), mode: matches[0]!.mode, overwrite: matches[0]!.overwrite, filesystem: matches[0]!.filesystem };
}

describe('machine-config server: the served config', () => {
  it('serves the target once a node has updated to it, the completed config before, the target while none has completed', () => {
    const p = (spec?: string, status?: string, updated?: number): Pick<MachineConfigPool, 'spec' | 'status'> => ({
      spec: spec ? { configuration: { name: spec } } : {},
      status: { ...(status ? { configuration: { name: status } } : {}), ...(updated !== undefined ? { updatedMachineCount: updated } : {}) },
    });
    assert.equal(servedConfigName(p('rendered-worker-new', 'rendered-worker-old', 0)), 'rendered-worker-old');
    assert.equal(servedConfigName(p('rendered-worker-new', 'rendered-worker-old')), 'rendered-worker-old');
    assert.equal(servedConfigName(p('rendered-worker-new', 'rendered-worker-old', 1)), 'rendered-worker-new');
    assert.equal(servedConfigName(p('rendered-worker-new', undefined, 0)), 'rendered-worker-new');
    assert.equal(servedConfigName(p(undefined, 'rendered-worker-old', 2)), 'rendered-worker-old');
    assert.equal(servedConfigName(p(undefined, undefined)), undefined);
  });

  it('as 3.4.0: the rendered config with the bootstrap kubeconfig (0600) and the first node annotations added', () => {
    const rendered = renderedWorker();
    const name = rendered.metadata!.name!;
    const served = servedConfig({ renderedName: name, config: rendered.spec.config, bootstrapKubeconfig: kubeconfig, version: '3.4.0' });
    assert.ok(served.ok);
    const body = served.body as IgnitionConfig;
    assert.equal(body.ignition.version, '3.4.0');
    // Everything rendered is there as rendered.
    const renderedFiles = (rendered.spec.config as unknown as IgnitionConfig).storage!.files!;
    for (const f of renderedFiles) assert.deepEqual(body.storage?.files?.find((x) => x.path === f.path), f, f.path);
    assert.deepEqual(fileText(body.storage?.files, SEED_FILE).mode, 0o755);
    const kc = fileText(body.storage?.files, '/etc/kubernetes/kubeconfig');
    assert.deepEqual([kc.mode, kc.overwrite], [0o600, true]);
    const parsedKc = parseYaml(kc.text);
    assert.equal(parsedKc.users[0].user.token, 'bootstrapper.jwt');
    assert.equal(parsedKc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
    assert.equal(Buffer.from(parsedKc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    assert.equal(parsedKc['current-context'], 'kubelet');
    const annotations = fileText(body.storage?.files, '/etc/machine-config-daemon/node-annotations.json');
    assert.deepEqual(JSON.parse(annotations.text), {
      'machineconfiguration.openshift.io/currentConfig': name,
      'machineconfiguration.openshift.io/desiredConfig': name,
      'machineconfiguration.openshift.io/state': 'Done',
    });
    // What a booting Ignition does with it: it parses and validates.
    const back = parseObject(JSON.parse(JSON.stringify(body)));
    assert.ok(back.ok, back.ok ? '' : JSON.stringify(back.errors));
  });

  it('as 2.2.0 (no Accept): the same files on the root filesystem, readable as spec 2.2', () => {
    const rendered = renderedWorker();
    const served = servedConfig({ renderedName: rendered.metadata!.name!, config: rendered.spec.config, bootstrapKubeconfig: kubeconfig, version: '2.2.0' });
    assert.ok(served.ok);
    const body = served.body as IgnitionV2Config;
    assert.equal(body.ignition.version, '2.2.0');
    const seed = fileText(body.storage?.files, SEED_FILE);
    assert.deepEqual([seed.filesystem, seed.mode], ['root', 0o755]);
    assert.match(seed.text, /^#!\/usr\/bin\/bash\n/);
    assert.equal(fileText(body.storage?.files, '/etc/kubernetes/kubeconfig').mode, 0o600);
    const back = parseObject(JSON.parse(JSON.stringify(body)));
    assert.ok(back.ok, back.ok ? '' : JSON.stringify(back.errors));
    assert.equal(back.sourceVersion, '2.2.0');
    const v34 = servedConfig({ renderedName: rendered.metadata!.name!, config: rendered.spec.config, bootstrapKubeconfig: kubeconfig, version: '3.4.0' });
    assert.ok(v34.ok);
    assert.deepEqual(back.config.storage?.files, (v34.body as IgnitionConfig).storage?.files, 'spec 2.2 says what 3.4 says');
    assert.deepEqual(back.config.passwd, (v34.body as IgnitionConfig).passwd);
  });

  it('the server\'s files replace whatever a MachineConfig put at their paths', () => {
    const config = { ignition: { version: '3.4.0' }, storage: { files: [{ path: '/etc/kubernetes/kubeconfig', contents: { source: 'data:,admin' } }], directories: [{ path: '/etc/machine-config-daemon/node-annotations.json' }] } };
    const served = servedConfig({ renderedName: 'rendered-worker-x', config, bootstrapKubeconfig: kubeconfig, version: '3.4.0' });
    assert.ok(served.ok);
    const body = served.body as IgnitionConfig;
    assert.equal(fileText(body.storage?.files, '/etc/kubernetes/kubeconfig').text, kubeconfig);
    assert.deepEqual(body.storage?.directories, []);
  });

  it('a config the asked version cannot express is refused by field; one that does not parse is the server\'s fault', () => {
    const kargs = { ignition: { version: '3.4.0' }, kernelArguments: { shouldExist: ['nosmt'] } };
    const refused = servedConfig({ renderedName: 'rendered-worker-x', config: kargs, bootstrapKubeconfig: kubeconfig, version: '3.2.0' });
    assert.deepEqual(refused, { ok: false, reason: 'inexpressible', problems: [{ path: 'kernelArguments', message: 'requires spec version 3.3.0 or later, not 3.2.0' }] });
    assert.ok(servedConfig({ renderedName: 'rendered-worker-x', config: kargs, bootstrapKubeconfig: kubeconfig, version: '3.3.0' }).ok);
    const broken = servedConfig({ renderedName: 'rendered-worker-x', config: { ignition: { version: '9.9.9' } }, bootstrapKubeconfig: kubeconfig, version: '3.4.0' });
    assert.equal(broken.ok ? '' : broken.reason, 'unreadable');
  });
});

describe('machine-config server: the bootstrap token check', () => {
  it('no bearer token is missing (401), another token is wrong (403), the token is ok', () => {
    for (const h of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ']) assert.equal(checkBearer(h, 's3cret'), 'missing', String(h));
    for (const h of ['Bearer s3cre', 'Bearer s3cret2', 'Bearer S3CRET']) assert.equal(checkBearer(h, 's3cret'), 'wrong', h);
    for (const h of ['Bearer s3cret', 'bearer s3cret', 'Bearer  s3cret ']) assert.equal(checkBearer(h, 's3cret'), 'ok', h);
  });
});
