/**
 * The kube-apiserver operator's three config observers as pure functions over fake listers:
 * good input, bad input (the previous sub-tree kept, an error naming the input and field),
 * missing input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Endpoints } from '@kubernetes/client-node';
import type { Image } from '../../../api/config/image.ts';
import { ObjectCache } from '../../../runtime/cache.ts';
import type { ObserverRecorder } from '../../../runtime/config-observer.ts';
import type { SparseConfig } from '../../../runtime/sparse-config.ts';
import { observeInternalRegistryHostname } from './images.ts';
import { observeRestrictedCIDRs, restrictedEndpointsAdmission } from './network.ts';
import { kubeAPIServerConfigObservers, type ConfigObservationListers } from './observers.ts';
import { observeStorageURLs } from './storage.ts';

function recorder(): ObserverRecorder & { events: string[] } {
  const events: string[] = [];
  return { events, event: (type, reason, message) => events.push(`${type} ${reason} ${message}`) };
}

function listers(objs: { endpoints?: V1Endpoints[]; configMaps?: V1ConfigMap[]; images?: Image[] } = {}): ConfigObservationListers {
  const cache = <T extends { metadata?: object }>(items: T[] = []) => {
    const c = new ObjectCache<T & { apiVersion?: string; kind?: string }>();
    for (const i of items) c.upsert(i);
    return c;
  };
  return { endpoints: cache(objs.endpoints), configMaps: cache(objs.configMaps), images: cache(objs.images) };
}

const hostEtcd = (extra: Partial<V1Endpoints>): V1Endpoints => ({ metadata: { name: 'host-etcd', namespace: 'kube-system', ...extra.metadata }, subsets: extra.subsets });
const installConfig = (text: string | undefined): V1ConfigMap => ({ metadata: { name: 'cluster-config-v1', namespace: 'kube-system' }, data: text === undefined ? {} : { 'install-config': text } });

const previous: SparseConfig = {
  storageConfig: { urls: ['file:///old/store'] },
  imagePolicyConfig: { internalRegistryHostname: 'old-registry:5000' },
  servicesSubnet: '127.64.0.0/16',
  admissionPluginConfig: { [restrictedEndpointsAdmission]: { configuration: { restrictedCIDRs: ['127.128.0.0/9', '127.64.0.0/16'] } } },
};

describe('kube-apiserver config observers', () => {
  describe('storage (Endpoints kube-system/host-etcd → storageConfig.urls)', () => {
    it("Shipyard's SQLite store: one file: URL from the annotation, and an Event when it changes", () => {
      const r = recorder();
      const out = observeStorageURLs(listers({ endpoints: [hostEtcd({ metadata: { annotations: { 'storage.shipyard.io/sqlite-store': '/var/lib/shipyard data/store' } } })] }), r, previous);
      assert.deepEqual(out, { config: { storageConfig: { urls: ['file:///var/lib/shipyard%20data/store'] } }, errors: [] });
      assert.deepEqual(r.events, ['Normal ObserveStorageUpdated Updated storage urls to file:///var/lib/shipyard%20data/store']);
      const again = recorder();
      observeStorageURLs(listers({ endpoints: [hostEtcd({ metadata: { annotations: { 'storage.shipyard.io/sqlite-store': '/old/store' } } })] }), again, previous);
      assert.deepEqual(again.events, [], 'no Event when nothing changed');
    });

    it('etcd members: hostnames under the DNS suffix, bare IPs (v6 in brackets), the etcd port', () => {
      const ep = hostEtcd({
        metadata: { annotations: { 'alpha.installer.openshift.io/dns-suffix': 'cluster.example.com' } },
        subsets: [
          { addresses: [{ ip: '192.0.2.1', hostname: 'etcd-0' }, { ip: '192.0.2.2' }], ports: [{ name: 'etcd', port: 2379 }] },
          { addresses: [{ ip: '2001:db8::3' }], ports: [{ name: 'other', port: 4001 }] },
        ],
      });
      assert.deepEqual(observeStorageURLs(listers({ endpoints: [ep] }), recorder(), {}), {
        config: { storageConfig: { urls: ['https://etcd-0.cluster.example.com:2379', 'https://192.0.2.2:2379', 'https://[2001:db8::3]:4001'] } },
        errors: [],
      });
    });

    it('bad input keeps the previous urls, with an error naming the Endpoints and the field', () => {
      const cases: Array<[V1Endpoints, string[]]> = [
        [hostEtcd({ metadata: { annotations: { 'storage.shipyard.io/sqlite-store': 'relative/store' } } }), ['endpoints/host-etcd.kube-system: metadata.annotations[storage.shipyard.io/sqlite-store]: Invalid value: "relative/store": must be an absolute path']],
        [hostEtcd({ subsets: [{ addresses: [{ ip: '192.192.0.2.1' }] }] }), ['endpoints/host-etcd.kube-system: subsets[0].addresses[0].ip: Invalid value: "192.192.0.2.1": must be a valid IP address']],
        [hostEtcd({ subsets: [{ addresses: [{ ip: '192.0.2.1', hostname: 'etcd-0' }] }] }), ['endpoints/host-etcd.kube-system: subsets[0].addresses[0].hostname: alpha.installer.openshift.io/dns-suffix annotation not found']],
        [hostEtcd({}), ['endpoints/host-etcd.kube-system: no storage endpoint addresses found']],
      ];
      for (const [ep, errors] of cases) assert.deepEqual(observeStorageURLs(listers({ endpoints: [ep] }), recorder(), previous), { config: { storageConfig: { urls: ['file:///old/store'] } }, errors });
    });

    it('missing Endpoints: previous urls kept (none if there were none), and an error', () => {
      assert.deepEqual(observeStorageURLs(listers(), recorder(), previous), { config: { storageConfig: { urls: ['file:///old/store'] } }, errors: ['endpoints/host-etcd.kube-system: not found'] });
      assert.deepEqual(observeStorageURLs(listers(), recorder(), {}), { config: {}, errors: ['endpoints/host-etcd.kube-system: not found'] });
    });
  });

  describe('images (Image cluster status.internalRegistryHostname → imagePolicyConfig.internalRegistryHostname)', () => {
    const image = (hostname?: string): Image => ({ metadata: { name: 'cluster' }, spec: {}, status: hostname === undefined ? {} : { internalRegistryHostname: hostname } });

    it('observes the hostname', () => {
      assert.deepEqual(observeInternalRegistryHostname(listers({ images: [image('image-registry.openshift-image-registry.svc:5000')] }), recorder(), previous), {
        config: { imagePolicyConfig: { internalRegistryHostname: 'image-registry.openshift-image-registry.svc:5000' } },
        errors: [],
      });
    });

    it('a hostname that is not hostname[:port] keeps the previous one, with an error naming the field', () => {
      assert.deepEqual(observeInternalRegistryHostname(listers({ images: [image('https://registry/')] }), recorder(), previous), {
        config: { imagePolicyConfig: { internalRegistryHostname: 'old-registry:5000' } },
        errors: ['image.config.openshift.io/cluster: status.internalRegistryHostname: Invalid value: "https://registry/": must be hostname[:port]'],
      });
    });

    it('no Image, or no hostname in it: no internal registry, the path goes, no error (as upstream)', () => {
      assert.deepEqual(observeInternalRegistryHostname(listers(), recorder(), previous), { config: {}, errors: [] });
      assert.deepEqual(observeInternalRegistryHostname(listers({ images: [image()] }), recorder(), previous), { config: {}, errors: [] });
    });
  });

  describe('network (cluster-config-v1 install-config → restrictedCIDRs and servicesSubnet)', () => {
    const observed = (cidrs: string[], subnet: string): SparseConfig => ({
      admissionPluginConfig: { [restrictedEndpointsAdmission]: { configuration: { restrictedCIDRs: cidrs } } },
      servicesSubnet: subnet,
    });

    it("the seed's fields, networking.podCIDR and networking.serviceCIDR", () => {
      const cm = installConfig('apiVersion: v1\nnetworking:\n  podCIDR: 127.128.0.0/9\n  serviceCIDR: 127.65.0.0/16\n');
      assert.deepEqual(observeRestrictedCIDRs(listers({ configMaps: [cm] }), recorder(), previous), { config: observed(['127.128.0.0/9', '127.65.0.0/16'], '127.65.0.0/16'), errors: [] });
    });

    it("today's fields, networking.clusterNetwork[].cidr and networking.serviceNetwork[]", () => {
      const cm = installConfig('networking:\n  clusterNetwork:\n  - cidr: 127.128.0.0/12\n    hostPrefix: 24\n  - cidr: 127.144.0.0/12\n  serviceNetwork: [127.64.0.0/16]\n');
      assert.deepEqual(observeRestrictedCIDRs(listers({ configMaps: [cm] }), recorder(), {}), { config: observed(['127.128.0.0/12', '127.144.0.0/12', '127.64.0.0/16'], '127.64.0.0/16'), errors: [] });
    });

    it('bad input keeps both previous values, with an error naming the ConfigMap and the field, and a Warning', () => {
      const keep = observed(['127.128.0.0/9', '127.64.0.0/16'], '127.64.0.0/16');
      const cases: Array<[string | undefined, string]> = [
        [undefined, 'configmap/cluster-config-v1.kube-system: install-config not found'],
        ['networking: [unclosed', 'configmap/cluster-config-v1.kube-system: install-config: not YAML: '],
        ['baseDomain: example.com\n', 'configmap/cluster-config-v1.kube-system: install-config/networking not found'],
        ['networking:\n  serviceCIDR: 127.64.0.0/16\n', 'configmap/cluster-config-v1.kube-system: install-config/networking/podCIDR not found'],
        ['networking:\n  podCIDR: 127.128.0.0/9\n  serviceCIDR: 127.64.0.0\n', 'configmap/cluster-config-v1.kube-system: install-config/networking/serviceCIDR: Invalid value: "127.64.0.0": must be a CIDR'],
        ['networking:\n  podCIDR: 127.128.0.0/9\n  serviceNetwork: []\n', 'configmap/cluster-config-v1.kube-system: install-config/networking/serviceNetwork is empty'],
        ['networking:\n  clusterNetwork: [{hostPrefix: 23}]\n  serviceCIDR: 127.64.0.0/16\n', 'configmap/cluster-config-v1.kube-system: install-config/networking/clusterNetwork[0].cidr: Invalid value: null: must be a CIDR'],
      ];
      for (const [text, error] of cases) {
        const r = recorder();
        const out = observeRestrictedCIDRs(listers({ configMaps: [installConfig(text)] }), r, previous);
        assert.deepEqual(out.config, keep, error);
        assert.equal(out.errors.length, 1);
        const got = String(out.errors[0]);
        assert.ok(got.startsWith(error), `${got} starts with ${error}`);
        assert.equal(r.events.length, 1);
        assert.match(r.events[0]!, /^Warning ObserveRestrictedCIDRFailed /);
      }
    });

    it('missing ConfigMap: previous values kept, an error and a Warning', () => {
      const r = recorder();
      assert.deepEqual(observeRestrictedCIDRs(listers(), r, previous), { config: observed(['127.128.0.0/9', '127.64.0.0/16'], '127.64.0.0/16'), errors: ['configmap/cluster-config-v1.kube-system: not found'] });
      assert.deepEqual(r.events, ['Warning ObserveRestrictedCIDRFailed Required kube-system/cluster-config-v1 config map not found']);
    });
  });

  it('the three own disjoint paths: together they reproduce a full observed config', () => {
    const l = listers({
      endpoints: [hostEtcd({ metadata: { annotations: { 'storage.shipyard.io/sqlite-store': '/old/store' } } })],
      images: [{ metadata: { name: 'cluster' }, spec: {}, status: { internalRegistryHostname: 'old-registry:5000' } }],
      configMaps: [installConfig('networking:\n  podCIDR: 127.128.0.0/9\n  serviceCIDR: 127.64.0.0/16\n')],
    });
    const merged: SparseConfig = {};
    for (const observe of kubeAPIServerConfigObservers) {
      const out = observe(l, recorder(), previous);
      assert.deepEqual(out.errors, []);
      Object.assign(merged, out.config);
    }
    assert.deepEqual(merged, previous);
  });
});
