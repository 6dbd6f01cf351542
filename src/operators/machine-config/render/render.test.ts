import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineConfigAnnotations, validateMachineConfig, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { renderBootstrap, renderedConfigGeneratedMessage, renderPool, type RenderOutcome } from './render.ts';
import { renderTemplates } from './templates.ts';
import { controllerConfig, controllerVersion, filesConfig, machineConfig, pool, renderedFile, seedMachineConfig } from './testing.ts';

const options = { controllerVersion };

function rendered(outcome: RenderOutcome): MachineConfig {
  assert.equal(outcome.kind, 'rendered', outcome.kind === 'failed' ? outcome.message : outcome.kind);
  return (outcome as Extract<RenderOutcome, { kind: 'rendered' }>).machineConfig;
}

const templates = () => renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
const nameOf = (o: RenderOutcome) => rendered(o).metadata?.name;

/** The same value with every object's keys in reverse order, as another client might send it. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)]));
}

describe('rendering a pool', () => {
  it('renders the seed\'s 99-kubeinit-extra-config-worker on top of the worker templates', () => {
    const outcome = renderPool(pool('worker', { uid: 'pool-uid' }), [...templates(), seedMachineConfig()], controllerConfig(), options);
    const mc = rendered(outcome);
    assert.match(mc.metadata?.name ?? '', /^rendered-worker-[0-9a-f]{32}$/);
    const script = renderedFile(mc, '/usr/local/bin/kubeinit_kubevirt_extra_config_script');
    assert.equal(script?.mode, 0o755);
    assert.equal(script?.overwrite, true);
    assert.match(script?.text ?? '', /^#!\/usr\/bin\/bash\nset -x\nmain\(\) \{\nsudo rpm-ostree install policycoreutils-python-utils\n/);
    assert.match(renderedFile(mc, '/etc/kubernetes/kubelet.conf')?.text ?? '', /maxPods: 250/);
    assert.equal(renderedFile(mc, '/etc/kubernetes/manifests/kube-apiserver-pod.yaml'), undefined);
    assert.deepEqual(validateMachineConfig(mc), [], 'the API server accepts what the controller will create');
    assert.ok(outcome.kind === 'rendered');
    assert.deepEqual(
      outcome.source.map((s) => [s.apiVersion, s.kind, s.name]),
      ['00-worker', '01-worker-kubelet', '99-kubeinit-extra-config-worker', '99-worker-ssh'].map((n) => ['machineconfiguration.openshift.io/v1', 'MachineConfig', n]),
    );
  });

  it('owns the rendered config by the pool and stamps the controller and release versions', () => {
    const mc = rendered(renderPool(pool('worker', { uid: 'pool-uid' }), templates(), controllerConfig(), options));
    assert.equal(mc.apiVersion, 'machineconfiguration.openshift.io/v1');
    assert.equal(mc.kind, 'MachineConfig');
    assert.deepEqual(mc.metadata?.ownerReferences, [{ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool', name: 'worker', uid: 'pool-uid', controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(mc.metadata?.annotations, {
      [machineConfigAnnotations.generatedByControllerVersion]: controllerVersion,
      [machineConfigAnnotations.releaseImageVersion]: '4.99.0',
    });
    assert.equal(mc.metadata?.labels, undefined);
    assert.equal(renderedConfigGeneratedMessage(mc), `${mc.metadata?.name} successfully generated (release version: 4.99.0, controller version: ${controllerVersion})`);
    assert.equal(rendered(renderPool(pool('worker'), templates(), controllerConfig(), options)).metadata?.ownerReferences, undefined, 'no uid, no owner reference');
  });

  it('gives equal content the same name, whatever order or key order it arrives in', () => {
    const base = [...templates(), seedMachineConfig()];
    const first = nameOf(renderPool(pool('worker'), base, controllerConfig(), options));
    const reordered = [...base].reverse().map((mc) => reverseKeys(mc) as MachineConfig);
    assert.equal(nameOf(renderPool(pool('worker', { uid: 'other' }), reordered, controllerConfig(), options)), first);
    // The same content through another source: a spec 3 config instead of the seed's 2.2.
    const seed = seedMachineConfig();
    const spec3 = machineConfig('99-kubeinit-extra-config-worker', 'worker', {
      config: {
        ignition: { version: '3.2.0' },
        storage: { files: [{ path: '/usr/local/bin/kubeinit_kubevirt_extra_config_script', mode: 0o755, overwrite: true, contents: { source: (seed.spec.config as { storage: { files: Array<{ contents: { source: string } }> } }).storage.files[0]!.contents.source } }] },
      },
    });
    assert.equal(nameOf(renderPool(pool('worker'), [...templates(), spec3], controllerConfig(), options)), first);
  });

  it('changes the name when the content changes, and only then', () => {
    const motd = (text: string) => machineConfig('50-motd', 'worker', { config: filesConfig({ '/etc/motd': text }) });
    const a = nameOf(renderPool(pool('worker'), [...templates(), motd('a')], controllerConfig(), options));
    const b = nameOf(renderPool(pool('worker'), [...templates(), motd('b')], controllerConfig(), options));
    const kargs = nameOf(renderPool(pool('worker'), [...templates(), motd('a'), machineConfig('05-kargs', 'worker', { kernelArguments: ['nosmt'] })], controllerConfig(), options));
    assert.notEqual(a, b);
    assert.notEqual(a, kargs);
    assert.equal(nameOf(renderPool(pool('worker'), [...templates(), motd('a')], controllerConfig(), options)), a);
    // A config another pool selects is no part of this pool's content.
    assert.equal(nameOf(renderPool(pool('worker'), [...templates(), motd('a'), machineConfig('50-motd-master', 'master', { config: filesConfig({ '/etc/motd': 'm' }) })], controllerConfig(), options)), a);
  });

  it('two MachineConfigs writing one path: the later by name wins in the rendered config', () => {
    const mc = rendered(
      renderPool(
        pool('worker'),
        [...templates(), machineConfig('99-z-motd', 'worker', { config: filesConfig({ '/etc/motd': 'z wins' }) }), machineConfig('50-a-motd', 'worker', { config: filesConfig({ '/etc/motd': 'a loses' }) })],
        controllerConfig(),
        options,
      ),
    );
    assert.equal(renderedFile(mc, '/etc/motd')?.text, 'z wins');
  });

  it('names the pool, the MachineConfig and the field when a selected config cannot render', () => {
    const bad = machineConfig('99-bad', 'worker', { config: filesConfig({ 'relative/path': 'x' }) });
    const outcome = renderPool(pool('worker'), [...templates(), bad], controllerConfig(), options);
    assert.deepEqual(outcome, {
      kind: 'failed',
      cause: 'MachineConfig "99-bad": spec.config.storage.files[0].path: Invalid value: "relative/path": must be absolute (got "relative/path")',
      message: 'Failed to render configuration for pool worker: MachineConfig "99-bad": spec.config.storage.files[0].path: Invalid value: "relative/path": must be absolute (got "relative/path")',
    });
    // The same config in another pool's selection does not fail that pool.
    assert.equal(renderPool(pool('master'), [...templates(), bad], controllerConfig(), options).kind, 'rendered');
  });

  it('fails when the selector finds nothing, worded as the MCO', () => {
    assert.deepEqual(renderPool(pool('infra'), templates(), controllerConfig(), options), {
      kind: 'failed',
      cause: 'no MachineConfigs found matching selector machineconfiguration.openshift.io/role=infra',
      message: 'Failed to render configuration for pool infra: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=infra',
    });
    const unset = pool('worker');
    delete unset.spec.machineConfigSelector;
    assert.equal((renderPool(unset, templates(), controllerConfig(), options) as { message: string }).message, 'Failed to render configuration for pool worker: no MachineConfigs found matching selector <none>');
  });

  it('skips a pool selecting everything with the SelectingAll warning, rendering nothing', () => {
    const all = pool('worker');
    all.spec.machineConfigSelector = {};
    assert.deepEqual(renderPool(all, templates(), controllerConfig(), options), {
      kind: 'skipped',
      warning: { reason: 'SelectingAll', message: 'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.' },
    });
  });

  it('a custom pool built on the worker\'s configs: its own configs win', () => {
    const infra = pool('infra', { roles: ['worker', 'infra'] });
    const mc = rendered(
      renderPool(infra, [...templates(), machineConfig('00-infra-motd', 'infra', { config: filesConfig({ '/etc/motd': 'infra' }) }), machineConfig('99-worker-motd', 'worker', { config: filesConfig({ '/etc/motd': 'worker' }) })], controllerConfig(), options),
    );
    assert.match(mc.metadata?.name ?? '', /^rendered-infra-[0-9a-f]{32}$/);
    assert.equal(renderedFile(mc, '/etc/motd')?.text, 'infra');
  });

  it('refuses a ControllerConfig written by another operator version (the upgrade skew guard)', () => {
    const cc = controllerConfig({}, { 'machineconfiguration.openshift.io/generated-by-version': 'v0.0.9' });
    assert.equal((renderPool(pool('worker'), templates(), cc, options) as { message: string }).message, `Failed to render configuration for pool worker: Ignoring controller config generated from v0.0.9 (my version: ${controllerVersion})`);
    const ours = controllerConfig({}, { 'machineconfiguration.openshift.io/generated-by-version': controllerVersion });
    assert.equal(renderPool(pool('worker'), templates(), ours, options).kind, 'rendered');
  });

  it('bootstrap: every pool rendered, its target and its status both at the rendered config, with the names the controller gives', () => {
    const pools = [pool('master'), pool('worker')];
    const { pools: out, renderedConfigs } = renderBootstrap(pools, templates(), controllerConfig(), options);
    assert.deepEqual(renderedConfigs.map((mc) => mc.metadata?.name), pools.map((p) => nameOf(renderPool(p, templates(), controllerConfig(), options))));
    for (const [i, p] of out.entries()) {
      assert.equal(p.spec.configuration?.name, renderedConfigs[i]!.metadata?.name);
      assert.deepEqual(p.status?.configuration, p.spec.configuration);
      assert.deepEqual(p.spec.configuration?.source?.map((s) => s.name), [`00-${p.metadata?.name}`, `01-${p.metadata?.name}-kubelet`, `99-${p.metadata?.name}-ssh`]);
    }
    assert.equal(pools[0]!.spec.configuration, undefined, 'inputs are not modified');
    assert.throws(() => renderBootstrap([pool('infra')], templates(), controllerConfig(), options), /^Error: Failed to render configuration for pool infra: no MachineConfigs found/);
  });
});
