/**
 * The target-config controller's rendering as tables: the config layers merged and checked
 * (observedConfig over the default, overrides over both, a bad override named by layer and
 * path), the same spec always giving the same bytes, the static pod manifest (revision label and
 * path left for the installer, `/readyz`, the log level's `-v`, the grace period from the
 * config), and the two conditions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { operandVerbosity, renderConfig, renderPodData, renderPodManifest, targetConfigDegradedCondition, unsupportedOverridesCondition, type PodSettings } from './render.ts';

const pod: PodSettings = { image: 'shipyard.local/kube-apiserver:v1', securePort: 6443, advertiseUrl: 'https://127.0.0.1:6443', tlsSans: ['localhost'] };

function configOf(spec: Parameters<typeof renderConfig>[0]): Record<string, unknown> {
  const r = renderConfig(spec);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return JSON.parse(r.data['config.yaml']!) as Record<string, unknown>;
}

describe('renderConfig', () => {
  it('an empty spec renders the default config', () => {
    const c = configOf({});
    assert.equal(c.kind, 'KubeAPIServerConfig');
    assert.deepEqual((c.apiServerArguments as Record<string, unknown>).v, ['2']);
  });

  it('layers: observedConfig over the default, overrides over both', () => {
    const c = configOf({
      observedConfig: { servicesSubnet: '127.64.0.0/16', apiServerArguments: { v: ['3'] } },
      unsupportedConfigOverrides: { apiServerArguments: { v: ['6'] } },
    });
    assert.equal(c.servicesSubnet, '127.64.0.0/16');
    assert.deepEqual((c.apiServerArguments as Record<string, unknown>).v, ['6']);
    // Untouched default keys stay.
    assert.deepEqual((c.apiServerArguments as Record<string, unknown>)['shutdown-delay-duration'], ['5s']);
  });

  it('the same spec gives the same bytes whatever the key order', () => {
    const a = renderConfig({ observedConfig: { servicesSubnet: '127.64.0.0/16', imagePolicyConfig: { internalRegistryHostname: 'r.local:5000' } } });
    const b = renderConfig({ observedConfig: { imagePolicyConfig: { internalRegistryHostname: 'r.local:5000' }, servicesSubnet: '127.64.0.0/16' } });
    assert.ok(a.ok && b.ok);
    assert.equal(a.data['config.yaml'], b.data['config.yaml']);
  });

  const bad: { name: string; spec: Parameters<typeof renderConfig>[0]; want: string[] }[] = [
    { name: 'unknown field in overrides', spec: { unsupportedConfigOverrides: { servingInfo: { bindAddres: '127.0.0.1:6443' } } }, want: ['unsupportedConfigOverrides: servingInfo.bindAddres: unknown field'] },
    { name: 'unknown flag in observedConfig', spec: { observedConfig: { apiServerArguments: { 'log-level': ['1'] } } }, want: ['observedConfig: apiServerArguments.log-level: unknown field'] },
  ];
  for (const c of bad) {
    it(`fails: ${c.name}`, () => {
      const r = renderConfig(c.spec);
      assert.equal(r.ok, false);
      assert.ok(!r.ok);
      assert.deepEqual(r.message.split('\n'), c.want);
    });
  }

  it('a bad value names its layer and path', () => {
    const r = renderConfig({ unsupportedConfigOverrides: { apiServerArguments: { v: ['loud'] } } });
    assert.ok(!r.ok);
    assert.match(r.message, /^unsupportedConfigOverrides: apiServerArguments\.v(\[0\])?: /);
  });
});

describe('operandVerbosity', () => {
  for (const [level, v] of [
    ['Normal', 2],
    ['Debug', 4],
    ['Trace', 6],
    ['TraceAll', 10],
    ['', 2],
    [undefined, 2],
  ] as const) {
    it(`${level ?? 'unset'} → ${v}`, () => assert.equal(operandVerbosity(level), v));
  }
});

describe('renderPodManifest', () => {
  const config = configOf({});

  it('runs the API server on the revision’s config, labelled with the revision placeholder', () => {
    const m = renderPodManifest({ logLevel: 'Debug' }, config, pod) as any;
    assert.equal(m.metadata.name, 'kube-apiserver');
    assert.equal(m.metadata.namespace, 'openshift-kube-apiserver');
    assert.deepEqual({ apiserver: m.metadata.labels.apiserver, revision: m.metadata.labels.revision }, { apiserver: 'true', revision: 'REVISION' });
    const c = m.spec.containers[0];
    assert.equal(c.image, pod.image);
    // The revision's directory is mounted at static-pod-resources: the config is read inside it.
    assert.ok(c.args.includes('--config=/etc/kubernetes/static-pod-resources/configmaps/config/config.yaml'));
    assert.deepEqual(c.volumeMounts.find((v: any) => v.name === 'resource-dir').mountPath, '/etc/kubernetes/static-pod-resources');
    assert.deepEqual(m.spec.volumes.find((v: any) => v.name === 'resource-dir').hostPath.path, '/etc/kubernetes/static-pod-resources/kube-apiserver-pod-REVISION');
    assert.ok(c.args.includes('--v=4'));
    assert.ok(c.args.includes('--bind-address=$(HOST_IP)'));
    assert.ok(c.args.includes('--tls-san=localhost'));
    assert.deepEqual(c.readinessProbe.httpGet, { scheme: 'HTTPS', path: '/readyz', port: 6443 });
    assert.equal(m.spec.hostNetwork, true);
    assert.equal(m.spec.terminationGracePeriodSeconds, 70);
  });

  it('takes the grace period from the config', () => {
    const m = renderPodManifest({}, configOf({ unsupportedConfigOverrides: { gracefulTerminationDuration: '40' } }), pod) as any;
    assert.equal(m.spec.terminationGracePeriodSeconds, 40);
  });
});

describe('renderPodData', () => {
  it('carries pod.yaml, forceRedeploymentReason and version', () => {
    const data = renderPodData({ logLevel: 'TraceAll', forceRedeploymentReason: 'again' }, configOf({}), { ...pod, operatorVersion: '0.2.0' });
    assert.deepEqual(Object.keys(data).sort(), ['forceRedeploymentReason', 'pod.yaml', 'version']);
    assert.equal(data.forceRedeploymentReason, 'again');
    assert.equal(data.version, '0.2.0');
    assert.ok((parse(data['pod.yaml']!) as any).spec.containers[0].args.includes('--v=10'));
  });

  it('pod.yaml keeps the revision label a string once the installer puts the number in', () => {
    const text = renderPodData({}, configOf({}), { ...pod, operatorVersion: '0.2.0' })['pod.yaml']!;
    const installed = parse(text.replaceAll('REVISION', '7')) as any;
    assert.equal(installed.metadata.labels.revision, '7');
    assert.equal(installed.spec.containers[0].readinessProbe.httpGet.port, 6443, 'numbers stay numbers');
  });

  it('an unset reason is empty', () => {
    assert.equal(renderPodData({}, configOf({}), { ...pod, operatorVersion: '0.2.0' }).forceRedeploymentReason, '');
  });
});

describe('conditions', () => {
  it('UnsupportedConfigOverridesUpgradeable', () => {
    assert.deepEqual(unsupportedOverridesCondition(undefined), { type: 'UnsupportedConfigOverridesUpgradeable', status: 'True', reason: 'NoUnsupportedConfigOverrides' });
    assert.deepEqual(unsupportedOverridesCondition(null), { type: 'UnsupportedConfigOverridesUpgradeable', status: 'True', reason: 'NoUnsupportedConfigOverrides' });
    assert.deepEqual(unsupportedOverridesCondition({ apiServerArguments: { v: ['4'] }, servicesSubnet: '127.64.0.0/16' }), {
      type: 'UnsupportedConfigOverridesUpgradeable',
      status: 'False',
      reason: 'UnsupportedConfigOverridesSet',
      message: 'setting: [apiServerArguments.v.0 servicesSubnet]',
    });
  });

  it('TargetConfigControllerDegraded', () => {
    assert.deepEqual(targetConfigDegradedCondition(renderConfig({})), { type: 'TargetConfigControllerDegraded', status: 'False', reason: 'AsExpected' });
    assert.deepEqual(targetConfigDegradedCondition(renderConfig({ unsupportedConfigOverrides: { servingInfo: { bindAddres: 'x' } } })), {
      type: 'TargetConfigControllerDegraded',
      status: 'True',
      reason: 'InvalidConfig',
      message: 'unsupportedConfigOverrides: servingInfo.bindAddres: unknown field',
    });
  });
});
