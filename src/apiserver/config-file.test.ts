/**
 * The rendered config.yaml as the server reads it: checked with the operator's schema and value
 * rules plus what this server can honour, each problem naming the file and the field; mapped to
 * the server's options with flags > apiServerArguments > typed fields > defaults.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { restrictedEndpointsPluginName } from './authz/restricted-endpoints.ts';
import { logLevelForVerbosity, parseKubeAPIServerConfig, resolveApiServerOptions, StartupError, type Arguments, type FileAccess } from './config-file.ts';
import { parseFlags } from './component.ts';

const FILE = '/etc/kubernetes/static-pod-resources/configmaps/config/config.yaml';
const header = 'apiVersion: kubecontrolplane.config.openshift.io/v1\nkind: KubeAPIServerConfig\n';

/** A pod's rootfs under /host/pod, and files keyed by host path. */
function fakeFiles(contents: Record<string, string> = {}): FileAccess {
  return {
    hostPath: (p) => `/host/pod${p}`,
    read: (p) => {
      const text = contents[p];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${p}'`);
      return text;
    },
  };
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StartupError, String(err));
    assert.equal(err.stack, err.message, 'no stack trace under a config error');
    return err.message;
  }
  assert.fail('expected a StartupError');
}

function resolveYaml(yaml: string, flags: Arguments = {}, files = fakeFiles()) {
  return resolveApiServerOptions({ file: FILE, config: parseKubeAPIServerConfig(FILE, header + yaml), flags }, files);
}

describe('apiserver --config (config-file.ts)', () => {
  it('refuses a bad config naming the file and each field path', () => {
    const cases: { name: string; yaml: string; want: string[] }[] = [
      { name: 'an undeclared field', yaml: 'servingInfo: {bindAdress: "127.0.0.1:6443"}', want: ['servingInfo.bindAdress: unknown field'] },
      { name: 'an audit field not declared', yaml: 'auditConfig: {enabled: true, maxSize: 1}', want: ['auditConfig.maxSize: unknown field'] },
      {
        name: 'audit: legacy format, a webhook, no policy',
        yaml: 'auditConfig: {enabled: true, auditFilePath: /var/log/audit.log, logFormat: legacy, webHookMode: batch}',
        want: [
          `auditConfig.logFormat: Unsupported value: "legacy": supported values: "json" (Shipyard's audit log is JSON lines)`,
          "auditConfig.webHookMode: Forbidden: Shipyard's API server has no audit webhook; events go to auditFilePath",
          'auditConfig.policyFile: Required value: an audit policy (policyFile or policyConfiguration), when enabled',
        ],
      },
      {
        name: 'audit: a policy asking for bodies',
        yaml: 'auditConfig: {enabled: true, auditFilePath: /a.log, policyConfiguration: {apiVersion: audit.k8s.io/v1, kind: Policy, rules: [{level: RequestResponse}]}}',
        want: ['auditConfig.policyConfiguration: rules[0].level: Unsupported value: "RequestResponse": supported values: "None", "Metadata" (this server does not log request or response bodies)'],
      },
      { name: 'a wrong type', yaml: 'apiServerArguments: {v: 4}', want: ['apiServerArguments.v: Invalid value: 4: must be of type array, not integer'] },
      { name: 'a flag value', yaml: 'apiServerArguments: {secure-port: ["70000"]}', want: ['apiServerArguments.secure-port: Invalid value: "70000": must be between 1 and 65535, inclusive'] },
      { name: 'an unknown flag', yaml: 'apiServerArguments: {etcd-servers: ["https://x:2379"]}', want: ['apiServerArguments.etcd-servers: unknown field'] },
      { name: 'an etcd store', yaml: 'storageConfig: {urls: ["https://etcd:2379"]}', want: [`storageConfig.urls[0]: Invalid value: "https://etcd:2379": Shipyard's API server has no etcd backend: the store must be one file: URL naming the SQLite store directory`] },
      { name: 'tcp6', yaml: 'servingInfo: {bindNetwork: tcp6}', want: ['servingInfo.bindNetwork: Unsupported value: "tcp6": supported values: "tcp4", "tcp" (Shipyard serves on 127.0.0.0/8 only)'] },
      { name: 'a key without its certificate', yaml: 'servingInfo: {keyFile: /k.pem}', want: ['servingInfo.certFile: Required value: certFile and keyFile go together'] },
      {
        name: 'a plugin the server cannot switch',
        yaml: 'admission: {disabledPlugins: [NamespaceLifecycle]}',
        want: [`admission.disabledPlugins[0]: Unsupported value: "NamespaceLifecycle": supported values: "${restrictedEndpointsPluginName}" (the server's built-in admission is always on)`],
      },
      {
        name: 'a bad restricted CIDR',
        yaml: `admissionPluginConfig: {"${restrictedEndpointsPluginName}": {configuration: {restrictedCIDRs: ["127.128.0.0/9", "nope"], restricted: []}}}`,
        want: [
          `admissionPluginConfig[${restrictedEndpointsPluginName}].configuration.restrictedCIDRs[1]: Invalid value: "nope": must be an IPv4 CIDR, e.g. 127.128.0.0/9`,
          `admissionPluginConfig[${restrictedEndpointsPluginName}].configuration.restricted: unknown field`,
        ],
      },
      { name: 'not YAML', yaml: 'servingInfo: [', want: [] },
    ];
    for (const c of cases) {
      const message = errorOf(() => parseKubeAPIServerConfig(FILE, header + c.yaml));
      const lines = message.split('\n');
      for (const line of lines) assert.ok(line.startsWith(`kube-apiserver: --config=${FILE}: `), `${c.name}: ${line}`);
      if (c.want.length) assert.deepEqual(lines.map((l) => l.slice(`kube-apiserver: --config=${FILE}: `.length)), c.want, c.name);
      else assert.match(message, /not a YAML or JSON document/, c.name);
    }
    assert.match(errorOf(() => parseKubeAPIServerConfig(FILE, '- a\n')), /: must be an object, not a list$/);
  });

  it('takes the store URL as the datacenter names it (not a container path): the store, and the data directory beside it', () => {
    const o = resolveYaml('storageConfig: {urls: ["file:///var/lib/shipyard/store"]}');
    assert.equal(o.storeDir, '/var/lib/shipyard/store');
    assert.equal(o.dataDir, '/var/lib/shipyard');
    const flagged = resolveYaml('storageConfig: {urls: ["file:///var/lib/shipyard/store"]}', { 'data-dir': ['/d'] });
    assert.deepEqual([flagged.dataDir, flagged.storeDir], ['/d', undefined], '--data-dir wins, with its own store/');
    assert.throws(() => resolveApiServerOptions({ flags: {} }, fakeFiles()), /--data-dir or a --config with storageConfig.urls/);
  });

  it('precedence: flags > apiServerArguments > typed fields > defaults', () => {
    const store = 'storageConfig: {urls: ["file:///s/store"]}\n';
    const cases: { name: string; yaml: string; flags?: Arguments; want: Partial<Record<'bind' | 'port' | 'serviceClusterIpRange' | 'nodePorts' | 'delayMs', unknown>> }[] = [
      { name: 'defaults', yaml: '', want: { bind: '127.0.0.1', port: 6443, serviceClusterIpRange: '127.64.0.0/16', nodePorts: '30000+2768', delayMs: 3000 } },
      {
        name: 'typed fields',
        yaml: 'servingInfo: {bindAddress: "127.1.0.2:7443"}\nservicesSubnet: 127.65.0.0/16\nservicesNodePortRange: 31000-31009',
        want: { bind: '127.1.0.2', port: 7443, serviceClusterIpRange: '127.65.0.0/16', nodePorts: '31000+10' },
      },
      {
        name: 'apiServerArguments over typed fields',
        yaml: 'servingInfo: {bindAddress: "127.1.0.2:7443"}\nservicesSubnet: 127.65.0.0/16\napiServerArguments: {bind-address: ["127.1.0.3"], service-cluster-ip-range: ["127.66.0.0/16"], shutdown-delay-duration: ["15s"]}',
        want: { bind: '127.1.0.3', port: 7443, serviceClusterIpRange: '127.66.0.0/16', delayMs: 15_000 },
      },
      {
        name: 'flags over everything',
        yaml: 'servingInfo: {bindAddress: "127.1.0.2:7443"}\napiServerArguments: {bind-address: ["127.1.0.3"], shutdown-delay-duration: ["15s"]}',
        flags: { 'bind-address': ['127.1.0.4'], 'secure-port': ['6443'], 'shutdown-delay-duration': ['1s'] },
        want: { bind: '127.1.0.4', port: 6443, delayMs: 1000 },
      },
    ];
    for (const c of cases) {
      const o = resolveYaml(store + c.yaml, c.flags);
      const got = { bind: o.bind, port: o.port, serviceClusterIpRange: o.serviceClusterIpRange, nodePorts: `${o.serviceNodePortRange!.base}+${o.serviceNodePortRange!.size}`, delayMs: o.shutdown!.delayMs };
      for (const [k, v] of Object.entries(c.want)) assert.equal(got[k as keyof typeof got], v, `${c.name}: ${k}`);
    }
  });

  it('checks command-line flags with the same value rules', () => {
    assert.match(errorOf(() => resolveApiServerOptions({ flags: { 'data-dir': ['/d'], 'bind-address': ['0.0.0.0'] } }, fakeFiles())), /^kube-apiserver: --bind-address: Invalid value: "0.0.0.0": must be an IPv4 address in 127\.0\.0\.0\/8$/);
    assert.match(errorOf(() => resolveApiServerOptions({ flags: { 'data-dir': ['/d'], 'disable-admission-plugins': ['NodeRestriction'] } }, fakeFiles())), /--disable-admission-plugins: Invalid value: "NodeRestriction": supported values/);
    assert.match(errorOf(() => resolveApiServerOptions({ flags: { 'data-dir': ['/d'], 'shutdown-watch-termination-grace-period': ['-1s'] } }, fakeFiles())), /--shutdown-watch-termination-grace-period: Invalid value: "-1s"/);
    assert.deepEqual(parseFlags(['--config=/c.yaml', '--v=4', '--tls-san=a', '--tls-san=b', '--bind-address=127.1.0.2']), { config: '/c.yaml', flags: { v: ['4'], 'tls-san': ['a', 'b'], 'bind-address': ['127.1.0.2'] } });
    assert.throws(() => parseFlags(['--audit-log-format=legacy']), /kube-apiserver: Unknown option '--audit-log-format'/);
  });

  it('--v: klog verbosity as the log level', () => {
    const table: [number, string][] = [
      [0, 'warn'],
      [1, 'warn'],
      [2, 'info'],
      [3, 'info'],
      [4, 'debug'],
      [5, 'debug'],
      [6, 'trace'],
      [10, 'trace'],
    ];
    for (const [v, level] of table) assert.equal(logLevelForVerbosity(v), level, `--v=${v}`);
    assert.equal(resolveYaml('storageConfig: {urls: ["file:///s/store"]}\napiServerArguments: {v: ["4"]}').logLevel, 'debug');
    assert.equal(resolveYaml('storageConfig: {urls: ["file:///s/store"]}\napiServerArguments: {v: ["4"]}', { v: ['0'] }).logLevel, 'warn', 'the flag wins');
    assert.equal(resolveYaml('storageConfig: {urls: ["file:///s/store"]}').logLevel, undefined, 'no --v: $SHIPYARD_LOG_LEVEL or info');
  });

  it('servingInfo: TLS profile, certificate files read at their container paths, SNI certificates', () => {
    const files = fakeFiles({ '/host/pod/etc/tls/tls.crt': 'CERT', '/host/pod/etc/tls/tls.key': 'KEY', '/host/pod/etc/ca/ca.crt': 'CA', '/host/pod/etc/sni/a.crt': 'A', '/host/pod/etc/sni/a.key': 'AK' });
    const o = resolveYaml(
      [
        'storageConfig: {urls: ["file:///s/store"]}',
        'servingInfo:',
        '  minTLSVersion: VersionTLS12',
        '  cipherSuites: [TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256]',
        '  certFile: /etc/tls/tls.crt',
        '  keyFile: /etc/tls/tls.key',
        '  clientCA: /etc/ca/ca.crt',
        '  namedCertificates: [{names: ["*.apps.example.com"], certFile: /etc/sni/a.crt, keyFile: /etc/sni/a.key}]',
      ].join('\n'),
      {},
      files,
    );
    assert.equal(o.tls?.minVersion, 'TLSv1.2');
    assert.equal(o.tls?.ciphers, 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305');
    assert.deepEqual(o.tls?.servingCert, { certPem: 'CERT', keyPem: 'KEY' });
    assert.equal(o.tls?.clientCaPem, 'CA');
    assert.deepEqual(o.tls?.namedCertificates, [{ names: ['*.apps.example.com'], certPem: 'A', keyPem: 'AK' }]);
    assert.equal(
      errorOf(() => resolveYaml('storageConfig: {urls: ["file:///s/store"]}\nservingInfo: {clientCA: /etc/missing.crt}', {}, files)),
      `kube-apiserver: --config=${FILE}: servingInfo.clientCA: Invalid value: "/etc/missing.crt": ENOENT: no such file or directory, open '/host/pod/etc/missing.crt'`,
    );
  });

  it('restricted CIDRs (inline or from location; admissionPluginConfig wins), CORS, grace period, recorded image policy', () => {
    const files = fakeFiles({ '/host/pod/etc/plugin.yaml': 'restrictedCIDRs: ["127.100.0.0/16"]' });
    const store = 'storageConfig: {urls: ["file:///s/store"]}\n';
    const inline = `admissionPluginConfig: {"${restrictedEndpointsPluginName}": {configuration: {apiVersion: network.openshift.io/v1, kind: RestrictedEndpointsAdmissionConfig, restrictedCIDRs: ["127.128.0.0/9", "127.64.0.0/16"]}}}\n`;
    const located = `admission: {pluginConfig: {"${restrictedEndpointsPluginName}": {location: /etc/plugin.yaml}}}\n`;
    assert.deepEqual(resolveYaml(store + inline + located, {}, files).restrictedEndpointCIDRs, ['127.128.0.0/9', '127.64.0.0/16']);
    assert.deepEqual(resolveYaml(store + located, {}, files).restrictedEndpointCIDRs, ['127.100.0.0/16']);
    assert.deepEqual(resolveYaml(store + inline, { 'disable-admission-plugins': [restrictedEndpointsPluginName] }, files).restrictedEndpointCIDRs, [], 'disabled');
    const o = resolveYaml(
      store + 'corsAllowedOrigins: ["//127\\\\.0\\\\.0\\\\.1(:|$)"]\ngracefulTerminationDuration: "80"\napiServerArguments: {shutdown-delay-duration: ["15s"]}\nimagePolicyConfig: {internalRegistryHostname: "image-registry.openshift-image-registry.svc:5000"}',
    );
    assert.deepEqual(o.corsAllowedOrigins, ['//127\\.0\\.0\\.1(:|$)']);
    assert.equal(o.shutdown?.requestTimeoutMs, 60_000, '80 s less the 15 s delay and 5 s to spare');
    assert.deepEqual(o.recorded, { imagePolicyConfig: { internalRegistryHostname: 'image-registry.openshift-image-registry.svc:5000' } });
  });

  it('auditConfig: container paths mapped, the policy read, apiServerArguments over the typed fields, inline policy over policyFile', () => {
    const store = 'storageConfig: {urls: ["file:///s/store"]}\n';
    const policy = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, verbs: [create]}]\n';
    const files = fakeFiles({ '/host/pod/etc/audit/policy.yaml': policy });
    const audit = 'auditConfig: {enabled: true, auditFilePath: /var/log/kube-apiserver/audit.log, policyFile: /etc/audit/policy.yaml, maximumRetainedFiles: 10, maximumFileSizeMegabytes: 100, maximumFileRetentionDays: 7, logFormat: json}\n';
    const o = resolveYaml(store + audit, {}, files);
    assert.equal(o.audit?.path, '/host/pod/var/log/kube-apiserver/audit.log');
    assert.deepEqual(o.audit?.policy.rules.map((r) => [r.level, r.verbs]), [['Metadata', ['create']]]);
    assert.deepEqual([o.audit?.maxBackups, o.audit?.maxSizeMegabytes, o.audit?.maxAgeDays], [10, 100, 7]);
    const args = resolveYaml(store + audit + 'apiServerArguments: {audit-log-maxbackup: ["3"]}\n', { 'audit-log-path': ['/other.log'] }, files);
    assert.deepEqual([args.audit?.path, args.audit?.maxBackups], ['/host/pod/other.log', 3]);
    const inline = resolveYaml(store + 'auditConfig: {enabled: true, auditFilePath: /a.log, policyFile: /missing.yaml, policyConfiguration: {rules: [{level: None}]}}\n', {}, files);
    assert.deepEqual(inline.audit?.policy.rules.map((r) => r.level), ['None']);
    assert.equal(resolveYaml(store + 'auditConfig: {enabled: false, auditFilePath: /a.log, policyFile: /etc/audit/policy.yaml}\n', {}, files).audit, undefined, 'disabled');
    assert.match(errorOf(() => resolveYaml(store, { 'audit-log-path': ['/a.log'], 'audit-policy-file': ['/missing.yaml'] }, files)), /^kube-apiserver: --audit-policy-file=\/missing.yaml: ENOENT/);
    const badPolicy = fakeFiles({ '/host/pod/p.yaml': 'rules: [{level: Request, verbs: get}]' });
    assert.equal(
      errorOf(() => resolveYaml(store, { 'audit-log-path': ['/a.log'], 'audit-policy-file': ['/p.yaml'] }, badPolicy)),
      [
        'kube-apiserver: --audit-policy-file=/p.yaml: rules[0].level: Unsupported value: "Request": supported values: "None", "Metadata" (this server does not log request or response bodies)',
        'kube-apiserver: --audit-policy-file=/p.yaml: rules[0].verbs: Invalid value: "get": must be a list of strings',
      ].join('\n'),
    );
  });
});
