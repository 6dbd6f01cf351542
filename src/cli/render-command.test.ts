/**
 * `shipyard render` as a user runs it: its help names the three options and the inputs; on a
 * temp directory it writes the bootstrap pod, the manifests and the config and lists them; a
 * missing install-config.yaml exits 1 naming the file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const shipyard = new URL('../../bin/shipyard.js', import.meta.url).pathname;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [shipyard, ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('shipyard render', () => {
  it('--help names the options and what the input directory holds', async () => {
    const r = await run(['render', '--help']);
    assert.equal(r.code, 0, r.stderr);
    for (const opt of ['--asset-input-dir', '--asset-output-dir', '--config-output-file', 'install-config.yaml', 'kube-apiserver-pod.yaml', 'host-etcd', 'cluster-config-v1']) assert.ok(r.stdout.includes(opt), `${opt} in:\n${r.stdout}`);
  });

  it('writes the assets into a temp directory, and names a missing input', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-render-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const input = join(dir, 'in');
    mkdirSync(input);
    const args = ['render', '--asset-input-dir', input, '--asset-output-dir', join(dir, 'out'), '--config-output-file', join(dir, 'config.yaml')];
    const missing = await run(args);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, new RegExp(`^shipyard render: ${join(input, 'install-config.yaml').replace(/[.]/g, '\\.')}: not found`, 'm'));

    writeFileSync(
      join(input, 'install-config.yaml'),
      'networking:\n  clusterNetwork:\n  - cidr: 127.128.0.0/12\n    hostPrefix: 24\n  serviceNetwork:\n  - 127.64.0.0/16\nplatform:\n  shipyard:\n    apiServerURL: https://127.0.0.1:6443\n    storeDir: /var/lib/shipyard/store\n',
    );
    const r = await run(args);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote .*\/out\/bootstrap-manifests\/kube-apiserver-pod\.yaml\n/);
    assert.match(r.stdout, /wrote .*\/out\/manifests\/host-etcd-endpoints\.yaml\n/);
    const pod = parse(readFileSync(join(dir, 'out', 'bootstrap-manifests', 'kube-apiserver-pod.yaml'), 'utf8'));
    assert.equal(pod.spec.containers[0].image, 'shipyard.local/kube-apiserver:v0.1.0');
    const config = parse(readFileSync(join(dir, 'config.yaml'), 'utf8'));
    assert.deepEqual([config.kind, config.storageConfig.urls, config.servicesSubnet], ['KubeAPIServerConfig', ['file:///var/lib/shipyard/store'], '127.64.0.0/16']);
  });
});
