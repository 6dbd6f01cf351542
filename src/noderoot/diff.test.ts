import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffConfigs, formatDiff, isEmptyDiff } from './diff.ts';
import { file, nodeConfig } from './testing.ts';

describe('the diff of two configs (the MCO\'s machineConfigDiff)', () => {
  it('a changed file sets files only, and prints as the seed\'s log line does', () => {
    const a = nodeConfig('a', { files: [file('/etc/a', '1'), file('/etc/same', 's')] });
    const b = nodeConfig('b', { files: [file('/etc/same', 's'), file('/etc/a', '2'), file('/usr/local/bin/x', 'x')] });
    const d = diffConfigs(a, b);
    assert.equal(formatDiff(d), '&{osUpdate:false kargs:false fips:false passwd:false files:true units:false kernelType:false extensions:false}');
    assert.deepEqual(d.changedFiles, ['/etc/a', '/usr/local/bin/x']);
    assert.deepEqual(diffConfigs(b, a).changedFiles, ['/etc/a', '/usr/local/bin/x'], 'a dropped file is a changed file');
  });

  it('units are added, updated or removed by name', () => {
    const a = nodeConfig('a', { units: [{ name: 'keep.service', enabled: true }, { name: 'gone.service', mask: true }, { name: 'edit.service', contents: '1' }] });
    const b = nodeConfig('b', { units: [{ name: 'edit.service', contents: '2' }, { name: 'keep.service', enabled: true }, { name: 'new.service', enabled: false }] });
    const d = diffConfigs(a, b);
    assert.equal(d.units, true);
    assert.deepEqual([d.addedUnits, d.updatedUnits, d.removedUnits], [['new.service'], ['edit.service'], ['gone.service']]);
  });

  it('passwd: core\'s keys and password hash are told apart', () => {
    const a = nodeConfig('a', { users: [{ name: 'core', sshAuthorizedKeys: ['k1'] }] });
    const keys = diffConfigs(a, nodeConfig('b', { users: [{ name: 'core', sshAuthorizedKeys: ['k2'] }] }));
    assert.deepEqual([keys.passwd, keys.sshKeys, keys.passwordHash], [true, true, false]);
    const hash = diffConfigs(a, nodeConfig('b', { users: [{ name: 'core', sshAuthorizedKeys: ['k1'], passwordHash: '$6$x' }] }));
    assert.deepEqual([hash.passwd, hash.sshKeys, hash.passwordHash], [true, false, true]);
  });

  it('the MachineConfig fields: kernel arguments in order, "" and "default" kernel types alike, empty lists alike', () => {
    const a = nodeConfig('a', { kernelArguments: ['a', 'b'], kernelType: '' });
    assert.equal(diffConfigs(a, nodeConfig('b', { kernelArguments: ['b', 'a'], kernelType: 'default' })).kargs, true);
    assert.equal(diffConfigs(a, nodeConfig('b', { kernelArguments: ['a', 'b'], kernelType: 'default' })).kernelType, false);
    assert.equal(diffConfigs(nodeConfig('a', { kernelArguments: null, extensions: [] }), nodeConfig('b', {})).kargs, false);
    const all = diffConfigs(a, nodeConfig('b', { kernelArguments: ['a', 'b'], osImageURL: 'quay.io/os@sha256:2', fips: true, kernelType: 'realtime', extensions: ['usbguard'] }));
    assert.deepEqual([all.osUpdate, all.kargs, all.fips, all.kernelType, all.extensions], [true, false, true, true, true]);
  });

  it('configs that differ only in how they say nothing are equal (another spec version, empty sections)', () => {
    const a = nodeConfig('a', { files: [file('/etc/a', '1')] });
    const b = nodeConfig('b', { files: [file('/etc/a', '1')], ignition: { ignition: { version: '3.2.0' }, passwd: {}, systemd: { units: [] } } });
    assert.equal(isEmptyDiff(diffConfigs(a, b)), true);
  });
});
