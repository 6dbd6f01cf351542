import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMachineConfig } from './validate.ts';
import { filesConfig, machineConfig, seedMachineConfig } from './testing.ts';

const errorOf = (r: ReturnType<typeof checkMachineConfig>) => (r.ok ? undefined : r.error);

describe('checking a MachineConfig before it is rendered', () => {
  it('accepts the seed\'s Ignition 2.2 config and translates it to spec 3', () => {
    const r = checkMachineConfig(seedMachineConfig());
    assert.ok(r.ok, errorOf(r));
    assert.equal(r.ignition?.ignition.version, '3.2.0');
    assert.deepEqual(
      r.ignition?.storage?.files?.map((f) => [f.path, f.mode, f.overwrite]),
      [['/usr/local/bin/kubeinit_kubevirt_extra_config_script', 0o755, true]],
    );
  });

  it('accepts a config with no Ignition at all (kernel arguments only)', () => {
    for (const config of [undefined, {}]) {
      const r = checkMachineConfig(machineConfig('05-kargs', 'worker', { kernelArguments: ['nosmt'], ...(config ? { config } : {}) }));
      assert.deepEqual(r, { ok: true, name: '05-kargs', ignition: undefined });
    }
  });

  it('names the MachineConfig and the field of an Ignition problem', () => {
    const config = filesConfig({ 'etc/relative': 'x' });
    assert.equal(
      errorOf(checkMachineConfig(machineConfig('99-bad', 'worker', { config }))),
      'MachineConfig "99-bad": spec.config.storage.files[0].path: Invalid value: "etc/relative": must be absolute (got "etc/relative")',
    );
    assert.match(errorOf(checkMachineConfig(machineConfig('99-v', 'worker', { config: { ignition: { version: '9.0.0' } } })))!, /^MachineConfig "99-v": spec\.config\.ignition\.version: .*unsupported config version "9\.0\.0" \(supported: 2\.2\.0, 3\.0\.0/);
  });

  it('refuses setuid, setgid and sticky bits as the MCO does', () => {
    const config = filesConfig({ '/usr/local/bin/x': 'x' });
    (config.storage as { files: Array<{ mode?: number }> }).files[0]!.mode = 0o4755;
    assert.match(errorOf(checkMachineConfig(machineConfig('99-suid', 'worker', { config })))!, /^MachineConfig "99-suid": spec\.config\.storage\.files\[0\]\.mode: Invalid value: 2541: invalid mode 04755 for \/usr\/local\/bin\/x, cannot exceed 0777/);
  });

  it('refuses an unknown kernel type and extensions outside the allow-list', () => {
    assert.equal(errorOf(checkMachineConfig(machineConfig('99-k', 'worker', { kernelType: 'rt' }))), 'MachineConfig "99-k": kernelType=rt is invalid');
    assert.ok(checkMachineConfig(machineConfig('99-k', 'worker', { kernelType: '64k-pages' })).ok);
    assert.equal(errorOf(checkMachineConfig(machineConfig('99-e', 'worker', { extensions: ['usbguard', 'emacs', 'vim'] }))), 'MachineConfig "99-e": invalid extensions found: [emacs vim]');
  });
});
