import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateMachineConfig } from './validate-machine-config.ts';

/** The seed's `99-kubeinit-extra-config-worker` config, as kubectl sends its YAML (mode 0755 is YAML 1.1 octal). */
const seedConfig = () => ({
  ignition: { config: { replace: { verification: {} } }, security: { tls: {} }, timeouts: {}, version: '2.2.0' },
  networkd: {},
  passwd: {},
  storage: {
    files: [
      {
        contents: {
          source:
            'data:text/plain;charset=utf-8;base64,IyEvdXNyL2Jpbi9iYXNoCnNldCAteAptYWluKCkgewpzdWRvIHJwbS1vc3RyZWUgaW5zdGFsbCBwb2xpY3ljb3JldXRpbHMtcHl0aG9uLXV0aWxzCnN1ZG8gc2VkIC1pICdzL2VuZm9yY2luZy9kaXNhYmxlZC9nJyAvZXRjL3NlbGludXgvY29uZmlnIC9ldGMvc2VsaW51eC9jb25maWcKfQptYWluCg==',
          verification: {},
        },
        filesystem: 'root',
        mode: 0o755,
        path: '/usr/local/bin/kubeinit_kubevirt_extra_config_script',
      },
    ],
  },
});

const mc = (config: unknown) => ({ spec: { config } });
const v3 = (storage: Record<string, unknown>, version = '3.4.0') => ({ ignition: { version }, storage });
const messages = (config: unknown) => validateMachineConfig(mc(config)).map((e) => e.message);

describe('MachineConfig admission checks of spec.config', () => {
  it('accept the seed\'s Ignition 2.2.0 config with a base64 data URL and mode 0755', () => {
    assert.deepEqual(validateMachineConfig(mc(seedConfig())), []);
  });

  it('accept a MachineConfig without a config (kernel arguments only), and every supported version', () => {
    assert.deepEqual(validateMachineConfig({ spec: {} }), []);
    assert.deepEqual(validateMachineConfig({ spec: { config: null } }), []);
    for (const version of ['3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0']) assert.deepEqual(validateMachineConfig(mc({ ignition: { version } })), [], version);
  });

  it('refuse an unknown version, listing the supported ones', () => {
    const [err, ...rest] = validateMachineConfig(mc({ ignition: { version: '3.9.0' } }));
    assert.deepEqual(rest, []);
    assert.equal(err!.field, 'spec.config.ignition.version');
    assert.equal(err!.type, 'FieldValueInvalid');
    assert.equal(err!.message, 'spec.config.ignition.version: Invalid value: "3.9.0": unsupported config version "3.9.0" (supported: 2.2.0, 3.0.0, 3.1.0, 3.2.0, 3.3.0, 3.4.0)');
    assert.deepEqual(messages({}), ['spec.config.ignition.version: Required value']);
  });

  it('refuse a bad data URL, naming the source field', () => {
    const errs = validateMachineConfig(mc(v3({ files: [{ path: '/etc/a', contents: { source: 'data:;base64,@@@' } }] })));
    assert.deepEqual(
      errs.map((e) => [e.field, e.message]),
      [['spec.config.storage.files[0].contents.source', 'spec.config.storage.files[0].contents.source: Invalid value: "data:;base64,@@@": invalid data URL: malformed base64']],
    );
  });

  it('refuse a relative path, in 2.2 and 3.x alike', () => {
    const two = seedConfig();
    two.storage.files[0]!.path = 'usr/local/bin/x';
    assert.deepEqual(messages(two), ['spec.config.storage.files[0].path: Invalid value: "usr/local/bin/x": must be absolute (got "usr/local/bin/x")']);
    assert.deepEqual(messages(v3({ directories: [{ path: 'etc/d' }] })), ['spec.config.storage.directories[0].path: Invalid value: "etc/d": must be absolute (got "etc/d")']);
  });

  it('refuse a mode above 0777 (setuid, setgid, sticky), which Ignition only warns about', () => {
    const errs = validateMachineConfig(mc(v3({ files: [{ path: '/a', mode: 0o4755 }, { path: '/b', mode: 0o644 }], directories: [{ path: '/d', mode: 0o1777 }] })));
    assert.deepEqual(
      errs.map((e) => [e.field, e.message]),
      [
        ['spec.config.storage.files[0].mode', 'spec.config.storage.files[0].mode: Invalid value: 2541: invalid mode 04755 for /a, cannot exceed 0777 (no setuid, setgid or sticky bits)'],
        ['spec.config.storage.directories[0].mode', 'spec.config.storage.directories[0].mode: Invalid value: 1023: invalid mode 01777 for /d, cannot exceed 0777 (no setuid, setgid or sticky bits)'],
      ],
    );
    // Beyond 07777 Ignition's own error is the one reported, once.
    assert.deepEqual(messages(v3({ files: [{ path: '/a', mode: 0o10000 }] })), ['spec.config.storage.files[0].mode: Invalid value: 4096: illegal file mode 4096 (010000): must be between 0 and 07777 octal']);
  });

  it('refuse a path given twice in one config, naming the later entry\'s path and the earlier one', () => {
    const cfg = seedConfig();
    cfg.storage.files.push({ ...cfg.storage.files[0]! });
    const errs = validateMachineConfig(mc(cfg));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'spec.config.storage.files[1].path');
    assert.match(errs[0]!.message, /^spec\.config\.storage\.files\[1\]\.path: Invalid value: "\/usr\/local\/bin\/kubeinit_kubevirt_extra_config_script": duplicate path .* \(also storage\.files\[0\]\)$/);
  });

  it('report wrongly typed fields as type errors and a missing path as required', () => {
    const errs = validateMachineConfig(mc(v3({ files: [{ path: '/a', mode: '0644' }, {}] })));
    assert.deepEqual(
      errs.map((e) => [e.type, e.field]),
      [['FieldValueTypeInvalid', 'spec.config.storage.files[0].mode']],
      'decoding stops before semantic checks',
    );
    assert.deepEqual(
      validateMachineConfig(mc(v3({ files: [{}] }))).map((e) => [e.type, e.message]),
      [['FieldValueRequired', 'spec.config.storage.files[0].path: Required value']],
    );
  });

  it('on update, check spec.config only when it changed', () => {
    const bad = mc(v3({ files: [{ path: 'relative' }] }));
    assert.equal(validateMachineConfig(bad, structuredClone(bad)).length, 0, 'an unchanged config stored earlier is not re-judged');
    assert.equal(validateMachineConfig(bad, mc(v3({}))).length, 1);
    assert.deepEqual(validateMachineConfig(mc(seedConfig()), mc(v3({ files: [{ path: 'relative' }] }))), []);
  });
});
