import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveInRoot } from './paths.ts';

const dirs: string[] = [];

async function tmpRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'shipyard-root-'));
  dirs.push(root);
  return root;
}

describe('node root paths', () => {
  after(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

  it('maps node paths under the root and follows links as the node would', async () => {
    const root = await tmpRoot();
    await mkdir(join(root, 'usr/lib'), { recursive: true });
    await symlink('/usr/lib', join(root, 'lib'));
    await symlink('..', join(root, 'usr/lib/up'));
    assert.equal(await resolveInRoot(root, '/etc/x'), join(root, 'etc/x'));
    assert.equal(await resolveInRoot(root, '/lib/systemd'), join(root, 'usr/lib/systemd'));
    assert.equal(await resolveInRoot(root, '/lib/up/bin'), join(root, 'usr/bin'));
    assert.equal(await resolveInRoot(root, '/lib'), join(root, 'lib'), 'the final link is not followed by default');
    assert.equal(await resolveInRoot(root, '/lib', { followFinal: true }), join(root, 'usr/lib'));
  });

  it('refuses ".." above the root and link loops', async () => {
    const root = await tmpRoot();
    await symlink('../..', join(root, 'out'));
    await symlink('loop2', join(root, 'loop1'));
    await symlink('loop1', join(root, 'loop2'));
    await assert.rejects(resolveInRoot(root, '/../etc'), /escapes the node root/);
    await assert.rejects(resolveInRoot(root, '/out/etc'), /escapes the node root/);
    await assert.rejects(resolveInRoot(root, '/loop1/x'), /too many levels of symbolic links/);
  });
});
