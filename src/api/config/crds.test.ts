import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Infer } from '../crd/schema-builder.ts';
import {
  ClusterOperator,
  ClusterVersion,
  FeatureGate,
  Image,
  Infrastructure,
  Network,
  clusterOperatorMessage,
  configCRDs,
  updateHistory,
  type ClusterOperatorStatusCondition,
  type ClusterVersion as ClusterVersionObject,
  type Infrastructure as InfrastructureObject,
  type UpdateHistory,
} from './index.ts';

describe('config.openshift.io CRDs', () => {
  it('are cluster-scoped v1 CRDs named <plural>.config.openshift.io, ClusterVersion and ClusterOperator first', () => {
    const crds = configCRDs();
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ['clusterversions', 'clusteroperators', 'infrastructures', 'networks', 'images', 'featuregates'].map((p) => `${p}.config.openshift.io`),
    );
    for (const crd of crds) {
      assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
      assert.equal(crd.spec.scope, 'Cluster');
      assert.equal(crd.spec.group, 'config.openshift.io');
      assert.equal(crd.spec.names.listKind, `${crd.spec.names.kind}List`);
      assert.equal(crd.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability'], 'true');
      const [v] = crd.spec.versions;
      assert.equal(crd.spec.versions.length, 1);
      assert.deepEqual([v!.name, v!.served, v!.storage], ['v1', true, true]);
      assert.deepEqual(v!.schema.openAPIV3Schema.required, ['spec']);
    }
  });

  it('have a status subresource, except Network (OpenShift writes its status with the object)', () => {
    for (const k of [ClusterVersion, ClusterOperator, Infrastructure, Image, FeatureGate]) assert.deepEqual(k.crd.spec.versions[0]!.subresources, { status: {} }, k.kind);
    assert.equal(Network.crd.spec.versions[0]!.subresources, undefined);
  });

  it('ClusterVersion prints VERSION AVAILABLE PROGRESSING SINCE STATUS from history and conditions, and IMAGE with -o wide', () => {
    const cols = ClusterVersion.crd.spec.versions[0]!.additionalPrinterColumns!;
    assert.deepEqual(cols.map((c) => c.priority ?? 0), [0, 0, 0, 0, 0, 1]);
    assert.deepEqual(
      cols.map((c) => [c.name, c.type, c.jsonPath]),
      [
        ['Version', 'string', '.status.history[?(@.state=="Completed")].version'],
        ['Available', 'string', '.status.conditions[?(@.type=="Available")].status'],
        ['Progressing', 'string', '.status.conditions[?(@.type=="Progressing")].status'],
        ['Since', 'date', '.status.conditions[?(@.type=="Progressing")].lastTransitionTime'],
        ['Status', 'string', '.status.conditions[?(@.type=="Progressing")].message'],
        ['Image', 'string', '.status.desired.image'],
      ],
    );
  });

  it('ClusterOperator declares VERSION AVAILABLE PROGRESSING DEGRADED SINCE (MESSAGE is computed by the API server) and has the short name co', () => {
    const cols = ClusterOperator.crd.spec.versions[0]!.additionalPrinterColumns!;
    assert.deepEqual(
      cols.map((c) => [c.name, c.type, c.jsonPath]),
      [
        ['Version', 'string', '.status.versions[?(@.name=="operator")].version'],
        ['Available', 'string', '.status.conditions[?(@.type=="Available")].status'],
        ['Progressing', 'string', '.status.conditions[?(@.type=="Progressing")].status'],
        ['Degraded', 'string', '.status.conditions[?(@.type=="Degraded")].status'],
        ['Since', 'date', '.status.conditions[?(@.type=="Available")].lastTransitionTime'],
      ],
    );
    assert.deepEqual(ClusterOperator.crd.spec.names.shortNames, ['co']);
  });

  it('declare the OpenShift field shapes: required fields, list types, nullable, defaults', () => {
    const cv = ClusterVersion.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!;
    assert.deepEqual(cv.spec!.required, ['clusterID']);
    assert.deepEqual(cv.status!.required, ['desired', 'observedGeneration', 'versionHash', 'availableUpdates']);
    const overrides = cv.spec!.properties!.overrides!;
    assert.equal(overrides['x-kubernetes-list-type'], 'map');
    assert.deepEqual(overrides['x-kubernetes-list-map-keys'], ['kind', 'group', 'namespace', 'name']);
    assert.deepEqual(overrides.items!.required, ['kind', 'group', 'namespace', 'name', 'unmanaged']);
    const history = cv.status!.properties!.history!;
    assert.equal(history['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual(history.items!.required, ['state', 'startedTime', 'completionTime', 'image', 'verified']);
    assert.equal(history.items!.properties!.completionTime!.nullable, true);
    assert.equal(cv.status!.properties!.availableUpdates!.nullable, true);
    const conditions = cv.status!.properties!.conditions!;
    assert.deepEqual([conditions['x-kubernetes-list-type'], conditions['x-kubernetes-list-map-keys']], ['map', ['type']]);
    assert.deepEqual(conditions.items!.required, ['type', 'status', 'lastTransitionTime']);

    const infra = Infrastructure.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.status!.properties!;
    assert.ok(infra.apiServerInternalURI, 'OpenShift spells it apiServerInternalURI');
    assert.equal(infra.controlPlaneTopology!.default, 'HighlyAvailable');
    assert.ok((infra.platformStatus!.properties!.type!.enum as string[]).includes('None'));

    const net = Network.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!;
    assert.deepEqual(Object.keys(net.clusterNetwork!.items!.properties!), ['cidr', 'hostPrefix']);
    const fg = FeatureGate.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!;
    assert.deepEqual(fg.status!.properties!.featureGates!['x-kubernetes-list-map-keys'], ['version']);
    assert.equal(Image.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.status!.properties!.internalRegistryHostname!.type, 'string');
  });

  it('expose REST coordinates for clients', () => {
    assert.deepEqual(
      { group: ClusterOperator.group, version: ClusterOperator.version, resource: ClusterOperator.resource, kind: ClusterOperator.kind, namespaced: ClusterOperator.namespaced },
      { group: 'config.openshift.io', version: 'v1', resource: 'clusteroperators', kind: 'ClusterOperator', namespaced: false },
    );
    assert.equal(ClusterVersion.apiVersion, 'config.openshift.io/v1');
  });

  it('yield TypeScript types from the same schema (checked by the type check)', () => {
    const cv: ClusterVersionObject = {
      apiVersion: ClusterVersion.apiVersion,
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: 'abc', desiredUpdate: { version: '0.2.0', image: 'x', force: false }, overrides: [{ kind: 'Deployment', group: 'apps', namespace: 'ns', name: 'd', unmanaged: true }] },
      status: { desired: { version: '0.1.0', image: 'x' }, observedGeneration: 1, versionHash: 'h', availableUpdates: null, history: [] },
    };
    // @ts-expect-error clusterID is required
    const noID: ClusterVersionObject = { spec: {} };
    // @ts-expect-error state is Partial or Completed
    const badState: UpdateHistory = { state: 'Done', startedTime: '', completionTime: null, image: '', verified: false };
    const infra: InfrastructureObject = { spec: {}, status: { platformStatus: { type: 'None' }, controlPlaneTopology: 'HighlyAvailable' } };
    // @ts-expect-error not a platform
    const badPlatform: InfrastructureObject = { spec: {}, status: { platformStatus: { type: 'Mars' } } };
    const entry: Infer<typeof updateHistory> = { state: 'Completed', startedTime: 't', completionTime: 't', image: 'i', verified: true };
    assert.ok(cv && noID && badState && infra && badPlatform && entry);
  });
});

describe('clusterOperatorMessage', () => {
  const c = (type: string, status: 'True' | 'False' | 'Unknown', message?: string, reason?: string): ClusterOperatorStatusCondition => ({ type, status, lastTransitionTime: 't', ...(message ? { message } : {}), ...(reason ? { reason } : {}) });

  it('is empty for a healthy operator', () => {
    assert.equal(clusterOperatorMessage([c('Available', 'True', 'fine'), c('Progressing', 'False', 'done'), c('Degraded', 'False', 'ok')]), undefined);
    assert.equal(clusterOperatorMessage(undefined), undefined);
  });

  it('prefers Available=False over Degraded=True over Progressing=True, falling back to the reason', () => {
    const progressing = c('Progressing', 'True', 'rolling out');
    const degraded = c('Degraded', 'True', '', 'SyncError');
    const unavailable = c('Available', 'False', 'no pods');
    assert.equal(clusterOperatorMessage([progressing]), 'rolling out');
    assert.equal(clusterOperatorMessage([progressing, degraded]), 'SyncError');
    assert.equal(clusterOperatorMessage([progressing, degraded, unavailable]), 'no pods');
  });
});
