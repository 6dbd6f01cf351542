import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IgnitionConfigError } from '../api/ignition/index.ts';
import { fromMachineConfig, sameValue } from './config.ts';

describe('a node config from a MachineConfig', () => {
  it('parses spec.config (2.2 translated to 3) and carries the MachineConfig fields', () => {
    const c = fromMachineConfig({
      metadata: { name: 'rendered-worker-1' },
      spec: {
        config: { ignition: { version: '2.2.0' }, storage: { files: [{ filesystem: 'root', path: '/etc/x', mode: 493, contents: { source: 'data:,x' } }] } },
        kernelArguments: ['nosmt'],
        fips: false,
        osImageURL: 'quay.io/os@sha256:1',
      },
    });
    assert.equal(c.name, 'rendered-worker-1');
    assert.deepEqual(c.ignition.storage?.files, [{ path: '/etc/x', overwrite: true, mode: 493, contents: { source: 'data:,x' } }]);
    assert.deepEqual(c.kernelArguments, ['nosmt']);
    assert.equal(c.osImageURL, 'quay.io/os@sha256:1');
  });

  it('a MachineConfig without Ignition is an empty config; an unreadable one names spec.config', () => {
    assert.deepEqual(fromMachineConfig({ metadata: { name: 'k' }, spec: { kernelArguments: ['a'] } }).ignition.storage, undefined);
    assert.throws(
      () => fromMachineConfig({ metadata: { name: 'bad' }, spec: { config: { ignition: { version: '9.0.0' } } } }),
      (err: Error) => err instanceof IgnitionConfigError && /spec\.config\.ignition\.version: unsupported config version "9\.0\.0"/.test(err.message),
    );
  });

  it('treats unset, null, empty lists and empty objects alike, and keeps list order', () => {
    assert.equal(sameValue({ a: undefined, b: [], c: {} }, undefined), true);
    assert.equal(sameValue({ users: [{ name: 'core', groups: [] }] }, { users: [{ name: 'core' }] }), true);
    assert.equal(sameValue(['a', 'b'], ['b', 'a']), false);
    assert.equal(sameValue({ overwrite: false }, {}), false);
  });
});
