import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IgnitionConfig } from '../../../api/ignition/index.ts';
import { machineConfigAnnotations, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { mergeMachineConfigs, mergeOrder, type MergeInput } from './merge.ts';
import { checkMachineConfig } from './validate.ts';
import { controllerConfig, filesConfig, machineConfig, renderedFile } from './testing.ts';

const generated = { [machineConfigAnnotations.generatedByControllerVersion]: 'v1' };

function inputs(configs: MachineConfig[]): MergeInput[] {
  return mergeOrder(configs.map((machineConfig) => ({ machineConfig }))).map(({ machineConfig: mc }) => {
    const checked = checkMachineConfig(mc);
    assert.ok(checked.ok, checked.ok ? '' : checked.error);
    return { machineConfig: mc, ignition: checked.ignition };
  });
}

function merged(configs: MachineConfig[], cc = controllerConfig()) {
  const r = mergeMachineConfigs(inputs(configs), cc);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r;
}

const asRendered = (spec: MachineConfig['spec']): MachineConfig => ({ metadata: { name: 'rendered' }, spec });

describe('merging a pool\'s MachineConfigs', () => {
  it('orders role worker first, then the rest, each by name, as the MCO does', () => {
    const order = mergeOrder(
      [machineConfig('99-worker-ssh', 'worker'), machineConfig('00-infra', 'infra'), machineConfig('01-worker-kubelet', 'worker'), machineConfig('00-worker', 'worker'), machineConfig('50-infra-x', 'infra')].map((machineConfig) => ({ machineConfig })),
    ).map((i) => i.machineConfig.metadata?.name);
    // A custom pool's 00-infra sorts after 99-worker-ssh: custom configs override the worker's whatever their names.
    assert.deepEqual(order, ['00-worker', '01-worker-kubelet', '99-worker-ssh', '00-infra', '50-infra-x']);
  });

  it('two configs writing one path: the later by name wins, whatever order they arrive in', () => {
    const a = machineConfig('50-a', 'worker', { config: filesConfig({ '/etc/motd': 'from a', '/etc/a': 'a' }) });
    const b = machineConfig('60-b', 'worker', { config: filesConfig({ '/etc/motd': 'from b' }) });
    for (const configs of [[a, b], [b, a]]) {
      const spec = asRendered(merged(configs).spec);
      assert.equal(renderedFile(spec, '/etc/motd')?.text, 'from b');
      assert.equal(renderedFile(spec, '/etc/a')?.text, 'a');
    }
  });

  it('takes a replaced file\'s contents whole, so an earlier gzip compression never applies to new bytes', () => {
    const gz = filesConfig({ '/etc/x': 'ignored' });
    const gzFile = (gz.storage as { files: Array<Record<string, unknown>> }).files[0]!;
    gzFile.contents = { source: 'data:;base64,H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==', compression: 'gzip' };
    gzFile.mode = 0o600;
    const spec = merged([machineConfig('50-gz', 'worker', { config: gz }), machineConfig('60-plain', 'worker', { config: filesConfig({ '/etc/x': 'plain' }) })]).spec;
    const file = (spec.config as unknown as IgnitionConfig).storage?.files?.[0];
    assert.deepEqual(file?.contents, { source: 'data:,plain' });
    assert.equal(file?.mode, 0o600, 'fields the later config leaves unset still merge');
  });

  it('always overwrites, and speaks the newest spec whatever the sources were written in', () => {
    const spec = merged([machineConfig('00-worker', 'worker', { config: filesConfig({ '/etc/a': 'a' }, '3.0.0') })]).spec;
    const config = spec.config as unknown as IgnitionConfig;
    assert.equal(config.ignition.version, '3.4.0');
    assert.equal(config.storage?.files?.[0]?.overwrite, true);
    const none = merged([machineConfig('05-kargs', 'worker', { kernelArguments: ['nosmt'] })]).spec;
    assert.deepEqual(none.config, { ignition: { version: '3.4.0' } });
  });

  it('concatenates kernel arguments and extensions in merge order, and turns FIPS on if any config asks', () => {
    const spec = merged([
      machineConfig('10-b', 'worker', { kernelArguments: ['b', 'shared'], extensions: ['usbguard'], fips: true }),
      machineConfig('05-a', 'worker', { kernelArguments: ['a', 'shared'] }),
      machineConfig('00-infra', 'infra', { kernelArguments: ['infra'], extensions: ['sysstat'], fips: false }),
    ]).spec;
    assert.deepEqual(spec.kernelArguments, ['a', 'shared', 'b', 'shared', 'infra']);
    assert.deepEqual(spec.extensions, ['usbguard', 'sysstat']);
    assert.equal(spec.fips, true);
    assert.equal(merged([machineConfig('00-worker', 'worker')]).spec.fips, false);
  });

  it('takes the last non-empty kernel type, default when none', () => {
    assert.equal(merged([machineConfig('00-worker', 'worker')]).spec.kernelType, 'default');
    assert.equal(merged([machineConfig('10-rt', 'worker', { kernelType: 'realtime' }), machineConfig('20-none', 'worker', { kernelType: '' })]).spec.kernelType, 'realtime');
    assert.equal(merged([machineConfig('10-rt', 'worker', { kernelType: 'realtime' }), machineConfig('20-64k', 'worker', { kernelType: '64k-pages' })]).spec.kernelType, '64k-pages');
  });

  it('refuses the kernel-devel extension with a non-default kernel', () => {
    const r = mergeMachineConfigs(inputs([machineConfig('10-rt', 'worker', { kernelType: 'realtime', extensions: ['kernel-devel'] })]), controllerConfig());
    assert.deepEqual(r, { ok: false, error: 'installing kernel-devel extension is not supported with kernelType: realtime' });
  });

  it('defaults the OS image to the ControllerConfig\'s and lets the last config that sets one override it', () => {
    const base = merged([machineConfig('00-worker', 'worker', {}, generated)]);
    assert.equal(base.spec.osImageURL, 'shipyard.local/rhcos:4.99.0');
    assert.equal(base.osImageURLOverridden, false);
    const user = merged([machineConfig('00-worker', 'worker', { osImageURL: 'shipyard.local/rhcos:generated' }, generated), machineConfig('99-os', 'worker', { osImageURL: 'example.com/os:custom' })]);
    assert.equal(user.spec.osImageURL, 'example.com/os:custom');
    assert.equal(user.osImageURLOverridden, true, 'a user config chose the OS image');
    assert.equal(merged([machineConfig('00-worker', 'worker', { osImageURL: 'shipyard.local/rhcos:generated' }, generated)]).osImageURLOverridden, false);
    assert.equal(merged([machineConfig('99-seed', 'worker', { osImageURL: '' })]).spec.osImageURL, 'shipyard.local/rhcos:4.99.0', 'an empty osImageURL (the seed\'s) overrides nothing');
  });

  it('carries the extensions image from the ControllerConfig unless a config sets one', () => {
    assert.equal(merged([machineConfig('00-worker', 'worker')]).spec.baseOSExtensionsContainerImage, undefined);
    const cc = controllerConfig({ baseOSExtensionsContainerImage: 'shipyard.local/ext:1' });
    assert.equal(merged([machineConfig('00-worker', 'worker')], cc).spec.baseOSExtensionsContainerImage, 'shipyard.local/ext:1');
    assert.equal(merged([machineConfig('00-worker', 'worker', { baseOSExtensionsContainerImage: 'x/ext:2' })], cc).spec.baseOSExtensionsContainerImage, 'x/ext:2');
  });
});
