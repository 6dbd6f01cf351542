import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeDataUrl } from './data-url.ts';
import { formatProblem } from './problems.ts';
import { parseObject } from './parse.ts';

describe('ignition spec 2.2 translation', () => {
  it('translates a 2.2 config to its spec 3.2 equivalent', () => {
    const hash = `sha512-${'b'.repeat(128)}`;
    const result = parseObject({
      ignition: {
        version: '2.2.0',
        config: { append: [{ source: 'https://localhost:22623/config/worker', verification: { hash } }] },
        security: { tls: { certificateAuthorities: [{ source: 'data:,ca' }] } },
        timeouts: { httpTotal: 30 },
      },
      storage: {
        files: [
          { filesystem: 'root', path: '/etc/motd', contents: { source: 'data:,hi' }, mode: 420 },
          { filesystem: 'root', path: '/etc/keep', overwrite: false, contents: { source: 'data:,x' } },
          { filesystem: 'root', path: '/etc/log', append: true, contents: { source: 'data:,more' }, user: { name: 'core' } },
          { filesystem: 'root', path: '/etc/empty' },
        ],
        directories: [{ filesystem: 'root', path: '/var/lib/x', mode: 493 }],
        links: [{ filesystem: 'root', path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' }],
      },
      systemd: {
        units: [
          { name: 'a.service', enable: true, contents: '[Service]\nA=1\n[Install]\nWantedBy=multi-user.target' },
          { name: 'b.service', enable: true, enabled: false },
          { name: 'c.service', mask: true, dropins: [{ name: '10-x.conf', contents: '[Service]\nB=2' }] },
        ],
      },
      networkd: { units: [{ name: '10-eth0.network', contents: '[Match]\nName=eth0\n' }] },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA'], create: { shell: '/bin/bash', uid: 1000 }, uid: 1001 }], groups: [{ name: 'docker' }] },
    });
    assert.ok(result.ok, result.ok ? '' : result.errors.map(formatProblem).join('\n'));
    const c = result.config;
    assert.equal(result.sourceVersion, '2.2.0');
    assert.equal(c.ignition.version, '3.2.0');
    assert.deepEqual(c.ignition.config, { merge: [{ source: 'https://localhost:22623/config/worker', verification: { hash } }] });
    assert.deepEqual(c.ignition.security, { tls: { certificateAuthorities: [{ source: 'data:,ca' }] } });
    assert.deepEqual(c.ignition.timeouts, { httpTotal: 30 });
    assert.deepEqual(c.storage?.files?.slice(0, 4), [
      { path: '/etc/motd', overwrite: true, contents: { source: 'data:,hi' }, mode: 420 },
      { path: '/etc/keep', overwrite: false, contents: { source: 'data:,x' } },
      { path: '/etc/log', overwrite: false, user: { name: 'core' }, append: [{ source: 'data:,more' }] },
      { path: '/etc/empty', overwrite: true, contents: { source: 'data:,' } },
    ]);
    const networkFile = c.storage?.files?.[4];
    assert.equal(networkFile?.path, '/etc/systemd/network/10-eth0.network');
    const decoded = decodeDataUrl(networkFile?.contents?.source ?? '');
    assert.ok(decoded.ok);
    assert.equal(decoded.data.toString(), '[Match]\nName=eth0\n');
    assert.deepEqual(c.storage?.directories, [{ path: '/var/lib/x', mode: 493 }]);
    assert.deepEqual(c.storage?.links, [{ path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' }]);
    assert.deepEqual(c.systemd?.units, [
      { name: 'a.service', enabled: true, contents: '[Service]\nA=1\n[Install]\nWantedBy=multi-user.target' },
      { name: 'b.service', enabled: false },
      { name: 'c.service', mask: true, dropins: [{ name: '10-x.conf', contents: '[Service]\nB=2' }] },
    ]);
    assert.deepEqual(c.passwd?.users, [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA'], shell: '/bin/bash', uid: 1001 }]);
    assert.deepEqual(c.passwd?.groups, [{ name: 'docker' }]);
  });

  it('refuses entries on filesystems other than root', () => {
    const result = parseObject({
      ignition: { version: '2.2.0' },
      storage: { filesystems: [{ name: 'var', mount: { device: '/dev/sdb', format: 'xfs' } }], files: [{ filesystem: 'var', path: '/log' }, { path: '/x' }] },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(result.ok ? [] : result.errors.map(formatProblem), [
      'storage.filesystems[0].name: filesystem "var" cannot be translated to spec 3: only "root" is supported',
      'storage.files[0].filesystem: only the "root" filesystem is supported (got "var")',
      'storage.files[1].filesystem: is required in spec 2.x',
    ]);
  });

  it('validates the translated config: duplicate files are refused, as ign-converter does', () => {
    const result = parseObject({ ignition: { version: '2.2.0' }, storage: { files: [{ filesystem: 'root', path: '/a' }, { filesystem: 'root', path: '/a' }] } });
    assert.equal(result.ok, false);
    assert.deepEqual(result.ok ? [] : result.errors.map(formatProblem), ['storage.files[1]: duplicate path "/a" (also storage.files[0])']);
  });

  it('spec 3 fields are unknown keys in a 2.2 config', () => {
    const result = parseObject({ ignition: { version: '2.2.0' }, kernelArguments: { shouldExist: ['a'] } });
    assert.ok(result.ok);
    assert.deepEqual(result.warnings.map(formatProblem), ['kernelArguments: unknown key (ignored)']);
  });
});
