import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../schema.ts';
import {
  LegacyMachineHealthCheck,
  Machine,
  machineAPICRDs,
  MachineHealthCheck,
  MachineSet,
  type Machine as MachineObject,
  type MachineHealthCheck as MachineHealthCheckObject,
  type MachineSet as MachineSetObject,
} from './index.ts';

type Kind = typeof Machine | typeof MachineSet | typeof MachineHealthCheck | typeof LegacyMachineHealthCheck;
const schemaOf = (k: Kind): JSONSchemaProps => k.crd.spec.versions[0]!.schema.openAPIV3Schema;
const specOf = (k: Kind) => schemaOf(k).properties!.spec!.properties!;
const statusOf = (k: Kind) => schemaOf(k).properties!.status!.properties!;
const columns = (k: Kind) => k.crd.spec.versions[0]!.additionalPrinterColumns!.map((c) => [c.name, c.type, c.jsonPath, c.priority ?? 0]);

describe('Machine API CRDs', () => {
  it('are three namespaced machine.openshift.io/v1beta1 CRDs and the legacy healthchecking.openshift.io/v1alpha1 one, shipped in the payload', () => {
    const crds = machineAPICRDs();
    assert.deepEqual(
      crds.map((c) => [c.metadata.name, c.spec.names.kind, c.spec.versions.map((v) => [v.name, v.served, v.storage])]),
      [
        ['machines.machine.openshift.io', 'Machine', [['v1beta1', true, true]]],
        ['machinesets.machine.openshift.io', 'MachineSet', [['v1beta1', true, true]]],
        ['machinehealthchecks.machine.openshift.io', 'MachineHealthCheck', [['v1beta1', true, true]]],
        ['machinehealthchecks.healthchecking.openshift.io', 'MachineHealthCheck', [['v1alpha1', true, true]]],
      ],
    );
    for (const crd of crds) {
      assert.equal(crd.spec.scope, 'Namespaced', crd.metadata.name);
      assert.equal(crd.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability'], 'true', crd.metadata.name);
      assert.equal(crd.spec.names.categories, undefined, 'OpenShift declares no categories');
    }
    assert.notEqual(crds[0], Machine.crd, 'fresh copies');
  });

  it('have the short names ma, ms, mhc and mhcs; the legacy kind has none, so mhc always means v1beta1', () => {
    assert.deepEqual(
      [Machine, MachineSet, MachineHealthCheck, LegacyMachineHealthCheck].map((k) => k.crd.spec.names.shortNames),
      [['ma'], ['ms'], ['mhc', 'mhcs'], undefined],
    );
  });

  it('serve status as a subresource, and MachineSet also scale on spec.replicas, status.replicas and status.labelSelector', () => {
    for (const k of [Machine, MachineHealthCheck]) assert.deepEqual(k.crd.spec.versions[0]!.subresources, { status: {} }, k.kind);
    assert.deepEqual(MachineSet.crd.spec.versions[0]!.subresources, {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
    });
    assert.equal(statusOf(MachineSet).labelSelector!.type, 'string');
    assert.equal(LegacyMachineHealthCheck.crd.spec.versions[0]!.subresources, undefined);
  });

  it('Machine prints PHASE TYPE REGION ZONE AGE, and NODE PROVIDERID STATE with -o wide, as oc does', () => {
    assert.deepEqual(columns(Machine), [
      ['Phase', 'string', '.status.phase', 0],
      ['Type', 'string', ".metadata.labels['machine\\.openshift\\.io/instance-type']", 0],
      ['Region', 'string', ".metadata.labels['machine\\.openshift\\.io/region']", 0],
      ['Zone', 'string', ".metadata.labels['machine\\.openshift\\.io/zone']", 0],
      ['Age', 'date', '.metadata.creationTimestamp', 0],
      ['Node', 'string', '.status.nodeRef.name', 1],
      ['ProviderID', 'string', '.spec.providerID', 1],
      ['State', 'string', ".metadata.annotations['machine\\.openshift\\.io/instance-state']", 1],
    ]);
  });

  it('MachineSet prints DESIRED CURRENT READY AVAILABLE AGE; MachineHealthCheck MAXUNHEALTHY EXPECTEDMACHINES CURRENTHEALTHY', () => {
    assert.deepEqual(columns(MachineSet), [
      ['Desired', 'integer', '.spec.replicas', 0],
      ['Current', 'integer', '.status.replicas', 0],
      ['Ready', 'integer', '.status.readyReplicas', 0],
      ['Available', 'string', '.status.availableReplicas', 0],
      ['Age', 'date', '.metadata.creationTimestamp', 0],
    ]);
    assert.deepEqual(columns(MachineHealthCheck), [
      ['MaxUnhealthy', 'string', '.spec.maxUnhealthy', 0],
      ['ExpectedMachines', 'integer', '.status.expectedMachines', 0],
      ['CurrentHealthy', 'integer', '.status.currentHealthy', 0],
    ]);
  });

  it('Machine keeps providerSpec.value and providerStatus as sent, keys lifecycle hooks by name and conditions by type', () => {
    const spec = specOf(Machine);
    assert.equal(schemaOf(Machine).required, undefined, 'spec is optional, as OpenShift declares it');
    assert.deepEqual(Object.keys(spec).sort(), ['authoritativeAPI', 'lifecycleHooks', 'metadata', 'providerID', 'providerSpec', 'taints']);
    assert.deepEqual(spec.providerSpec!.properties!.value, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, description: spec.providerSpec!.properties!.value!.description });
    for (const hook of ['preDrain', 'preTerminate']) {
      const list = spec.lifecycleHooks!.properties![hook]!;
      assert.deepEqual([list['x-kubernetes-list-type'], list['x-kubernetes-list-map-keys'], list.items!.required], ['map', ['name'], ['name', 'owner']], hook);
      assert.deepEqual([list.items!.properties!.name!.minLength, list.items!.properties!.name!.maxLength, list.items!.properties!.owner!.maxLength], [3, 256, 512]);
    }
    assert.deepEqual(spec.taints!.items!.required, ['key', 'effect']);
    assert.deepEqual(spec.authoritativeAPI!.enum, ['MachineAPI', 'ClusterAPI']);
    assert.deepEqual(Object.keys(spec.metadata!.properties!).sort(), ['annotations', 'generateName', 'labels', 'name', 'namespace', 'ownerReferences']);
    const status = statusOf(Machine);
    assert.deepEqual(Object.keys(status).sort(), ['addresses', 'conditions', 'errorMessage', 'errorReason', 'lastOperation', 'lastUpdated', 'nodeRef', 'phase', 'providerStatus']);
    assert.equal(status.providerStatus!['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(status.nodeRef!['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(status.addresses!.items!.required, ['type', 'address']);
    assert.deepEqual([status.conditions!['x-kubernetes-list-type'], status.conditions!['x-kubernetes-list-map-keys']], ['map', ['type']]);
    assert.deepEqual(status.conditions!.items!.required, ['type', 'status', 'lastTransitionTime']);
    assert.deepEqual(Object.keys(status.conditions!.items!.properties!).sort(), ['lastTransitionTime', 'message', 'reason', 'severity', 'status', 'type']);
  });

  it('MachineSet defaults replicas to 1, enumerates deletePolicy and embeds the Machine spec in its template', () => {
    const spec = specOf(MachineSet);
    assert.deepEqual([spec.replicas!.type, spec.replicas!.format, spec.replicas!.default], ['integer', 'int32', 1]);
    assert.deepEqual(spec.deletePolicy!.enum, ['Random', 'Newest', 'Oldest']);
    assert.equal(spec.deletePolicy!.default, undefined, 'empty means Random, as in OpenShift');
    assert.equal(spec.selector!['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(spec.template!.properties!.spec!.properties, specOf(Machine));
    const status = statusOf(MachineSet);
    for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) assert.deepEqual([status[f]!.type, status[f]!.format], ['integer', 'int32'], f);
    assert.equal(status.observedGeneration!.format, 'int64');
  });

  it('MachineHealthCheck defaults maxUnhealthy to 100%, nodeStartupTimeout to 10m and unhealthyConditions to Ready False/Unknown for 300s', () => {
    const spec = specOf(MachineHealthCheck);
    const max = spec.maxUnhealthy!;
    assert.deepEqual([max['x-kubernetes-int-or-string'], max.default, max.pattern], [true, '100%', '^((100|[0-9]{1,2})%|[0-9]+)$']);
    assert.deepEqual([spec.nodeStartupTimeout!.default, spec.nodeStartupTimeout!.pattern], ['10m', '^0|([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$']);
    const conditions = spec.unhealthyConditions!;
    assert.equal(conditions.minItems, 1);
    assert.deepEqual(conditions.default, [
      { type: 'Ready', status: 'False', timeout: '300s' },
      { type: 'Ready', status: 'Unknown', timeout: '300s' },
    ]);
    assert.deepEqual(conditions.items!.required, ['type', 'status', 'timeout']);
    assert.equal(conditions.items!.properties!.timeout!.pattern, '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$');
    assert.equal(spec.remediationTemplate!['x-kubernetes-map-type'], 'atomic');
    const status = statusOf(MachineHealthCheck);
    assert.deepEqual(Object.keys(status).sort(), ['conditions', 'currentHealthy', 'expectedMachines', 'remediationsAllowed']);
    assert.equal(status.conditions!.items!.required, undefined, 'OpenShift requires no MachineHealthCheck condition field');
  });

  it('the legacy MachineHealthCheck has a selector and nothing else', () => {
    assert.deepEqual(Object.keys(specOf(LegacyMachineHealthCheck)), ['selector']);
    assert.equal(schemaOf(LegacyMachineHealthCheck).properties!.status, undefined);
  });

  it('expose REST coordinates and TypeScript types from the same declaration (checked by the type check)', () => {
    assert.deepEqual(
      [MachineSet.apiVersion, MachineSet.resource, MachineSet.kind, MachineSet.namespaced, LegacyMachineHealthCheck.apiVersion],
      ['machine.openshift.io/v1beta1', 'machinesets', 'MachineSet', true, 'healthchecking.openshift.io/v1alpha1'],
    );
    const machine: MachineObject = {
      metadata: { name: 'worker-a-x1', namespace: 'openshift-machine-api' },
      spec: { providerSpec: { value: { instanceType: 's.large', zone: 'a' } }, lifecycleHooks: { preDrain: [{ name: 'EtcdQuorum', owner: 'clusteroperator/etcd' }] } },
      status: { phase: 'Running', nodeRef: { kind: 'Node', name: 'worker-0', uid: 'u' }, addresses: [{ type: 'InternalIP', address: '127.1.0.5' }] },
    };
    const set: MachineSetObject = { spec: { replicas: 2, deletePolicy: 'Oldest', selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } } } } };
    const check: MachineHealthCheckObject = { spec: { maxUnhealthy: 0, unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '30s' }] } };
    // @ts-expect-error deletePolicy is one of Random, Newest, Oldest
    const badSet: MachineSetObject = { spec: { deletePolicy: 'Largest' } };
    // @ts-expect-error a phase is one of the five
    const badMachine: MachineObject = { spec: {}, status: { phase: 'Booting' } };
    assert.ok(machine && set && check && badSet && badMachine);
  });
});
