import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { merge } from './merge.ts';
import { configReferences, isPointerConfig } from './pointer.ts';
import type { IgnitionConfig } from './types.ts';

const v = (rest: Omit<IgnitionConfig, 'ignition'> & { ignition?: Partial<IgnitionConfig['ignition']> } = {}): IgnitionConfig => ({
  ...rest,
  ignition: { version: '3.4.0', ...rest.ignition },
});

describe('ignition merge', () => {
  it('merges entries with the same path field by field; unset child fields inherit', () => {
    const parent = v({ storage: { files: [{ path: '/a', mode: 0o600, contents: { source: 'data:,old', compression: '' } }, { path: '/b', contents: { source: 'data:,b' } }] } });
    const child = v({ storage: { files: [{ path: '/a', contents: { source: 'data:,new' } }, { path: '/c', contents: { source: 'data:,c' } }] } });
    assert.deepEqual(merge(parent, child).storage?.files, [
      { path: '/a', mode: 0o600, contents: { source: 'data:,new', compression: '' } },
      { path: '/b', contents: { source: 'data:,b' } },
      { path: '/c', contents: { source: 'data:,c' } },
    ]);
  });

  it('files, directories and links share one key space', () => {
    const parent = v({ storage: { files: [{ path: '/x', contents: { source: 'data:,f' } }], directories: [{ path: '/y' }] } });
    const child = v({ storage: { directories: [{ path: '/x', mode: 0o700 }], links: [{ path: '/y', target: '/z' }] } });
    const merged = merge(parent, child).storage;
    assert.equal(merged?.files, undefined);
    assert.deepEqual(merged?.directories, [{ path: '/x', mode: 0o700 }]);
    assert.deepEqual(merged?.links, [{ path: '/y', target: '/z' }]);
  });

  it('units and drop-ins merge by name', () => {
    const parent = v({ systemd: { units: [{ name: 'a.service', enabled: true, contents: 'P', dropins: [{ name: '1.conf', contents: 'p1' }] }] } });
    const child = v({ systemd: { units: [{ name: 'a.service', enabled: false, dropins: [{ name: '1.conf', contents: 'c1' }, { name: '2.conf', contents: 'c2' }] }, { name: 'b.service' }] } });
    assert.deepEqual(merge(parent, child).systemd?.units, [
      { name: 'a.service', enabled: false, contents: 'P', dropins: [{ name: '1.conf', contents: 'c1' }, { name: '2.conf', contents: 'c2' }] },
      { name: 'b.service' },
    ]);
  });

  it('appendices concatenate; plain lists are unions; users merge by name', () => {
    const parent = v({
      storage: { files: [{ path: '/log', append: [{ source: 'data:,1' }] }] },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2'] }] },
      kernelArguments: { shouldExist: ['a'] },
    });
    const child = v({
      storage: { files: [{ path: '/log', append: [{ source: 'data:,2' }] }] },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k2', 'k3'], passwordHash: 'h' }] },
      kernelArguments: { shouldExist: ['a', 'b'] },
    });
    const merged = merge(parent, child);
    assert.deepEqual(merged.storage?.files?.[0]?.append, [{ source: 'data:,1' }, { source: 'data:,2' }]);
    assert.deepEqual(merged.passwd?.users, [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2', 'k3'], passwordHash: 'h' }]);
    assert.deepEqual(merged.kernelArguments?.shouldExist, ['a', 'b']);
  });

  it('a null header value in the child removes the parent header', () => {
    const parent = v({ storage: { files: [{ path: '/a', contents: { source: 'http://localhost/a', httpHeaders: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] } }] } });
    const child = v({ storage: { files: [{ path: '/a', contents: { httpHeaders: [{ name: 'A', value: null }, { name: 'B', value: '3' }] } }] } });
    assert.deepEqual(merge(parent, child).storage?.files?.[0]?.contents?.httpHeaders, [{ name: 'B', value: '3' }]);
  });

  it('scalars: the child wins; the inputs are not modified', () => {
    const parent = v({ ignition: { version: '3.2.0', timeouts: { httpTotal: 10, httpResponseHeaders: 5 } }, storage: { files: [{ path: '/a' }] } });
    const child = v({ ignition: { timeouts: { httpTotal: 20 } } });
    const before = structuredClone(parent);
    const merged = merge(parent, child);
    assert.equal(merged.ignition.version, '3.4.0');
    assert.deepEqual(merged.ignition.timeouts, { httpTotal: 20, httpResponseHeaders: 5 });
    merged.storage!.files![0]!.mode = 1;
    assert.deepEqual(parent, before);
  });
});

describe('ignition pointer configs', () => {
  const pointer = v({ ignition: { config: { merge: [{ source: 'https://localhost:22623/config/worker' }] }, security: { tls: { certificateAuthorities: [{ source: 'data:,ca' }] } } } });

  it('a config with only references is a pointer', () => {
    assert.equal(isPointerConfig(pointer), true);
    assert.deepEqual(configReferences(pointer), { merge: [{ source: 'https://localhost:22623/config/worker' }] });
    assert.equal(isPointerConfig(v({ ignition: { config: { replace: { source: 'http://localhost/x' } } } })), true);
  });

  it('content or no references means not a pointer', () => {
    assert.equal(isPointerConfig(v()), false);
    assert.equal(isPointerConfig({ ...pointer, storage: { files: [{ path: '/a' }] } }), false);
    assert.equal(isPointerConfig({ ...pointer, systemd: { units: [{ name: 'a.service' }] } }), false);
  });
});
