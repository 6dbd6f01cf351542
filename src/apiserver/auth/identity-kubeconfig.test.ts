/**
 * A control-plane identity's kubeconfig: written once with a client certificate from the
 * cluster CA, reused while it still fits, and written again when it names another server,
 * user or groups, was signed by another CA, is unreadable, or ends within 30 days.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { parse } from 'yaml';
import { ensureIdentityKubeconfig, type IdentityKubeconfigOptions } from './identity-kubeconfig.ts';
import { ensureServingPki } from './pki.ts';

const day = 24 * 3600_000;
const t0 = Date.parse('2030-01-01T00:00:00Z');

async function setup(t: TestContext): Promise<{ dir: string; opts: IdentityKubeconfigOptions; caPem: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-identity-kubeconfig-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pkiDir = join(dir, 'pki');
  const pki = await ensureServingPki(pkiDir);
  return { dir, caPem: pki.caCertPem, opts: { path: join(dir, 'kube', 'scheduler.kubeconfig'), server: 'https://127.0.0.1:6443', pkiDir, user: 'system:node:one', groups: ['system:nodes'] } };
}

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: Record<string, string> }[];
  'current-context': string;
}

const read = (path: string): Kubeconfig => parse(readFileSync(path, 'utf8'));
const certOf = (path: string) => new X509Certificate(Buffer.from(read(path).users[0]!.user['client-certificate-data']!, 'base64'));

describe('ensureIdentityKubeconfig', () => {
  it('writes a kubeconfig with the server, the CA and a client certificate for the identity', async (t) => {
    const { opts, caPem } = await setup(t);
    assert.equal(await ensureIdentityKubeconfig(opts, t0), opts.path);
    assert.equal(statSync(opts.path).mode & 0o077, 0, 'readable by its owner only');
    const kc = read(opts.path);
    assert.equal(kc.clusters[0]!.cluster.server, 'https://127.0.0.1:6443');
    assert.equal(Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8'), caPem);
    assert.equal(kc.users[0]!.name, 'system:node:one');
    assert.equal(kc['current-context'], 'system:node:one@shipyard');
    const cert = certOf(opts.path);
    assert.equal(cert.subject, 'O=system:nodes\nCN=system:node:one');
    assert.ok(cert.checkIssued(new X509Certificate(caPem)));
    assert.equal(Date.parse(cert.validTo), t0 + 365 * day);
  });

  it('reuses the kubeconfig while it fits, so a restart changes nothing', async (t) => {
    const { opts } = await setup(t);
    await ensureIdentityKubeconfig(opts, t0);
    const first = readFileSync(opts.path, 'utf8');
    await ensureIdentityKubeconfig(opts, t0 + 300 * day);
    assert.equal(readFileSync(opts.path, 'utf8'), first);
  });

  it('writes it again for another server, user or groups', async (t) => {
    const { opts } = await setup(t);
    await ensureIdentityKubeconfig(opts, t0);
    const serial = () => certOf(opts.path).serialNumber;
    let last = serial();
    await ensureIdentityKubeconfig({ ...opts, server: 'https://127.0.0.2:6443' }, t0);
    assert.equal(read(opts.path).clusters[0]!.cluster.server, 'https://127.0.0.2:6443');
    assert.notEqual(serial(), last);
    last = serial();
    await ensureIdentityKubeconfig({ ...opts, server: 'https://127.0.0.2:6443', user: 'system:node:two' }, t0);
    assert.match(certOf(opts.path).subject, /CN=system:node:two$/);
    assert.notEqual(serial(), last);
    last = serial();
    await ensureIdentityKubeconfig({ ...opts, server: 'https://127.0.0.2:6443', user: 'system:node:two', groups: ['system:nodes', 'extra'] }, t0);
    assert.equal(certOf(opts.path).subject, 'O=system:nodes\nO=extra\nCN=system:node:two');
    assert.notEqual(serial(), last);
  });

  it('writes it again within 30 days of the certificate’s end', async (t) => {
    const { opts } = await setup(t);
    await ensureIdentityKubeconfig(opts, t0);
    const later = t0 + 340 * day;
    await ensureIdentityKubeconfig(opts, later);
    assert.equal(Date.parse(certOf(opts.path).validTo), later + 365 * day);
  });

  it('writes it again when another CA signed it, or it cannot be read', async (t) => {
    const { opts, dir } = await setup(t);
    await ensureIdentityKubeconfig(opts, t0);
    const other = await ensureServingPki(join(dir, 'other-pki'));
    await ensureIdentityKubeconfig({ ...opts, pkiDir: join(dir, 'other-pki') }, t0);
    assert.ok(certOf(opts.path).checkIssued(new X509Certificate(other.caCertPem)));
    writeFileSync(opts.path, 'not: [a kubeconfig');
    await ensureIdentityKubeconfig(opts, t0);
    assert.equal(certOf(opts.path).subject, 'O=system:nodes\nCN=system:node:one');
  });
});
