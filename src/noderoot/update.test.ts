import assert from 'node:assert/strict';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { encodeDataUrl } from '../api/ignition/index.ts';
import { origPath } from './backups.ts';
import { emptyConfig } from './config.ts';
import { applyUpdate } from './update.ts';
import { exists, file, linkOf, modeOf, nodeConfig, readText, TempRoots } from './testing.ts';

const roots = new TempRoots();
const orig = (path: string) => origPath(path).slice(1);

describe('applying a config update to a node root', () => {
  after(roots.removeAll);

  it('writes every file whole with its mode (0644 unset), over whatever was there, leaving no temporary file', async () => {
    const root = await roots.make();
    const from = nodeConfig('rendered-a', { files: [file('/etc/kubernetes/kubelet.conf', 'maxPods: 110\n', 0o600)] });
    await applyUpdate(root, emptyConfig(), from);
    const to = nodeConfig('rendered-b', {
      files: [
        file('/etc/kubernetes/kubelet.conf', 'maxPods: 50\n', 0o600),
        { path: '/usr/local/bin/script', contents: { source: 'data:text/plain;charset=utf-8;base64,IyEvYmluL3NoCg==' }, mode: 0o755 },
        { path: '/etc/gz', contents: { source: encodeDataUrl(gzipSync('unzipped\n')), compression: 'gzip' } },
        { path: '/etc/empty' },
      ],
    });
    const result = await applyUpdate(root, from, to);
    assert.equal(await readText(root, 'etc/kubernetes/kubelet.conf'), 'maxPods: 50\n');
    assert.equal(await modeOf(root, 'etc/kubernetes/kubelet.conf'), 0o600);
    assert.equal(await readText(root, 'usr/local/bin/script'), '#!/bin/sh\n');
    assert.equal(await modeOf(root, 'usr/local/bin/script'), 0o755);
    assert.equal(await modeOf(root, 'usr/local/bin'), 0o755);
    assert.equal(await readText(root, 'etc/gz'), 'unzipped\n');
    assert.equal(await readText(root, 'etc/empty'), '');
    assert.equal(await modeOf(root, 'etc/empty'), 0o644);
    assert.deepEqual(result.written, ['/etc/kubernetes/kubelet.conf', '/usr/local/bin/script', '/etc/gz', '/etc/empty']);
    assert.deepEqual(result.keptOriginals, [], 'nothing was there before but our own file');
    for (const dir of ['etc', 'etc/kubernetes', 'usr/local/bin']) {
      assert.deepEqual((await readdir(join(root, dir))).filter((n) => n.startsWith('.')), [], `no temporary file left in ${dir}`);
    }
  });

  it('keeps a file that was not ours as .mcdorig on the first write, and puts it back when a config drops the path', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'etc/chrony'), { recursive: true });
    await writeFile(join(root, 'etc/chrony/chrony.conf'), 'pool 2.rhel.pool.ntp.org\n', { mode: 0o640 });
    const a = nodeConfig('rendered-a');
    const b = nodeConfig('rendered-b', { files: [file('/etc/chrony/chrony.conf', 'server 127.0.0.1\n')] });
    const c = nodeConfig('rendered-c', { files: [file('/etc/chrony/chrony.conf', 'server 127.0.0.2\n')] });

    const first = await applyUpdate(root, a, b);
    assert.deepEqual(first.keptOriginals, ['/etc/chrony/chrony.conf']);
    assert.equal(await readText(root, orig('/etc/chrony/chrony.conf')), 'pool 2.rhel.pool.ntp.org\n');
    assert.equal(await modeOf(root, orig('/etc/chrony/chrony.conf')), 0o640, 'the original keeps its mode');
    assert.ok(orig('/etc/chrony/chrony.conf').endsWith('etc/machine-config-daemon/orig/etc/chrony/chrony.conf.mcdorig'));
    assert.deepEqual(await readdir(join(root, 'etc/chrony')), ['chrony.conf'], 'no backup beside the file');

    // Ours now: a second write keeps the original, not the config's first version.
    assert.deepEqual((await applyUpdate(root, b, c)).keptOriginals, []);
    assert.equal(await readText(root, orig('/etc/chrony/chrony.conf')), 'pool 2.rhel.pool.ntp.org\n');

    const dropped = await applyUpdate(root, c, a);
    assert.deepEqual(dropped.restored, ['/etc/chrony/chrony.conf']);
    assert.equal(await readText(root, 'etc/chrony/chrony.conf'), 'pool 2.rhel.pool.ntp.org\n');
    assert.equal(await modeOf(root, 'etc/chrony/chrony.conf'), 0o640);
    assert.equal(await exists(root, orig('/etc/chrony/chrony.conf')), false, 'the backup is used up');
  });

  it('removes a dropped file that was ours from the start, and never touches a file no config names', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'etc/kubernetes/manifests'), { recursive: true });
    await writeFile(join(root, 'etc/kubernetes/manifests/kube-apiserver.yaml'), 'static pod\n');
    const a = nodeConfig('rendered-a', { files: [file('/etc/mine', 'x')] });
    await applyUpdate(root, emptyConfig(), a);
    const result = await applyUpdate(root, a, nodeConfig('rendered-b'));
    assert.deepEqual(result.removed, ['/etc/mine']);
    assert.equal(await exists(root, 'etc/mine'), false);
    assert.equal(await readText(root, 'etc/kubernetes/manifests/kube-apiserver.yaml'), 'static pod\n');
  });

  it('run again after a crash, converges to the same root and keeps the original from the first run', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'etc'), { recursive: true });
    await writeFile(join(root, 'etc/motd'), 'welcome\n');
    const a = nodeConfig('rendered-a', { files: [file('/etc/old', 'old')], kernelArguments: ['nosmt'] });
    await applyUpdate(root, emptyConfig(), a);
    const b = nodeConfig('rendered-b', {
      files: [file('/etc/motd', 'managed\n'), file('/etc/new', 'created\n')],
      units: [{ name: 'extra.service', enabled: true, contents: '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' }],
      users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA k'] }],
      kernelArguments: ['nosmt', 'audit=1'],
      osImageURL: 'quay.io/os@sha256:2',
    });
    await applyUpdate(root, a, b);
    const snapshot = await rootSnapshot(root);
    // The daemon was killed before it recorded b as current: it runs a → b again.
    await applyUpdate(root, a, b);
    assert.deepEqual(await rootSnapshot(root), snapshot);
    assert.equal(await readText(root, orig('/etc/motd')), 'welcome\n');
    assert.equal(await readText(root, 'etc/kernel/cmdline'), 'nosmt audit=1\n', 'arguments are not added twice');
    assert.equal(await readText(root, 'etc/machine-config-daemon/noorig/etc/new.mcdnoorig'), '', 'the stamp says /etc/new was not there before us');

    // Dropping b: /etc/new was ours from the start (the second run must not have kept it as an original).
    const back = await applyUpdate(root, b, a);
    assert.deepEqual(back.removed.filter((p) => p.startsWith('/etc/')).sort(), ['/etc/new', '/etc/systemd/system/extra.service']);
    assert.deepEqual(back.restored, ['/etc/motd']);
    assert.equal(await exists(root, 'etc/new'), false);
    assert.equal(await exists(root, 'etc/machine-config-daemon/noorig/etc/new.mcdnoorig'), false);
    assert.equal(await readText(root, 'etc/motd'), 'welcome\n');
  });

  it('decodes before it writes: a bad data URL fails naming the file and leaves the old contents', async () => {
    const root = await roots.make();
    const a = nodeConfig('rendered-a', { files: [file('/etc/x', 'good')] });
    await applyUpdate(root, emptyConfig(), a);
    const bad = nodeConfig('rendered-b', { files: [{ path: '/etc/x', contents: { source: 'data:;base64,%%%' } }] });
    await assert.rejects(applyUpdate(root, a, bad), { message: /^could not decode file "\/etc\/x": invalid data URL/ });
    assert.equal(await readText(root, 'etc/x'), 'good');
    const remote = nodeConfig('rendered-c', { files: [{ path: '/etc/x', contents: { source: 'http://127.0.0.1:1/x' } }] });
    await assert.rejects(applyUpdate(root, a, remote), { message: /only data: URLs can be written on a running node/ });
  });

  it('refuses to put a file where a directory is, and to append', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'etc/dir/sub'), { recursive: true });
    await assert.rejects(applyUpdate(root, emptyConfig(), nodeConfig('b', { files: [file('/etc/dir', 'x')] })), { message: 'could not write file "/etc/dir": a directory is in the way' });
    assert.equal(await exists(root, 'etc/dir/sub'), true);
    await assert.rejects(applyUpdate(root, emptyConfig(), nodeConfig('c', { files: [{ path: '/etc/log', append: [{ source: 'data:,x' }] }] })), { message: /Append is not supported/ });
  });

  it('never writes outside the root through a link the root holds', async () => {
    const base = await roots.make();
    const root = join(base, 'root');
    await mkdir(join(root, 'etc'), { recursive: true });
    await symlink('../../..', join(root, 'etc/up'));
    await assert.rejects(applyUpdate(root, emptyConfig(), nodeConfig('b', { files: [file('/etc/up/escaped', 'x')] })), { message: /escapes the node root/ });
    assert.equal(await exists(base, 'escaped'), false);
  });
});

describe('applying units, SSH keys, kernel arguments and the OS image', () => {
  after(roots.removeAll);
  const units = 'etc/systemd/system';
  const service = (target: string, body = 'ExecStart=/bin/true') => `[Service]\n${body}\n[Install]\nWantedBy=${target}\n`;

  it('writes units and drop-ins, enables them where [Install] says, and follows a change of target', async () => {
    const root = await roots.make();
    const a = nodeConfig('rendered-a', {
      units: [{ name: 'kubelet.service', enabled: true, contents: service('multi-user.target'), dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }] }],
    });
    const first = await applyUpdate(root, emptyConfig(), a);
    assert.equal(await readText(root, `${units}/kubelet.service`), service('multi-user.target'));
    assert.equal(await modeOf(root, `${units}/kubelet.service`), 0o644);
    assert.equal(await readText(root, `${units}/kubelet.service.d/10-env.conf`), '[Service]\nEnvironment=A=1\n');
    assert.equal(await linkOf(root, `${units}/multi-user.target.wants/kubelet.service`), '../kubelet.service');
    assert.deepEqual(first.enabled, ['kubelet.service']);

    // Enablement unset: the unit stays enabled, under its new target.
    const b = nodeConfig('rendered-b', { units: [{ name: 'kubelet.service', contents: service('graphical.target', 'ExecStart=/bin/false'), dropins: [{ name: '10-env.conf' }] }] });
    const second = await applyUpdate(root, a, b);
    assert.equal(await linkOf(root, `${units}/multi-user.target.wants/kubelet.service`), undefined);
    assert.equal(await linkOf(root, `${units}/graphical.target.wants/kubelet.service`), '../kubelet.service');
    assert.equal(await exists(root, `${units}/kubelet.service.d/10-env.conf`), false, 'an empty drop-in is removed');
    assert.deepEqual(second.removed, ['/etc/systemd/system/kubelet.service.d/10-env.conf']);
  });

  it('disables, masks and unmasks as the config says', async () => {
    const root = await roots.make();
    const a = nodeConfig('rendered-a', { units: [{ name: 'extra.service', enabled: true, contents: service('multi-user.target') }] });
    await applyUpdate(root, emptyConfig(), a);
    const b = nodeConfig('rendered-b', { units: [{ name: 'extra.service', enabled: false, contents: service('multi-user.target') }] });
    assert.deepEqual((await applyUpdate(root, a, b)).disabled, ['extra.service']);
    assert.equal(await linkOf(root, `${units}/multi-user.target.wants/extra.service`), undefined);

    const c = nodeConfig('rendered-c', { units: [{ name: 'extra.service', mask: true }] });
    assert.deepEqual((await applyUpdate(root, b, c)).masked, ['extra.service']);
    assert.equal(await linkOf(root, `${units}/extra.service`), '/dev/null');
    assert.equal(await exists(root, orig('/etc/systemd/system/extra.service')), false, 'the unit file was ours: nothing kept');

    const d = nodeConfig('rendered-d', { units: [{ name: 'extra.service', mask: false }] });
    assert.deepEqual((await applyUpdate(root, c, d)).unmasked, ['extra.service']);
    assert.equal(await exists(root, `${units}/extra.service`), false);

    // Masked by the old config and simply not by the new one: unmasked too.
    await applyUpdate(root, d, c);
    const e = nodeConfig('rendered-e', { units: [{ name: 'extra.service', dropins: [{ name: 'x.conf', contents: '[Unit]\n' }] }] });
    assert.deepEqual((await applyUpdate(root, c, e)).unmasked, ['extra.service']);
    assert.equal(await exists(root, `${units}/extra.service`), false);
  });

  it('enables a vendor unit the node has, and skips one it has not', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'usr/lib/systemd/system'), { recursive: true });
    await writeFile(join(root, 'usr/lib/systemd/system/crio.service'), service('multi-user.target'));
    const result = await applyUpdate(root, emptyConfig(), nodeConfig('b', { units: [{ name: 'crio.service', enabled: true }, { name: 'ghost.service', enabled: true }] }));
    assert.equal(await linkOf(root, `${units}/multi-user.target.wants/crio.service`), '../../../../usr/lib/systemd/system/crio.service');
    assert.deepEqual(result.enabled, ['crio.service']);
    assert.deepEqual(result.skipped, ['unit ghost.service: enabled, but the node has no such unit']);
    assert.equal(await exists(root, `${units}/multi-user.target.wants/ghost.service`), false);
  });

  it('a dropped unit is disabled and its file removed, or the original put back; dropped drop-ins likewise', async () => {
    const root = await roots.make();
    await mkdir(join(root, units), { recursive: true });
    await writeFile(join(root, units, 'vendor-override.service'), 'original\n');
    const a = nodeConfig('rendered-a', {
      units: [
        { name: 'ours.service', enabled: true, contents: service('multi-user.target'), dropins: [{ name: '50-x.conf', contents: '[Service]\n' }] },
        { name: 'vendor-override.service', contents: 'managed\n' },
      ],
    });
    await applyUpdate(root, emptyConfig(), a);
    assert.equal(await readText(root, orig('/etc/systemd/system/vendor-override.service')), 'original\n');
    const result = await applyUpdate(root, a, nodeConfig('rendered-b'));
    assert.equal(await exists(root, `${units}/ours.service`), false);
    assert.equal(await exists(root, `${units}/ours.service.d/50-x.conf`), false);
    assert.equal(await linkOf(root, `${units}/multi-user.target.wants/ours.service`), undefined);
    assert.equal(await readText(root, `${units}/vendor-override.service`), 'original\n');
    assert.deepEqual(result.disabled, ['ours.service']);
    assert.deepEqual(result.restored, ['/etc/systemd/system/vendor-override.service']);
    assert.deepEqual(result.removed.sort(), ['/etc/systemd/system/ours.service', '/etc/systemd/system/ours.service.d/50-x.conf']);
  });

  it("writes core's SSH keys where the MCO does, 0600 in 0700 directories, and empties them when none are left", async () => {
    const root = await roots.make();
    const a = nodeConfig('rendered-a', { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA1 one', 'ssh-ed25519 AAAA2 two'] }] });
    const result = await applyUpdate(root, emptyConfig(), a);
    assert.equal(result.sshKeys, true);
    const keys = 'home/core/.ssh/authorized_keys.d/ignition';
    assert.equal(await readText(root, keys), 'ssh-ed25519 AAAA1 one\nssh-ed25519 AAAA2 two\n');
    assert.equal(await modeOf(root, keys), 0o600);
    assert.equal(await modeOf(root, 'home/core/.ssh'), 0o700);
    assert.equal(await modeOf(root, 'home/core/.ssh/authorized_keys.d'), 0o700);
    await applyUpdate(root, a, nodeConfig('rendered-b'));
    assert.equal(await readText(root, keys), '');
    const hash = await applyUpdate(root, emptyConfig(), nodeConfig('rendered-c', { users: [{ name: 'core', passwordHash: '$6$x' }] }));
    assert.deepEqual(hash.skipped, ['passwd.users core: passwordHash']);
  });

  it('kernel arguments: the old config\'s are deleted, the new appended, the node\'s own kept', async () => {
    const root = await roots.make();
    await mkdir(join(root, 'etc/kernel'), { recursive: true });
    await writeFile(join(root, 'etc/kernel/cmdline'), 'root=UUID=1 rw\n');
    const a = nodeConfig('rendered-a', { kernelArguments: ['nosmt', 'audit=1 "x=a b"'] });
    assert.equal((await applyUpdate(root, emptyConfig(), a)).kernelArguments, true);
    assert.equal(await readText(root, 'etc/kernel/cmdline'), 'root=UUID=1 rw nosmt audit=1 "x=a b"\n');
    await applyUpdate(root, a, nodeConfig('rendered-b', { kernelArguments: ['mitigations=off'] }));
    assert.equal(await readText(root, 'etc/kernel/cmdline'), 'root=UUID=1 rw mitigations=off\n');
  });

  it('records the OS image, kernel type and extensions only when they change', async () => {
    const root = await roots.make();
    const same = await applyUpdate(root, emptyConfig(), nodeConfig('a', { files: [file('/etc/x', 'x')] }));
    assert.equal(same.os, false);
    assert.equal(await exists(root, 'etc/machine-config-daemon/os.json'), false);
    const b = nodeConfig('b', { osImageURL: 'quay.io/os@sha256:2', kernelType: 'realtime', extensions: ['usbguard'] });
    assert.equal((await applyUpdate(root, emptyConfig(), b)).os, true);
    assert.deepEqual(JSON.parse((await readText(root, 'etc/machine-config-daemon/os.json'))!), { osImageURL: 'quay.io/os@sha256:2', kernelType: 'realtime', extensions: ['usbguard'] });
  });
});

/** Every path under `root` with what it is: contents and mode, link target, or directory. */
async function rootSnapshot(root: string, dir = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, { [path]: 'dir' }, await rootSnapshot(root, path));
    else if (e.isSymbolicLink()) out[path] = `-> ${await linkOf(root, path)}`;
    else out[path] = `${(await modeOf(root, path)).toString(8)} ${await readText(root, path)}`;
  }
  return out;
}
