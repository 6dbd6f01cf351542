import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parsePruneArgs, prunableEntries, runPrune } from './command.ts';

const args = (...extra: string[]) => ['cluster-kube-apiserver-operator', 'prune', '-v=4', ...extra];

describe('parsePruneArgs', () => {
  it("reads upstream's flags", () => {
    const a = parsePruneArgs(args('--max-eligible-revision=9', '--protected-revisions=5,6,7,8,9', '--resource-dir=/etc/kubernetes/static-pod-resources/', '--static-pod-name=kube-apiserver-pod', '--cert-dir=kube-apiserver-certs'));
    assert.equal(a.maxEligibleRevision, 9);
    assert.deepEqual([...a.protectedRevisions], [5, 6, 7, 8, 9]);
    assert.equal(a.resourceDir, '/etc/kubernetes/static-pod-resources');
    assert.equal(a.staticPodName, 'kube-apiserver-pod');
  });

  it('refuses a missing or bad revision, a bad protected list, a relative dir and an unknown flag', () => {
    assert.throws(() => parsePruneArgs(args()), /--max-eligible-revision must be a non-negative integer, got ""/);
    assert.throws(() => parsePruneArgs(args('--max-eligible-revision=x')), /got "x"/);
    assert.throws(() => parsePruneArgs(args('--max-eligible-revision=3', '--protected-revisions=1,a')), /"a" is not a revision/);
    assert.throws(() => parsePruneArgs(args('--max-eligible-revision=3', '--resource-dir=etc')), /must be an absolute path/);
    assert.throws(() => parsePruneArgs(args('--max-eligible-revision=3', '--static-pod-name=../x')), /not a name/);
    assert.throws(() => parsePruneArgs(args('--max-eligible-revision=3', '--bogus')), /bogus/);
  });
});

describe('prunableEntries', () => {
  it('picks unprotected revision directories up to the max, and installer leftovers of those', () => {
    const a = parsePruneArgs(args('--max-eligible-revision=6', '--protected-revisions=2,5,6'));
    const names = [
      'kube-apiserver-pod-1',
      'kube-apiserver-pod-2',
      'kube-apiserver-pod-3',
      '.kube-apiserver-pod-3.shipyard-staging',
      '.kube-apiserver-pod-5.shipyard-staging',
      'kube-apiserver-pod-5',
      'kube-apiserver-pod-6',
      'kube-apiserver-pod-7',
      'kube-apiserver-certs',
      'kube-apiserver-pod-x',
      'kube-apiserver-pod-4.shipyard-staging',
      'etcd-pod-1',
    ];
    assert.deepEqual(prunableEntries(names, a), ['kube-apiserver-pod-1', 'kube-apiserver-pod-3', '.kube-apiserver-pod-3.shipyard-staging']);
  });
});

describe('runPrune (temp node root through the /etc/kubernetes mount)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'kas-prune-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const nodeRoot = join(tmp, 'nodes', 'master-0', 'root');
  const resources = join(nodeRoot, 'etc/kubernetes/static-pod-resources');
  // The container's rootfs: its /etc/kubernetes is the node's, as the hostPath mount makes it.
  const rootfs = join(tmp, 'rootfs');
  mkdirSync(join(rootfs, 'etc'), { recursive: true });
  for (const r of [1, 2, 3, 4]) {
    mkdirSync(join(resources, `kube-apiserver-pod-${r}/configmaps/config`), { recursive: true });
    writeFileSync(join(resources, `kube-apiserver-pod-${r}/configmaps/config/config.yaml`), `revision ${r}`);
  }
  mkdirSync(join(resources, 'kube-apiserver-certs/secrets'), { recursive: true });
  writeFileSync(join(resources, 'kube-apiserver-pod-9'), 'a file, not a revision directory');
  mkdirSync(join(nodeRoot, 'etc/kubernetes/manifests'), { recursive: true });
  symlinkSync(join(nodeRoot, 'etc/kubernetes'), join(rootfs, 'etc/kubernetes'));

  it('removes the unprotected revision directories of its node and nothing else', async () => {
    const lines: string[] = [];
    const signal = new AbortController().signal;
    await runPrune({
      signal,
      env: {},
      rootfs,
      log: (l) => lines.push(l),
      args: args('--max-eligible-revision=3', '--protected-revisions=2,3', '--resource-dir=/etc/kubernetes/static-pod-resources', '--static-pod-name=kube-apiserver-pod'),
    });
    assert.deepEqual((await readdir(resources)).sort(), ['kube-apiserver-certs', 'kube-apiserver-pod-2', 'kube-apiserver-pod-3', 'kube-apiserver-pod-4', 'kube-apiserver-pod-9']);
    assert.ok(existsSync(join(resources, 'kube-apiserver-pod-2/configmaps/config/config.yaml')));
    assert.deepEqual(lines, ['pruned kube-apiserver-pod-1 from /etc/kubernetes/static-pod-resources (protected: 2,3)']);
  });

  it('is a no-op the second time, and on a node without revisions', async () => {
    const lines: string[] = [];
    const run = (root: string) =>
      runPrune({ signal: new AbortController().signal, env: {}, rootfs: root, log: (l) => lines.push(l), args: args('--max-eligible-revision=3', '--protected-revisions=2,3') });
    await run(rootfs);
    const empty = join(tmp, 'empty-rootfs');
    mkdirSync(join(tmp, 'nodes/master-1/root/etc/kubernetes'), { recursive: true });
    mkdirSync(join(empty, 'etc'), { recursive: true });
    symlinkSync(join(tmp, 'nodes/master-1/root/etc/kubernetes'), join(empty, 'etc/kubernetes'));
    await run(empty);
    assert.deepEqual(lines, ['nothing to prune in /etc/kubernetes/static-pod-resources (protected: 2,3)', 'nothing to prune in /etc/kubernetes/static-pod-resources (protected: 2,3)']);
  });
});
