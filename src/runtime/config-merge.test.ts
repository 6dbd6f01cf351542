/**
 * library-go's config merger as table tests (objects key by key, lists and scalars replace, an
 * object over a non-object, empty layers skipped, the admission plugin lists unioned and
 * sorted, the kind check), then validation of the merged KubeAPIServerConfig naming the layer
 * and path of each bad value, and the paths an overrides document sets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultKubeAPIServerConfig } from '../api/kubecontrolplane/default-config.ts';
import { kubeAPIServerConfig } from '../api/kubecontrolplane/kube-apiserver-config.ts';
import { validateKubeAPIServerConfigValues } from '../api/kubecontrolplane/validate.ts';
import { formatConfigError, mergeAndValidate, mergeConfigLayers, unsupportedOverridesMessage, unsupportedOverridesPaths, type ConfigLayer } from './config-merge.ts';
import type { SparseConfig } from './sparse-config.ts';

const layers = (...contents: ConfigLayer['content'][]): ConfigLayer[] => contents.map((content, i) => ({ name: `layer${i}`, content }));

function merged(...contents: ConfigLayer['content'][]): SparseConfig {
  const r = mergeConfigLayers(layers(...contents));
  assert.ok(r.ok, r.ok ? '' : r.errors.map(formatConfigError).join('\n'));
  return r.config;
}

const validate = (l: ConfigLayer[]) => mergeAndValidate(l, { schema: kubeAPIServerConfig.json, check: validateKubeAPIServerConfigValues });

function errorsOf(l: ConfigLayer[]): string[] {
  const r = validate(l);
  assert.equal(r.ok, false, 'expected validation to fail');
  return r.ok ? [] : r.errors.map(formatConfigError);
}

describe('runtime/config-merge', () => {
  describe('merging (library-go MergeProcessConfig)', () => {
    const table: Array<{ name: string; layers: ConfigLayer['content'][]; want: SparseConfig }> = [
      { name: 'objects merge key by key, recursively', layers: [{ a: { b: 1, c: { d: 1 } } }, { a: { c: { e: 2 } }, f: 3 }], want: { a: { b: 1, c: { d: 1, e: 2 } }, f: 3 } },
      { name: 'a scalar replaces a scalar', layers: [{ a: 'x' }, { a: 'y' }], want: { a: 'y' } },
      { name: 'a list replaces a list whole', layers: [{ a: ['1', '2', '3'] }, { a: ['4'] }], want: { a: ['4'] } },
      { name: 'an object over a non-object replaces it', layers: [{ a: 'x', b: ['y'] }, { a: { c: 1 }, b: { d: 2 } }], want: { a: { c: 1 }, b: { d: 2 } } },
      { name: 'a scalar over an object replaces it', layers: [{ a: { c: 1 } }, { a: 'x' }], want: { a: 'x' } },
      { name: 'a null sets null (there is no delete marker)', layers: [{ a: { b: 1 } }, { a: null }], want: { a: null } },
      { name: 'empty layers are skipped', layers: [{ a: 1 }, '', '   \n', null, undefined, 'null', { b: 2 }], want: { a: 1, b: 2 } },
      { name: 'YAML and JSON documents', layers: ['a:\n  b: [x]\n', '{"a": {"c": "y"}}'], want: { a: { b: ['x'], c: 'y' } } },
      {
        name: 'admission plugin lists are unioned and sorted across layers',
        layers: [
          { apiServerArguments: { 'enable-admission-plugins': ['b', 'a'], 'disable-admission-plugins': ['x'], v: ['2'] } },
          { apiServerArguments: { 'enable-admission-plugins': ['c', 'a'], v: ['4'] } },
          { apiServerArguments: { 'disable-admission-plugins': ['w'] }, admission: { enabledPlugins: ['P'] } },
          { admission: { enabledPlugins: ['O', 'P'], disabledPlugins: ['Q'] } },
        ],
        want: { apiServerArguments: { 'enable-admission-plugins': ['a', 'b', 'c'], 'disable-admission-plugins': ['w', 'x'], v: ['4'] }, admission: { enabledPlugins: ['O', 'P'], disabledPlugins: ['Q'] } },
      },
      { name: 'a set-list in one layer only is still unique and sorted', layers: [{ apiServerArguments: { 'enable-admission-plugins': ['b', 'a', 'b'] } }], want: { apiServerArguments: { 'enable-admission-plugins': ['a', 'b'] } } },
      { name: 'a layer with the same apiVersion and kind, or none, merges', layers: [{ apiVersion: 'g/v1', kind: 'K', a: 1 }, { a: 2 }, { apiVersion: 'g/v1', kind: 'K', b: 3 }], want: { apiVersion: 'g/v1', kind: 'K', a: 2, b: 3 } },
      { name: 'no layer at all is an empty config', layers: [], want: {} },
    ];
    for (const c of table) it(c.name, () => assert.deepEqual(merged(...c.layers), c.want));

    it('never changes the layers it is given', () => {
      const bottom = { a: { b: ['1'] } };
      const top = { a: { c: 1 } };
      merged(bottom, top);
      assert.deepEqual(bottom, { a: { b: ['1'] } });
      assert.deepEqual(top, { a: { c: 1 } });
    });

    it("a layer of another apiVersion or kind fails with library-go's message, naming the layer", () => {
      const r = mergeConfigLayers([
        { name: 'defaultConfig', content: { apiVersion: 'kubecontrolplane.config.openshift.io/v1', kind: 'KubeAPIServerConfig' } },
        { name: 'unsupportedConfigOverrides', content: { apiVersion: 'v1', kind: 'ConfigMap' } },
      ]);
      assert.equal(r.ok, false);
      assert.deepEqual(r.ok ? [] : r.errors.map(formatConfigError), ['unsupportedConfigOverrides: v1/ConfigMap does not equal kubecontrolplane.config.openshift.io/v1/KubeAPIServerConfig']);
    });

    it('a layer that is not a YAML or JSON object fails, naming the layer', () => {
      const r = mergeConfigLayers([
        { name: 'observedConfig', content: 'a: [unclosed' },
        { name: 'unsupportedConfigOverrides', content: '- a\n- b\n' },
      ]);
      assert.equal(r.ok, false);
      const errors = r.ok ? [] : r.errors.map(formatConfigError);
      assert.match(errors[0]!, /^observedConfig: not a YAML or JSON document: /);
      assert.equal(errors[1], 'unsupportedConfigOverrides: must be an object, not a list');
    });
  });

  describe('validation of the merged KubeAPIServerConfig', () => {
    const base = (): ConfigLayer[] => [
      { name: 'defaultConfig', content: defaultKubeAPIServerConfig() },
      { name: 'observedConfig', content: { storageConfig: { urls: ['file:///var/lib/shipyard/store'] }, servicesSubnet: '127.64.0.0/16' } },
    ];

    it('a good stack passes, with its nulls dropped', () => {
      const r = validate([...base(), { name: 'unsupportedConfigOverrides', content: 'apiServerArguments:\n  v: ["6"]\nservingInfo:\n  minTLSVersion: null\n' }]);
      assert.ok(r.ok, r.ok ? '' : r.errors.map(formatConfigError).join('\n'));
      assert.deepEqual(r.config.apiServerArguments, { v: ['6'], 'shutdown-delay-duration': ['5s'] });
      assert.equal(Object.hasOwn(r.config.servingInfo as object, 'minTLSVersion'), false);
      assert.deepEqual(r.config.storageConfig, { urls: ['file:///var/lib/shipyard/store'] });
    });

    it('an unknown field is an error naming the layer and the full path', () => {
      assert.deepEqual(errorsOf([...base(), { name: 'unsupportedConfigOverrides', content: { servingInfo: { bindAddres: '127.0.0.1:6443' } } }]), [
        'unsupportedConfigOverrides: servingInfo.bindAddres: unknown field',
      ]);
      assert.deepEqual(errorsOf([...base(), { name: 'unsupportedConfigOverrides', content: { apiServerArguments: { 'log-level': ['2'] }, authConfig: {} } }]), [
        'unsupportedConfigOverrides: apiServerArguments.log-level: unknown field',
        'unsupportedConfigOverrides: authConfig: unknown field',
      ]);
    });

    it('a bad flag value is an error naming the layer, the flag and the value', () => {
      assert.deepEqual(errorsOf([...base(), { name: 'unsupportedConfigOverrides', content: '{"apiServerArguments": {"v": ["x"]}}' }]), [
        'unsupportedConfigOverrides: apiServerArguments.v: Invalid value: "x": must be an integer',
      ]);
    });

    it('types and enums from the schema, maps printed with [key]', () => {
      assert.deepEqual(
        errorsOf([
          ...base(),
          {
            name: 'unsupportedConfigOverrides',
            content: { apiServerArguments: { v: 4 }, servingInfo: { minTLSVersion: 'TLS1.2' }, auditConfig: { enabled: 'yes' }, admissionPluginConfig: { 'openshift.io/X': { location: 5, configuration: { anything: [1] } } } },
          },
        ]),
        [
          'unsupportedConfigOverrides: admissionPluginConfig[openshift.io/X].location: Invalid value: 5: must be of type string, not integer',
          'unsupportedConfigOverrides: apiServerArguments.v: Invalid value: 4: must be of type array, not integer',
          'unsupportedConfigOverrides: auditConfig.enabled: Invalid value: "yes": must be of type boolean, not string',
          'unsupportedConfigOverrides: servingInfo.minTLSVersion: Unsupported value: "TLS1.2": supported values: "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"',
        ],
      );
    });

    it('names the layer the bad value came from, not the top one', () => {
      const errors = errorsOf([
        { name: 'defaultConfig', content: { ...defaultKubeAPIServerConfig(), servicesNodePortRange: 'wide' } },
        { name: 'observedConfig', content: { storageConfig: { urls: ['https://etcd-0.example.com:2379'] } } },
        { name: 'unsupportedConfigOverrides', content: { apiServerArguments: { v: ['4'] } } },
      ]);
      assert.deepEqual(errors, [
        'defaultConfig: servicesNodePortRange: Invalid value: "wide": must be a port range such as "30000-32767"',
        `observedConfig: storageConfig.urls[0]: Invalid value: "https://etcd-0.example.com:2379": Shipyard's API server has no etcd backend: the store must be one file: URL naming the SQLite store directory`,
      ]);
    });

    it('an overridden bad default is no error; a bad item of a unioned list names the layer that added it', () => {
      const r = validate([
        { name: 'defaultConfig', content: { ...defaultKubeAPIServerConfig(), servicesNodePortRange: 'wide' } },
        { name: 'unsupportedConfigOverrides', content: { servicesNodePortRange: '30000-32767' } },
      ]);
      assert.ok(r.ok);
      assert.deepEqual(
        errorsOf([
          { name: 'defaultConfig', content: { apiServerArguments: { 'enable-admission-plugins': ['NamespaceLifecycle'] } } },
          { name: 'observedConfig', content: { apiServerArguments: { 'enable-admission-plugins': ['Z'] } } },
          { name: 'unsupportedConfigOverrides', content: { apiServerArguments: { 'enable-admission-plugins': ['a b'] } } },
        ]),
        ['unsupportedConfigOverrides: apiServerArguments.enable-admission-plugins[2]: Invalid value: "a b": must be an admission plugin name'],
      );
    });

    it('merge errors come first and stop validation', () => {
      assert.deepEqual(errorsOf([...base(), { name: 'unsupportedConfigOverrides', content: { kind: 'KubeControllerManagerConfig' } }]), [
        'unsupportedConfigOverrides: /KubeControllerManagerConfig does not equal kubecontrolplane.config.openshift.io/v1/KubeAPIServerConfig',
      ]);
    });
  });

  describe('unsupportedOverridesPaths', () => {
    it('lists every leaf, dotted, list indexes as numbers, sorted; upstream prints them with Go %v', () => {
      const overrides = { apiServerArguments: { v: ['4'] }, servingInfo: { bindAddress: '127.0.0.1:6443' }, corsAllowedOrigins: ['a', 'b'], empty: {} };
      assert.deepEqual(unsupportedOverridesPaths(overrides), ['apiServerArguments.v.0', 'corsAllowedOrigins.0', 'corsAllowedOrigins.1', 'servingInfo.bindAddress']);
      assert.equal(unsupportedOverridesMessage('a:\n  b: 1\nc: [x]\n'), 'setting: [a.b c.0]');
      assert.deepEqual(unsupportedOverridesPaths(null), []);
      assert.deepEqual(unsupportedOverridesPaths(''), []);
      assert.deepEqual(unsupportedOverridesPaths('- not an object'), []);
    });
  });
});
