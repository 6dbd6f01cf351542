import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../schema.ts';
import {
  ControllerConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
  machineConfigurationCRDs,
  type MachineConfig as MachineConfigObject,
  type MachineConfigPool as MachineConfigPoolObject,
} from './index.ts';

const schemaOf = (k: { crd: { spec: { versions: Array<{ schema: { openAPIV3Schema: JSONSchemaProps } }> } } }) => k.crd.spec.versions[0]!.schema.openAPIV3Schema;
const columns = (k: typeof MachineConfig | typeof MachineConfigPool) => k.crd.spec.versions[0]!.additionalPrinterColumns!.map((c) => [c.name, c.type, c.jsonPath]);

describe('machineconfiguration.openshift.io CRDs', () => {
  it('are four cluster-scoped v1 CRDs named <plural>.machineconfiguration.openshift.io, shipped in the payload', () => {
    const crds = machineConfigurationCRDs();
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ['machineconfigs', 'machineconfigpools', 'kubeletconfigs', 'controllerconfigs'].map((p) => `${p}.machineconfiguration.openshift.io`),
    );
    for (const crd of crds) {
      assert.equal(crd.spec.scope, 'Cluster');
      assert.deepEqual(crd.spec.versions.map((v) => [v.name, v.served, v.storage]), [['v1', true, true]]);
      assert.equal(crd.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability'], 'true');
      assert.deepEqual(crd.spec.names.categories, ['machineconfiguration']);
    }
    assert.notEqual(crds[0], MachineConfig.crd, 'fresh copies');
  });

  it('have the short names mc and mcp, and a status subresource where OpenShift has one', () => {
    assert.deepEqual(MachineConfig.crd.spec.names.shortNames, ['mc']);
    assert.deepEqual(MachineConfigPool.crd.spec.names.shortNames, ['mcp']);
    assert.equal(KubeletConfig.crd.spec.names.shortNames, undefined);
    assert.equal(MachineConfig.crd.spec.versions[0]!.subresources, undefined);
    for (const k of [MachineConfigPool, KubeletConfig, ControllerConfig]) assert.deepEqual(k.crd.spec.versions[0]!.subresources, { status: {} }, k.kind);
  });

  it('MachineConfig prints GENERATEDBYCONTROLLER IGNITIONVERSION AGE', () => {
    assert.deepEqual(columns(MachineConfig), [
      ['GeneratedByController', 'string', '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version'],
      ['IgnitionVersion', 'string', '.spec.config.ignition.version'],
      ['Age', 'date', '.metadata.creationTimestamp'],
    ]);
  });

  it('MachineConfigPool prints CONFIG UPDATED UPDATING DEGRADED and the four machine counts, then AGE', () => {
    assert.deepEqual(columns(MachineConfigPool), [
      ['Config', 'string', '.status.configuration.name'],
      ['Updated', 'string', '.status.conditions[?(@.type=="Updated")].status'],
      ['Updating', 'string', '.status.conditions[?(@.type=="Updating")].status'],
      ['Degraded', 'string', '.status.conditions[?(@.type=="Degraded")].status'],
      ['MachineCount', 'number', '.status.machineCount'],
      ['ReadyMachineCount', 'number', '.status.readyMachineCount'],
      ['UpdatedMachineCount', 'number', '.status.updatedMachineCount'],
      ['DegradedMachineCount', 'number', '.status.degradedMachineCount'],
      ['Age', 'date', '.metadata.creationTimestamp'],
    ]);
  });

  it('MachineConfig keeps spec.config as sent and does not require a spec, as OpenShift declares it', () => {
    const root = schemaOf(MachineConfig);
    assert.equal(root.required, undefined);
    const spec = root.properties!.spec!.properties!;
    assert.deepEqual(spec.config, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: spec.config!.description });
    assert.deepEqual(Object.keys(spec).sort(), ['baseOSExtensionsContainerImage', 'config', 'extensions', 'fips', 'kernelArguments', 'kernelType', 'osImageURL']);
    assert.equal(spec.kernelArguments!.nullable, true);
    assert.equal(spec.kernelArguments!['x-kubernetes-list-type'], 'atomic');
    assert.equal(spec.kernelType!.enum, undefined, 'kernelType is checked at render time, not by the schema');
    assert.equal(root.properties!.status, undefined);
  });

  it('MachineConfigPool declares atomic selectors, maxUnavailable as int-or-string and the status counts', () => {
    const root = schemaOf(MachineConfigPool);
    assert.deepEqual(root.required, ['spec']);
    const spec = root.properties!.spec!.properties!;
    for (const sel of ['machineConfigSelector', 'nodeSelector']) {
      assert.equal(spec[sel]!['x-kubernetes-map-type'], 'atomic');
      assert.deepEqual(spec[sel]!.properties!.matchExpressions!.items!.required, ['key', 'operator']);
    }
    assert.deepEqual(spec.maxUnavailable, { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, description: spec.maxUnavailable!.description });
    assert.equal(spec.paused!.type, 'boolean');
    assert.equal(spec.configuration!.properties!.source!['x-kubernetes-list-type'], 'atomic');
    const status = root.properties!.status!.properties!;
    for (const f of ['machineCount', 'updatedMachineCount', 'readyMachineCount', 'unavailableMachineCount', 'degradedMachineCount']) assert.deepEqual([status[f]!.type, status[f]!.format], ['integer', 'int32'], f);
    assert.deepEqual(status.observedGeneration!.format, 'int64');
    const condition = status.conditions!.items!;
    assert.equal(condition.required, undefined, 'OpenShift requires no condition field');
    assert.equal(condition.properties!.lastTransitionTime!.nullable, true);
    assert.equal(status.poolSynchronizersStatus!.items!['x-kubernetes-validations']!.length, 5);
  });

  it('KubeletConfig keeps kubeletConfig as sent and bounds logLevel to 0–10', () => {
    const spec = schemaOf(KubeletConfig).properties!.spec!.properties!;
    assert.equal(spec.kubeletConfig!['x-kubernetes-preserve-unknown-fields'], true);
    assert.deepEqual([spec.logLevel!.minimum, spec.logLevel!.maximum], [0, 10]);
    assert.equal(spec.machineConfigPoolSelector!['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(spec.tlsSecurityProfile!.properties!.type!.enum, ['Old', 'Intermediate', 'Modern', 'Custom']);
  });

  it('ControllerConfig requires what OpenShift requires and embeds Infrastructure and DNS as resources', () => {
    const spec = schemaOf(ControllerConfig).properties!.spec!;
    assert.deepEqual(
      [...spec.required!].sort(),
      ['additionalTrustBundle', 'baseOSContainerImage', 'cloudProviderCAData', 'cloudProviderConfig', 'clusterDNSIP', 'dns', 'images', 'infra', 'ipFamilies', 'kubeAPIServerServingCAData', 'network', 'proxy', 'releaseImage', 'rootCAData'],
    );
    for (const f of ['infra', 'dns']) {
      const p = spec.properties![f]!;
      assert.deepEqual([p['x-kubernetes-embedded-resource'], p.nullable, p.required], [true, true, ['spec']], f);
    }
    assert.equal(spec.properties!.rootCAData!.format, 'byte');
    const conditions = schemaOf(ControllerConfig).properties!.status!.properties!.conditions!;
    assert.deepEqual([conditions['x-kubernetes-list-type'], conditions['x-kubernetes-list-map-keys']], ['map', ['type']]);
  });

  it('expose REST coordinates and TypeScript types from the same declaration (checked by the type check)', () => {
    assert.deepEqual(
      { group: MachineConfigPool.group, version: MachineConfigPool.version, resource: MachineConfigPool.resource, kind: MachineConfigPool.kind, namespaced: MachineConfigPool.namespaced },
      { group: 'machineconfiguration.openshift.io', version: 'v1', resource: 'machineconfigpools', kind: 'MachineConfigPool', namespaced: false },
    );
    const pool: MachineConfigPoolObject = {
      metadata: { name: 'worker' },
      spec: { machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } }, maxUnavailable: '10%', paused: false },
      status: { machineCount: 1, conditions: [{ type: 'Updated', status: 'False', lastTransitionTime: null }], configuration: { name: 'rendered-worker-a', source: [{ kind: 'MachineConfig', name: '00-worker' }] } },
    };
    const config: MachineConfigObject = { metadata: { name: '99-x' }, spec: { config: { ignition: { version: '3.4.0' } }, kernelArguments: null, fips: false } };
    // @ts-expect-error maxUnavailable is a number or a string
    const badPool: MachineConfigPoolObject = { spec: { maxUnavailable: true } };
    assert.ok(pool && config && badPool);
  });
});
