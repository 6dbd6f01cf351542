import assert from 'node:assert/strict';
import type { RequestOptions } from 'node:https';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ClientConfig, loadKubeConfig } from './kubeconfig.ts';

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n').toString('base64');

const tokenConfig = `apiVersion: v1
kind: Config
clusters:
  - name: shipyard
    cluster:
      server: https://127.0.0.1:6443
      certificate-authority-data: ${CA}
      tls-server-name: kubernetes
users:
  - name: admin
    user:
      token: s3cret
  - name: other
    user:
      token: nope
contexts:
  - name: admin@shipyard
    context:
      cluster: shipyard
      user: admin
current-context: admin@shipyard
`;

async function httpsOptions(kc: { applyToHTTPSOptions(o: RequestOptions): Promise<void> }): Promise<RequestOptions> {
  const o: RequestOptions = {};
  await kc.applyToHTTPSOptions(o);
  return o;
}

describe('ClientConfig (kubeconfig without client-node)', () => {
  it('reads what client-node reads from a token kubeconfig: server, CA, TLS name, bearer token', async () => {
    const ours = new ClientConfig();
    ours.loadFromString(tokenConfig);
    const theirs = new KubeConfig();
    theirs.loadFromString(tokenConfig);
    assert.equal(ours.getCurrentCluster()?.server, theirs.getCurrentCluster()?.server);
    assert.equal(ours.getCurrentCluster()?.caData, theirs.getCurrentCluster()?.caData);
    const [a, b] = [await httpsOptions(ours), await httpsOptions(theirs)];
    assert.equal(String(a.ca), String(b.ca));
    assert.equal(a.servername, 'kubernetes');
    assert.equal((a.headers as Record<string, string>).Authorization, 'Bearer s3cret');
    assert.equal((a.headers as Record<string, string>).Authorization, (b.headers as Record<string, string>).Authorization);
  });

  it('reads client certificates and files relative to the kubeconfig, and round-trips through another ClientConfig', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-kubeconfig-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'CA');
    writeFileSync(join(dir, 'pki', 'client.crt'), 'CERT');
    writeFileSync(join(dir, 'pki', 'client.key'), 'KEY');
    writeFileSync(
      join(dir, 'kubeconfig'),
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'certificate-authority': 'pki/ca.crt' } }],
        users: [{ name: 'u', user: { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const kc = loadKubeConfig({ kubeconfig: join(dir, 'kubeconfig'), env: {} });
    const o = await httpsOptions(kc);
    assert.deepEqual([String(o.ca), String(o.cert), String(o.key)], ['CA', 'CERT', 'KEY']);
    const again = new ClientConfig();
    again.loadFromString(kc.exportConfig());
    assert.deepEqual(await httpsOptions(again), o);
  });

  it('refuses, when used, a user that needs an exec plugin', async () => {
    const kc = new ClientConfig();
    kc.loadFromString(tokenConfig.replace('      token: s3cret', '      exec:\n        command: get-token'));
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
    await assert.rejects(httpsOptions(kc), /exec plugin/);
  });

  it('builds the in-cluster configuration from the pod rootfs', async (t) => {
    const rootfs = mkdtempSync(join(tmpdir(), 'shipyard-rootfs-'));
    t.after(() => rmSync(rootfs, { recursive: true, force: true }));
    const sa = join(rootfs, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'pod-token\n');
    writeFileSync(join(sa, 'ca.crt'), 'POD-CA');
    const kc = loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: '127.64.0.1', KUBERNETES_SERVICE_PORT: '443' }, rootfs });
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.64.0.1:443');
    const o = await httpsOptions(kc);
    assert.equal(String(o.ca), 'POD-CA');
    assert.equal((o.headers as Record<string, string>).Authorization, 'Bearer pod-token');
  });
});
