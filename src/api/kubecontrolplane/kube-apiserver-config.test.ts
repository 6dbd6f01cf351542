/**
 * The operand's config: the schema declares every flag the table knows and nothing of
 * upstream's that Shipyard's server ignores, the default layer passes the value checks, and
 * each value check refuses what Shipyard's API server would refuse at start, worded as a
 * Kubernetes field error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiServerArgumentSpecs } from './arguments.ts';
import { defaultKubeAPIServerConfig } from './default-config.ts';
import { apiVersion, kind, kubeAPIServerConfig } from './kube-apiserver-config.ts';
import { validateKubeAPIServerConfigValues, type ConfigValueProblem } from './validate.ts';

const lines = (problems: readonly ConfigValueProblem[]) => problems.map((p) => `${p.path.join('.')}: ${p.message}`);

describe('kubecontrolplane.config.openshift.io/v1 KubeAPIServerConfig', () => {
  it('declares apiServerArguments as one string list per known flag, and the fields the issue names', () => {
    const props = kubeAPIServerConfig.json.properties!;
    assert.deepEqual(Object.keys(props.apiServerArguments!.properties!).sort(), Object.keys(apiServerArgumentSpecs).sort());
    for (const flag of ['v', 'bind-address', 'secure-port', 'service-cluster-ip-range', 'store-durability', 'shutdown-delay-duration', 'enable-admission-plugins']) {
      assert.deepEqual(props.apiServerArguments!.properties![flag]!.type, 'array', flag);
      assert.deepEqual(props.apiServerArguments!.properties![flag]!.items!.type, 'string', flag);
    }
    assert.equal(props.apiServerArguments!.additionalProperties, undefined, 'an unknown flag is an unknown field');
    for (const field of ['apiServerArguments', 'servingInfo', 'storageConfig', 'servicesSubnet', 'servicesNodePortRange', 'imagePolicyConfig', 'admission', 'admissionPluginConfig', 'corsAllowedOrigins', 'gracefulTerminationDuration']) {
      assert.ok(props[field], field);
    }
    assert.deepEqual(Object.keys(props.servingInfo!.properties!).sort(), ['bindAddress', 'bindNetwork', 'certFile', 'cipherSuites', 'clientCA', 'keyFile', 'minTLSVersion', 'namedCertificates']);
    for (const absent of ['authConfig', 'oauthConfig', 'kubeletClientInfo', 'aggregatorConfig']) assert.equal(props[absent], undefined, absent);
    const pluginConfig = props.admissionPluginConfig!.additionalProperties as { properties: Record<string, { 'x-kubernetes-preserve-unknown-fields'?: boolean }> };
    assert.equal(pluginConfig.properties.configuration!['x-kubernetes-preserve-unknown-fields'], true, "a plugin's configuration is the plugin's business");
  });

  it('the default layer is typed as the operand config and passes every value check', () => {
    const config = defaultKubeAPIServerConfig();
    assert.equal(config.apiVersion, apiVersion);
    assert.equal(config.kind, kind);
    assert.deepEqual(config.apiServerArguments?.v, ['2']);
    assert.deepEqual(validateKubeAPIServerConfigValues(config), []);
    config.apiServerArguments!.v = ['9'];
    assert.deepEqual(defaultKubeAPIServerConfig().apiServerArguments?.v, ['2'], 'each call is a fresh copy');
  });

  it('flags: the number of values and the form of each', () => {
    const problems = validateKubeAPIServerConfigValues({
      apiServerArguments: {
        v: ['x'],
        'secure-port': ['70000'],
        'bind-address': ['0.0.0.0'],
        'store-durability': ['sometimes'],
        'shutdown-delay-duration': ['70'],
        'service-cluster-ip-range': ['127.64.0.0/8'],
        'service-node-port-range': ['1', '2'],
        'api-audiences': ['a,b', 'c,'],
        'enable-admission-plugins': ['NamespaceLifecycle', 'bad name'],
      },
    });
    assert.deepEqual(lines(problems), [
      'apiServerArguments.v: Invalid value: "x": must be an integer',
      'apiServerArguments.secure-port: Invalid value: "70000": must be between 1 and 65535, inclusive',
      'apiServerArguments.bind-address: Invalid value: "0.0.0.0": must be an IPv4 address in 127.0.0.0/8',
      'apiServerArguments.store-durability: Invalid value: "sometimes": supported values: "fsync", "process-crash-only"',
      'apiServerArguments.shutdown-delay-duration: Invalid value: "70": must be a duration, e.g. "70s" or "1m30s"',
      'apiServerArguments.service-cluster-ip-range: Invalid value: "127.64.0.0/8": must have a prefix length between /16 and /24',
      'apiServerArguments.service-node-port-range: Invalid value: ["1","2"]: must have exactly one value',
      'apiServerArguments.api-audiences.1: Invalid value: "c,": must not be empty',
      'apiServerArguments.enable-admission-plugins.1: Invalid value: "bad name": must be an admission plugin name',
    ]);
    assert.deepEqual(validateKubeAPIServerConfigValues({ apiServerArguments: { v: ['4'], 'shutdown-delay-duration': ['1m30s'], 'api-audiences': ['a,b'] } }), []);
  });

  it("leaves a value of the wrong type, or a flag it does not know, to the schema's check", () => {
    assert.deepEqual(validateKubeAPIServerConfigValues({ apiServerArguments: { v: [2], vv: ['x'] }, servicesSubnet: 5 }), []);
  });

  it('storage: one file: URL naming the SQLite store directory; etcd members are refused until the server has an etcd backend', () => {
    assert.deepEqual(validateKubeAPIServerConfigValues({ storageConfig: { urls: ['file:///var/lib/shipyard/store'] } }), []);
    assert.deepEqual(lines(validateKubeAPIServerConfigValues({ storageConfig: { urls: ['https://etcd-0.example.com:2379'] } })), [
      `storageConfig.urls.0: Invalid value: "https://etcd-0.example.com:2379": Shipyard's API server has no etcd backend: the store must be one file: URL naming the SQLite store directory`,
    ]);
    assert.deepEqual(lines(validateKubeAPIServerConfigValues({ storageConfig: { urls: ['file://host/x', 'sqlite:x', 'not a url'] } })), [
      'storageConfig.urls.0: Invalid value: "file://host/x": a file: URL must have no host (file:///path)',
      'storageConfig.urls.1: Invalid value: "sqlite:x": must be a file: URL naming the SQLite store directory',
      'storageConfig.urls.2: Invalid value: "not a url": must be a URL',
    ]);
    assert.deepEqual(lines(validateKubeAPIServerConfigValues({ storageConfig: { urls: ['file:///a', 'file:///b'] } })), [
      'storageConfig.urls: Invalid value: ["file:///a","file:///b"]: must hold exactly one file: URL (one SQLite store)',
    ]);
  });

  it('addresses, networks, hostnames, TLS names, CORS patterns and the grace period', () => {
    const problems = validateKubeAPIServerConfigValues({
      apiVersion: 'v1',
      kind: 'Config',
      servingInfo: { bindAddress: '0.0.0.0:6443', cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'] },
      servicesSubnet: '0.0.0.0/16',
      servicesNodePortRange: '32767-30000',
      imagePolicyConfig: { internalRegistryHostname: 'image-registry.openshift-image-registry.svc:5000', externalRegistryHostnames: ['Bad_Host'] },
      admission: { enabledPlugins: ['a b'] },
      corsAllowedOrigins: ['//127\\.0\\.0\\.1(:|$)', '('],
      gracefulTerminationDuration: '-1',
    });
    assert.deepEqual(lines(problems), [
      'apiVersion: Unsupported value: "v1": supported values: "kubecontrolplane.config.openshift.io/v1"',
      'kind: Unsupported value: "Config": supported values: "KubeAPIServerConfig"',
      'servingInfo.bindAddress: Invalid value: "0.0.0.0:6443": must be an IPv4 address in 127.0.0.0/8',
      'servingInfo.cipherSuites.1: Invalid value: "ECDHE-RSA-AES128-GCM-SHA256": must be a cipher suite name Go knows, e.g. "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"',
      'servicesSubnet: Invalid value: "0.0.0.0/16": must be a range in 127.0.0.0/8',
      'servicesNodePortRange: Invalid value: "32767-30000": must be a port range within 1-65535, low end first',
      'imagePolicyConfig.externalRegistryHostnames.0: Invalid value: "Bad_Host": must be hostname[:port]',
      'admission.enabledPlugins.0: Invalid value: "a b": must be an admission plugin name',
      'corsAllowedOrigins.1: Invalid value: "(": must be a regular expression',
      'gracefulTerminationDuration: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    assert.deepEqual(validateKubeAPIServerConfigValues({ servingInfo: { bindAddress: '127.1.0.2:6443' }, imagePolicyConfig: { internalRegistryHostname: '[::1]:5000' } }), []);
  });
});
