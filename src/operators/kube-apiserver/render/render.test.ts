/**
 * `render` as tables: the install configuration (today's networking form and the seed's) gives
 * the bootstrap config, the bootstrap pod and the manifests the operator observes; the config
 * is what the operator itself renders for that cluster but for the facts render cannot know;
 * every bad input is refused naming the file and the field; the files land where `shipyard up`
 * and the pod expect them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import type { Image } from '../../../api/config/image.ts';
import type { V1ConfigMap, V1Endpoints } from '@kubernetes/client-node';
import { ObjectCache } from '../../../runtime/cache.ts';
import { observeConfig } from '../../../runtime/config-observer.ts';
import { kubeAPIServerConfigObservers } from '../configobserver/observers.ts';
import { renderConfig } from '../targetconfig/render.ts';
import { parseInstallConfig, RenderInputError } from './inputs.ts';
import { renderBootstrapAssets } from './render.ts';
import { runRender } from './write.ts';

const opts = { image: 'shipyard.local/kube-apiserver:v0.1.0', securePort: 6443 };

function installConfig(networking: unknown, shipyard: unknown = { apiServerURL: 'https://127.0.2.1:6443', storeDir: '/data/c2/store' }): string {
  return stringify({ apiVersion: 'v1', metadata: { name: 'shipyard' }, networking, platform: { shipyard } });
}

const today = { clusterNetwork: [{ cidr: '127.160.0.0/12', hostPrefix: 24 }], serviceNetwork: ['127.66.0.0/16'] };
const seed = { podCIDR: '127.160.0.0/12', serviceCIDR: '127.66.0.0/16' };

// Reads of rendered YAML.
type Json = Record<string, any>;

describe('renderBootstrapAssets', () => {
  for (const [form, networking] of [['clusterNetwork/serviceNetwork', today], ['the seed\'s podCIDR/serviceCIDR', seed]] as const) {
    it(`reads ${form} into the config as the network observer does`, () => {
      const a = renderBootstrapAssets(parseInstallConfig(installConfig(networking), 'install-config.yaml'), opts);
      const c = a.config as Json;
      assert.equal(c.kind, 'KubeAPIServerConfig');
      assert.deepEqual(c.storageConfig.urls, ['file:///data/c2/store']);
      assert.equal(c.servicesSubnet, '127.66.0.0/16');
      assert.deepEqual(c.admissionPluginConfig['openshift.io/RestrictedEndpointsAdmission'].configuration.restrictedCIDRs, ['127.160.0.0/12', '127.66.0.0/16']);
      // The operator's default layer is under it.
      assert.deepEqual(c.apiServerArguments['shutdown-delay-duration'], ['5s']);
    });
  }

  it('gives the config the operator renders for this cluster, but for the internal registry render cannot know', () => {
    const text = installConfig(today);
    const a = renderBootstrapAssets(parseInstallConfig(text, 'install-config.yaml'), opts);
    // The operator's first sync, over the objects render wrote plus the Image the install creates.
    const endpoints = new ObjectCache<V1Endpoints>();
    endpoints.upsert(a.manifests['host-etcd-endpoints.yaml'] as V1Endpoints);
    const configMaps = new ObjectCache<V1ConfigMap>();
    configMaps.upsert(a.manifests['cluster-config-v1-configmap.yaml'] as V1ConfigMap);
    const images = new ObjectCache<Image>();
    images.upsert({ apiVersion: 'config.openshift.io/v1', kind: 'Image', metadata: { name: 'cluster' }, spec: {}, status: { internalRegistryHostname: 'shipyard.local' } } as Image);
    const observed = observeConfig({ observers: kubeAPIServerConfigObservers, listers: { endpoints, configMaps, images }, recorder: { event: () => {} }, existing: {} });
    assert.deepEqual(observed.errors, []);
    const revision1 = renderConfig({ observedConfig: observed.config });
    assert.ok(revision1.ok);
    const { imagePolicyConfig, ...rest } = revision1.config as Json;
    assert.deepEqual(imagePolicyConfig, { internalRegistryHostname: 'shipyard.local' });
    assert.deepEqual(rest, a.config);
  });

  it('renders the bootstrap pod: the kube-apiserver component on the hostPath config, with the per-node flags', () => {
    const a = renderBootstrapAssets(parseInstallConfig(installConfig(today), 'install-config.yaml'), opts);
    const pod = a.bootstrapManifests['kube-apiserver-pod.yaml'] as Json;
    assert.deepEqual([pod.metadata.namespace, pod.metadata.name], ['openshift-kube-apiserver', 'bootstrap-kube-apiserver']);
    assert.equal(pod.metadata.labels.revision, undefined, 'outside the revision system');
    const c = pod.spec.containers[0];
    assert.equal(c.image, opts.image);
    assert.deepEqual(c.args, [
      '--config=/etc/kubernetes/config/kube-apiserver-config.yaml',
      '--v=2',
      '--bind-address=$(HOST_IP)',
      '--advertise-address=$(HOST_IP)',
      '--secure-port=6443',
      '--advertise-url=https://127.0.2.1:6443',
      '--tls-san=$(HOST_IP)',
      ...['127.0.2.1', '127.66.0.1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'].map((s) => `--tls-san=${s}`),
    ]);
    assert.deepEqual(c.volumeMounts, [{ name: 'config', mountPath: '/etc/kubernetes/config', readOnly: true }]);
    assert.deepEqual(pod.spec.volumes, [{ name: 'config', hostPath: { path: '/etc/kubernetes/bootstrap-configs' } }]);
    assert.equal(pod.spec.terminationGracePeriodSeconds, 70);
    assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  });

  it('renders the objects the observers read: host-etcd with the store, cluster-config-v1 with the install configuration as given', () => {
    const text = installConfig(seed);
    const a = renderBootstrapAssets(parseInstallConfig(text, 'install-config.yaml'), opts);
    assert.deepEqual(Object.keys(a.manifests), ['00_openshift-kube-apiserver-ns.yaml', 'host-etcd-endpoints.yaml', 'cluster-config-v1-configmap.yaml']);
    const ep = a.manifests['host-etcd-endpoints.yaml'] as Json;
    assert.deepEqual([ep.kind, ep.metadata.namespace, ep.metadata.name, ep.metadata.annotations['storage.shipyard.io/sqlite-store']], ['Endpoints', 'kube-system', 'host-etcd', '/data/c2/store']);
    const cm = a.manifests['cluster-config-v1-configmap.yaml'] as Json;
    assert.deepEqual([cm.metadata.namespace, cm.metadata.name, cm.data['install-config']], ['kube-system', 'cluster-config-v1', text]);
  });

  const bad: { name: string; text: string; want: RegExp }[] = [
    { name: 'not YAML', text: 'networking: [', want: /^install-config\.yaml: not YAML: / },
    { name: 'no platform.shipyard', text: stringify({ networking: today }), want: /^install-config\.yaml: platform\.shipyard: Required value$/ },
    { name: 'no apiServerURL', text: installConfig(today, { storeDir: '/s' }), want: /^install-config\.yaml: platform\.shipyard\.apiServerURL: Required value$/ },
    { name: 'an http apiServerURL', text: installConfig(today, { apiServerURL: 'http://127.0.0.1:6443', storeDir: '/s' }), want: /^install-config\.yaml: platform\.shipyard\.apiServerURL: Invalid value: "http:\/\/127\.0\.0\.1:6443": must be an https URL$/ },
    { name: 'no storeDir', text: installConfig(today, { apiServerURL: 'https://127.0.0.1:6443' }), want: /^install-config\.yaml: platform\.shipyard\.storeDir: Required value$/ },
    { name: 'a relative storeDir', text: installConfig(today, { apiServerURL: 'https://127.0.0.1:6443', storeDir: 'store' }), want: /^install-config\.yaml: platform\.shipyard\.storeDir: Invalid value: "store": must be an absolute path$/ },
    { name: 'no networking', text: installConfig(undefined), want: /^install-config\.yaml: configmap\/cluster-config-v1\.kube-system: install-config\/networking not found$/ },
    { name: 'no service network', text: installConfig({ podCIDR: '127.160.0.0/12' }), want: /^install-config\.yaml: .*install-config\/networking\/serviceCIDR not found$/ },
    { name: 'a pod network that is no CIDR', text: installConfig({ clusterNetwork: [{ cidr: 'ten' }], serviceNetwork: ['127.66.0.0/16'] }), want: /networking\/clusterNetwork\[0\]\.cidr: Invalid value: "ten": must be a CIDR$/ },
    { name: 'a Service network outside loopback', text: installConfig({ podCIDR: '127.160.0.0/12', serviceCIDR: '0.0.0.0/16' }), want: /^install-config\.yaml: the bootstrap config is invalid:\nobservedConfig: servicesSubnet: Invalid value: "0\.0\.0\.0\/16": must be a range in 127\.0\.0\.0\/8/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}, naming the file and field`, () => {
      assert.throws(
        () => renderBootstrapAssets(parseInstallConfig(c.text, 'install-config.yaml'), opts),
        (err: unknown) => {
          assert.ok(err instanceof RenderInputError, String(err));
          assert.match(err.message, c.want);
          return true;
        },
      );
    });
  }
});

describe('runRender', () => {
  it('writes the pod, the manifests and the config; a missing input is named and nothing is written', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'render-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const o = { ...opts, assetInputDir: join(dir, 'in'), assetOutputDir: join(dir, 'out'), configOutputFile: join(dir, 'bootstrap-configs', 'kube-apiserver-config.yaml') };
    assert.throws(() => runRender(o), /--asset-input-dir .*\/in: no such directory/);
    mkdirSync(o.assetInputDir);
    assert.throws(() => runRender(o), (err: Error) => err.message.startsWith(`${join(o.assetInputDir, 'install-config.yaml')}: not found`));
    assert.equal(existsSync(o.assetOutputDir), false);

    const { files } = runRender({ ...o, assetInputDir: writeInput(dir) });
    assert.deepEqual(files, [
      join(dir, 'out', 'bootstrap-manifests', 'kube-apiserver-pod.yaml'),
      join(dir, 'out', 'manifests', '00_openshift-kube-apiserver-ns.yaml'),
      join(dir, 'out', 'manifests', 'host-etcd-endpoints.yaml'),
      join(dir, 'out', 'manifests', 'cluster-config-v1-configmap.yaml'),
      o.configOutputFile,
    ]);
    const config = parse(readFileSync(o.configOutputFile, 'utf8')) as Json;
    assert.deepEqual(config.storageConfig.urls, ['file:///data/c2/store']);
    assert.equal((parse(readFileSync(files[0]!, 'utf8')) as Json).metadata.name, 'bootstrap-kube-apiserver');
  });
});

function writeInput(dir: string): string {
  const input = join(dir, 'input');
  mkdirSync(input, { recursive: true });
  writeFileSync(join(input, 'install-config.yaml'), installConfig(today));
  return input;
}
