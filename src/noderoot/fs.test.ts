import assert from 'node:assert/strict';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { linkTarget, stagingPath, symlinkAtomic, writeFileAtomic } from './fs.ts';
import { readResource } from './resource.ts';
import { linkOf, modeOf, readText, TempRoots } from './testing.ts';

const roots = new TempRoots();

describe('node-root file primitives', () => {
  after(roots.removeAll);

  it('a file replaces a file, a link or a directory in one rename, with exactly the mode asked', async () => {
    const root = await roots.make();
    // 0777 is what the usual umask (022) would narrow.
    await writeFileAtomic(join(root, 'f'), 'one', 0o777);
    assert.equal(await modeOf(root, 'f'), 0o777, 'the umask does not narrow a config\'s mode');
    await writeFileAtomic(join(root, 'f'), 'two', 0o600);
    assert.deepEqual([await readText(root, 'f'), await modeOf(root, 'f')], ['two', 0o600]);

    await writeFile(join(root, 'target'), 'target');
    await symlink('target', join(root, 'l'));
    await writeFileAtomic(join(root, 'l'), 'replaced the link', 0o644);
    assert.equal(await readText(root, 'target'), 'target', 'the link is replaced, not written through');
    assert.equal(await readText(root, 'l'), 'replaced the link');

    await mkdir(join(root, 'd/sub'), { recursive: true });
    await writeFileAtomic(join(root, 'd'), 'file now', 0o644);
    assert.equal(await readText(root, 'd'), 'file now');
    assert.deepEqual((await readdir(root)).sort(), ['d', 'f', 'l', 'target'], 'no staging file left');
    assert.match(stagingPath(join(root, 'etc/kubernetes/manifests/kube-apiserver.yaml')), /\/manifests\/\.kube-apiserver\.yaml\.shipyard-tmp$/, 'staged as a dot file the kubelet skips');
  });

  it('links are replaced in one rename; absolute targets are kept inside the root', async () => {
    const root = await roots.make();
    await writeFile(join(root, 'unit'), 'x');
    await symlinkAtomic('/dev/null', join(root, 'unit'));
    assert.equal(await linkOf(root, 'unit'), '/dev/null');
    assert.equal(linkTarget('/etc/systemd/system/multi-user.target.wants/a.service', '/etc/systemd/system/a.service'), '../a.service');
    assert.equal(linkTarget('/etc/localtime', '/usr/share/zoneinfo/UTC'), '../usr/share/zoneinfo/UTC');
    assert.equal(linkTarget('/etc/x', 'relative'), 'relative');
    assert.equal(linkTarget('/etc/systemd/system/m.service', '/dev/null'), '/dev/null');
  });

  it('resource bytes: nothing is an empty file, data URLs decode, remote sources need a reader', async () => {
    assert.equal((await readResource({})).length, 0);
    assert.equal((await readResource({ source: 'data:,a%20b' })).toString(), 'a b');
    await assert.rejects(readResource({ source: 'https://127.0.0.1:22623/config/worker' }), { message: 'https://127.0.0.1:22623/config/worker: only data: URLs can be written on a running node' });
    assert.equal((await readResource({ source: 'http://127.0.0.1/x' }, async () => Buffer.from('fetched'))).toString(), 'fetched');
    await assert.rejects(readResource({ source: 'data:,x', compression: 'gzip' }), { message: /^decompressing inline data: / });
  });
});
