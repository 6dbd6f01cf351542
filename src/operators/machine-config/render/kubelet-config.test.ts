import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { machineConfigAnnotations, roleLabel, validateMachineConfig, type KubeletConfig, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { validateKubeletConfig } from './kubelet-config-validate.ts';
import { generatedKubeletConfigName, kubeletConfigCondition, kubeletConfigPools, mcNameSuffixAnnotation, mergeKubeletConfiguration, renderGeneratedKubeletConfig } from './kubelet-config.ts';
import { kubeletConfiguration } from './kubelet-conf.ts';
import { renderPool } from './render.ts';
import { renderTemplates } from './templates.ts';
import { controllerConfig, controllerVersion, pool, renderedFile } from './testing.ts';

function kubeletConfig(name: string, kubelet: Record<string, unknown> | undefined, extra: Partial<KubeletConfig['spec']> = {}, annotations?: Record<string, string>): KubeletConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'KubeletConfig',
    metadata: { name, uid: `${name}-uid`, ...(annotations ? { annotations } : {}) },
    spec: { machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } }, ...(kubelet ? { kubeletConfig: kubelet } : {}), ...extra },
  };
}

function generated(kc: KubeletConfig, poolName = 'worker'): MachineConfig {
  const p = pool(poolName);
  const named = generatedKubeletConfigName(p, kc, [kc]);
  assert.ok(named.ok);
  const out = renderGeneratedKubeletConfig({ pool: p, kubeletConfig: kc, controllerConfig: controllerConfig(), controllerVersion, name: named.value.name });
  assert.ok(out.ok, out.ok ? '' : out.error);
  assert.deepEqual(validateMachineConfig(out.value), [], 'the API server accepts it');
  return out.value;
}

describe('a KubeletConfig', () => {
  it('with maxPods: 50 becomes 99-worker-generated-kubelet, which the render puts over the template\'s kubelet.conf', () => {
    const mc = generated(kubeletConfig('set-max-pods', { maxPods: 50 }));
    assert.equal(mc.metadata?.name, '99-worker-generated-kubelet');
    assert.deepEqual(mc.metadata?.labels, { [roleLabel]: 'worker' });
    assert.deepEqual(mc.metadata?.annotations, { [machineConfigAnnotations.generatedByControllerVersion]: controllerVersion });
    assert.deepEqual(mc.metadata?.ownerReferences, [{ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'KubeletConfig', name: 'set-max-pods', uid: 'set-max-pods-uid', controller: true }]);
    const conf = parse(renderedFile(mc, '/etc/kubernetes/kubelet.conf')!.text);
    assert.deepEqual(conf, { ...kubeletConfiguration(controllerConfig()), maxPods: 50 });

    const outcome = renderPool(pool('worker'), [...renderTemplates({ controllerConfig: controllerConfig(), controllerVersion }), mc], controllerConfig(), { controllerVersion });
    assert.equal(outcome.kind, 'rendered');
    const rendered = (outcome as { machineConfig: MachineConfig }).machineConfig;
    assert.equal(parse(renderedFile(rendered, '/etc/kubernetes/kubelet.conf')!.text).maxPods, 50);
  });

  it('merges maps key by key and lets a set false or 0 win (mergo would keep the template\'s)', () => {
    const base = { maxPods: 250, systemReserved: { cpu: '500m', memory: '1Gi' }, serializeImagePulls: true, apiVersion: 'kubelet.config.k8s.io/v1beta1' };
    assert.deepEqual(mergeKubeletConfiguration(base, { systemReserved: { memory: '2Gi', cpu: null }, serializeImagePulls: false, podPidsLimit: 0, kind: 'Other', apiVersion: 'x/v1', evictionHard: null }), {
      maxPods: 250,
      systemReserved: { cpu: '500m', memory: '2Gi' },
      serializeImagePulls: false,
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      podPidsLimit: 0,
    });
  });

  it('with a log level also writes the kubelet\'s logging drop-in', () => {
    const mc = generated(kubeletConfig('verbose', undefined, { logLevel: 4 }));
    assert.equal(renderedFile(mc, '/etc/systemd/system/kubelet.service.d/20-logging.conf')?.text, '[Service]\nEnvironment="KUBELET_LOG_LEVEL=4"\n');
    assert.deepEqual(parse(renderedFile(mc, '/etc/kubernetes/kubelet.conf')!.text), kubeletConfiguration(controllerConfig()));
  });

  it('may not set the fields that would keep a node from coming back, worded as the MCO', () => {
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ cgroupDriver: 'cgroupfs' }, 'KubeletConfiguration: cgroupDriver is not allowed to be set, but contains: cgroupfs'],
      [{ clusterDNS: ['1.1.1.1', '8.8.8.8'] }, 'KubeletConfiguration: clusterDNS is not allowed to be set, but contains: [1.1.1.1 8.8.8.8]'],
      [{ clusterDomain: 'example.com' }, 'KubeletConfiguration: clusterDomain is not allowed to be set, but contains: example.com'],
      [{ featureGates: { B: false, A: true } }, 'KubeletConfiguration: featureGates is not allowed to be set, but contains: map[A:true B:false]'],
      [{ staticPodPath: '/etc/other' }, 'KubeletConfiguration: staticPodPath is not allowed to be set, but contains: /etc/other'],
      [{ failSwapOn: false }, 'KubeletConfiguration: failSwapOn is not allowed to be set, but contains: false'],
      [{ memorySwap: { swapBehavior: 'LimitedSwap' } }, 'KubeletConfiguration: swapBehavior is not allowed to be set, but contains: LimitedSwap'],
    ];
    for (const [kubelet, message] of refused) {
      assert.equal(validateKubeletConfig(kubeletConfig('kc', kubelet)), message);
      const out = renderGeneratedKubeletConfig({ pool: pool('worker'), kubeletConfig: kubeletConfig('kc', kubelet), controllerConfig: controllerConfig(), controllerVersion, name: 'x' });
      assert.deepEqual(out, { ok: false, error: message });
    }
    // Zero values are "not set" to Go's typed decode, as in the MCO.
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { cgroupDriver: '', clusterDNS: [], featureGates: {} })), undefined);
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { systemReserved: { cpu: '1' } }, { autoSizingReserved: true })), 'KubeletConfiguration: autoSizingReserved and systemdReserved cannot be set together');
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { systemReserved: { cpu: '1' } }, { autoSizingReserved: false })), undefined);
    assert.equal(validateKubeletConfig(kubeletConfig('kc', undefined, { logLevel: 0 })), "KubeletConfig's LogLevel is not valid [1,10]: 0");
    assert.equal(validateKubeletConfig(kubeletConfig('kc', undefined, { logLevel: 10 })), undefined);
  });

  it('must give the typed fields the right JSON types, worded as Go\'s decoder', () => {
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { maxPods: '50' })), 'KubeletConfig could not be unmarshalled, err: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32');
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { serializeImagePulls: 'no' })), 'KubeletConfig could not be unmarshalled, err: json: cannot unmarshal string into Go struct field KubeletConfiguration.serializeImagePulls of type bool');
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { nodeStatusReportFrequency: '5 minutes' })), 'KubeletConfig could not be unmarshalled, err: time: invalid duration "5 minutes"');
    assert.match(validateKubeletConfig(kubeletConfig('kc', { systemReserved: { memory: 'lots' } }))!, /^KubeletConfig could not be unmarshalled, err: quantities must match .* \(memory: "lots"\)$/);
    assert.equal(validateKubeletConfig(kubeletConfig('kc', { maxPods: 50, nodeStatusReportFrequency: '1m', systemReserved: { memory: '2Gi' }, unknownField: 'ignored' })), undefined);
  });

  it('applies to the pools its selector matches, and says so when it matches none', () => {
    const worker = pool('worker');
    const master = pool('master');
    const matched = kubeletConfigPools(kubeletConfig('kc', {}), [master, worker]);
    assert.deepEqual(matched.ok ? matched.value.map((p) => p.metadata?.name) : matched.error, ['worker']);
    const none = kubeletConfig('kc', {});
    none.spec.machineConfigPoolSelector = { matchLabels: { 'no-such': 'pool' } };
    assert.deepEqual(kubeletConfigPools(none, [master, worker]), { ok: false, error: 'KubeletConfig kc does not match any MachineConfigPools' });
    for (const selector of [undefined, {}]) {
      const kc = kubeletConfig('kc', {});
      kc.spec.machineConfigPoolSelector = selector;
      assert.deepEqual(kubeletConfigPools(kc, [master, worker]), { ok: false, error: 'KubeletConfig kc does not match any MachineConfigPools' });
    }
  });

  it('gets the plain name when it is the pool\'s only one, and the next suffix after the highest taken otherwise', () => {
    const worker = pool('worker');
    const first = kubeletConfig('first', {}, {}, { [mcNameSuffixAnnotation]: '' });
    const second = kubeletConfig('second', {}, {}, { [mcNameSuffixAnnotation]: '2' });
    const fresh = kubeletConfig('fresh', {});
    const name = (kc: KubeletConfig, all: KubeletConfig[]) => {
      const r = generatedKubeletConfigName(worker, kc, all);
      return r.ok ? r.value : r.error;
    };
    assert.deepEqual(name(fresh, [fresh]), { name: '99-worker-generated-kubelet', suffix: '' });
    assert.deepEqual(name(first, [first, second, fresh]), { name: '99-worker-generated-kubelet', suffix: '' });
    assert.deepEqual(name(second, [first, second, fresh]), { name: '99-worker-generated-kubelet-2', suffix: '2' });
    assert.deepEqual(name(fresh, [first, second, fresh]), { name: '99-worker-generated-kubelet-3', suffix: '3' });
    const full = kubeletConfig('full', {}, {}, { [mcNameSuffixAnnotation]: '9' });
    assert.equal(name(fresh, [first, full, fresh]), 'max number of supported kubelet config (10) has been reached. Please delete old kubelet configs before retrying');
    // KubeletConfigs of other pools do not count.
    const master = kubeletConfig('m', {}, {}, { [mcNameSuffixAnnotation]: '5' });
    master.spec.machineConfigPoolSelector = { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/master': '' } };
    assert.deepEqual(name(fresh, [master, fresh]), { name: '99-worker-generated-kubelet', suffix: '' });
  });

  it('reports Success, or Failure with the cause, as its status condition', () => {
    const now = '2026-01-01T00:00:00Z';
    assert.deepEqual(kubeletConfigCondition(undefined, now), { type: 'Success', status: 'True', lastTransitionTime: now, message: 'Success' });
    assert.deepEqual(kubeletConfigCondition('KubeletConfig kc does not match any MachineConfigPools', now), {
      type: 'Failure',
      status: 'False',
      lastTransitionTime: now,
      message: 'Error: KubeletConfig kc does not match any MachineConfigPools',
    });
  });
});
