import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../schema.ts';
import {
  installerPodName,
  KubeAPIServer,
  kubeAPIServerConditionTypes,
  kubeAPIServerLegacyEventNamespace,
  kubeAPIServerNamespace,
  kubeAPIServerOperatorNamespace,
  mirrorPodName,
  nodesAtLatestRevision,
  operatorCRDs,
  prunerPodName,
  revisionedName,
  revisionStatusName,
  type KubeAPIServer as KubeAPIServerObject,
} from './index.ts';

const schema = (): JSONSchemaProps => KubeAPIServer.crd.spec.versions[0]!.schema.openAPIV3Schema;
const spec = () => schema().properties!.spec!.properties!;
const status = () => schema().properties!.status!.properties!;
const rulesOf = (n: JSONSchemaProps) => n['x-kubernetes-validations']!.map((r) => [r.rule, r.message, r.fieldPath, r.optionalOldSelf]);

describe('operator.openshift.io CRDs', () => {
  it('KubeAPIServer is the cluster-scoped kubeapiservers.operator.openshift.io v1, category coreoperators, with a status subresource, shipped in the payload', () => {
    const crds = operatorCRDs();
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ['kubeapiservers.operator.openshift.io'],
    );
    const crd = crds[0]!;
    assert.notEqual(crd, KubeAPIServer.crd, 'fresh copies');
    assert.equal(crd.spec.scope, 'Cluster');
    assert.deepEqual(crd.spec.names, { plural: 'kubeapiservers', singular: 'kubeapiserver', kind: 'KubeAPIServer', listKind: 'KubeAPIServerList', categories: ['coreoperators'] });
    assert.deepEqual(crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.subresources]), [['v1', true, true, { status: {} }]]);
    assert.equal(crd.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability'], 'true');
    assert.deepEqual(schema().required, ['spec']);
  });

  it('spec: managementState only Managed or Force, log levels enumerated with default Normal, free-form nullable observedConfig and overrides, revision limits as int32', () => {
    assert.deepEqual(Object.keys(spec()).sort(), [
      'failedRevisionLimit',
      'forceRedeploymentReason',
      'logLevel',
      'managementState',
      'observedConfig',
      'operatorLogLevel',
      'succeededRevisionLimit',
      'unsupportedConfigOverrides',
    ]);
    assert.deepEqual([spec().managementState!.type, spec().managementState!.pattern, spec().managementState!.enum], ['string', '^(Managed|Force)$', undefined]);
    for (const f of ['logLevel', 'operatorLogLevel']) assert.deepEqual([spec()[f]!.enum, spec()[f]!.default], [['', 'Normal', 'Debug', 'Trace', 'TraceAll'], 'Normal'], f);
    for (const f of ['observedConfig', 'unsupportedConfigOverrides']) {
      const p = spec()[f]!;
      assert.deepEqual([p.type, p.nullable, p['x-kubernetes-preserve-unknown-fields'], p.properties], ['object', true, true, undefined], f);
    }
    for (const f of ['failedRevisionLimit', 'succeededRevisionLimit']) {
      assert.deepEqual([spec()[f]!.type, spec()[f]!.format, spec()[f]!.default, spec()[f]!.minimum], ['integer', 'int32', undefined, undefined], f);
      assert.match(spec()[f]!.description!, /-1 = unlimited, 0 or unset = 5/);
    }
    assert.equal(spec().forceRedeploymentReason!.type, 'string');
  });

  it('status: openshift/api\'s static-pod operator fields, and Shipyard\'s nodesAtLatestRevision documented as such', () => {
    assert.deepEqual(Object.keys(status()).sort(), [
      'conditions',
      'generations',
      'latestAvailableRevision',
      'latestAvailableRevisionReason',
      'nodeStatuses',
      'nodesAtLatestRevision',
      'observedGeneration',
      'readyReplicas',
      'version',
    ]);
    assert.deepEqual([status().observedGeneration!.format, status().readyReplicas!.format, status().latestAvailableRevision!.format], ['int64', 'int32', 'int32']);
    const conditions = status().conditions!;
    assert.deepEqual([conditions['x-kubernetes-list-type'], conditions['x-kubernetes-list-map-keys'], conditions.items!.required], ['map', ['type'], ['type', 'status', 'lastTransitionTime']]);
    assert.deepEqual(conditions.items!.properties!.status!.enum, ['True', 'False', 'Unknown']);
    assert.deepEqual([conditions.items!.properties!.type!.maxLength, conditions.items!.properties!.lastTransitionTime!.format], [316, 'date-time']);
    const generations = status().generations!;
    assert.deepEqual([generations['x-kubernetes-list-type'], generations['x-kubernetes-list-map-keys'], generations.items!.required], ['map', ['group', 'resource', 'namespace', 'name'], ['group', 'resource', 'namespace', 'name']]);
    assert.equal(status().nodesAtLatestRevision!.type, 'string');
    assert.match(status().nodesAtLatestRevision!.description!, /^Shipyard's, not in OpenShift's API: .*NODES AT LATEST/);
  });

  it('latestAvailableRevision must only increase', () => {
    assert.deepEqual(rulesOf(status().latestAvailableRevision!), [['self >= oldSelf', 'must only increase', undefined, undefined]]);
  });

  it('nodeStatuses: keyed by nodeName, at most one non-zero target; currentRevision only increases, neither revision set on create, currentRevision never unset', () => {
    const list = status().nodeStatuses!;
    assert.deepEqual([list['x-kubernetes-list-type'], list['x-kubernetes-list-map-keys']], ['map', ['nodeName']]);
    assert.deepEqual(rulesOf(list), [['size(self.filter(status, status.?targetRevision.orValue(0) != 0)) <= 1', 'no more than 1 node status may have a nonzero targetRevision', undefined, undefined]]);
    const item = list.items!;
    assert.deepEqual(item.required, ['nodeName']);
    assert.deepEqual(Object.keys(item.properties!).sort(), [
      'currentRevision',
      'lastFailedCount',
      'lastFailedReason',
      'lastFailedRevision',
      'lastFailedRevisionErrors',
      'lastFailedTime',
      'lastFallbackCount',
      'nodeName',
      'nodeUID',
      'targetRevision',
    ]);
    assert.deepEqual(rulesOf(item), [
      ['has(self.currentRevision) || !has(oldSelf.currentRevision)', 'cannot be unset once set', '.currentRevision', undefined],
      ['oldSelf.hasValue() || !has(self.currentRevision)', 'currentRevision can not be set on creation of a nodeStatus', '.currentRevision', true],
      ['oldSelf.hasValue() || !has(self.targetRevision)', 'targetRevision can not be set on creation of a nodeStatus', '.targetRevision', true],
    ]);
    assert.deepEqual(rulesOf(item.properties!.currentRevision!), [['self >= oldSelf', 'must only increase', undefined, undefined]]);
    assert.equal(item.properties!.lastFailedRevisionErrors!['x-kubernetes-list-type'], 'atomic');
    assert.deepEqual([item.properties!.nodeUID!.format, item.properties!.nodeUID!.minLength, item.properties!.nodeUID!.maxLength], ['uuid', 36, 36]);
    assert.equal(item.properties!.lastFailedTime!.format, 'date-time');
  });

  it('prints LATEST REVISION, NODES AT LATEST, PROGRESSING (NodeInstallerProgressing), DEGRADED (Shipyard\'s Degraded) and AGE', () => {
    assert.deepEqual(
      KubeAPIServer.crd.spec.versions[0]!.additionalPrinterColumns!.map((c) => [c.name, c.type, c.jsonPath]),
      [
        ['Latest Revision', 'integer', '.status.latestAvailableRevision'],
        ['Nodes At Latest', 'string', '.status.nodesAtLatestRevision'],
        ['Progressing', 'string', '.status.conditions[?(@.type=="NodeInstallerProgressing")].status'],
        ['Degraded', 'string', '.status.conditions[?(@.type=="Degraded")].status'],
        ['Age', 'date', '.metadata.creationTimestamp'],
      ],
    );
  });

  it('nodesAtLatestRevision counts the nodes whose currentRevision is the latest, of all nodes; revision 0 is nothing installed', () => {
    const cases: Array<[Parameters<typeof nodesAtLatestRevision>[0], string]> = [
      [{}, '0/0'],
      [{ latestAvailableRevision: 0, nodeStatuses: [{ nodeName: 'a' }, { nodeName: 'b', currentRevision: 0 }] }, '0/2'],
      [{ latestAvailableRevision: 1, nodeStatuses: [{ nodeName: 'a' }, { nodeName: 'b' }, { nodeName: 'c' }] }, '0/3'],
      [{ latestAvailableRevision: 4, nodeStatuses: [{ nodeName: 'a', currentRevision: 3 }, { nodeName: 'b', currentRevision: 4 }, { nodeName: 'c', currentRevision: 4, targetRevision: 0 }] }, '2/3'],
      [{ latestAvailableRevision: 5, nodeStatuses: [{ nodeName: 'a', currentRevision: 5 }] }, '1/1'],
    ];
    for (const [input, want] of cases) assert.equal(nodesAtLatestRevision(input), want, JSON.stringify(input));
  });

  it('names: namespaces, condition types and the revision, installer, pruner and mirror pod names as OpenShift spells them', () => {
    assert.deepEqual(
      [kubeAPIServerOperatorNamespace, kubeAPIServerNamespace, kubeAPIServerLegacyEventNamespace],
      ['openshift-kube-apiserver-operator', 'openshift-kube-apiserver', 'openshift-cluster-kube-apiserver-operator'],
    );
    for (const [key, type] of Object.entries(kubeAPIServerConditionTypes)) assert.equal(type.charAt(0).toLowerCase() + type.slice(1), key, 'key is the type in camelCase');
    assert.deepEqual(
      [revisionStatusName(3), revisionedName('config', 3), installerPodName(3, 'master-0'), installerPodName(3, 'master-0', 2), prunerPodName(4, 'master-1'), mirrorPodName('master-2')],
      ['revision-status-3', 'config-3', 'installer-3-master-0', 'installer-3-retry-2-master-0', 'revision-pruner-4-master-1', 'kube-apiserver-master-2'],
    );
  });

  it('exposes REST coordinates and the TypeScript type from the same declaration (checked by the type check)', () => {
    assert.deepEqual(
      [KubeAPIServer.apiVersion, KubeAPIServer.resource, KubeAPIServer.kind, KubeAPIServer.namespaced],
      ['operator.openshift.io/v1', 'kubeapiservers', 'KubeAPIServer', false],
    );
    const cluster: KubeAPIServerObject = {
      metadata: { name: 'cluster' },
      spec: { managementState: 'Managed', logLevel: 'Debug', observedConfig: { servicesSubnet: '127.64.0.0/16' }, unsupportedConfigOverrides: null, succeededRevisionLimit: -1 },
      status: {
        latestAvailableRevision: 2,
        nodesAtLatestRevision: '1/2',
        nodeStatuses: [{ nodeName: 'master-0', currentRevision: 2 }, { nodeName: 'master-1', currentRevision: 1, targetRevision: 2, lastFailedReason: 'InstallerFailed', lastFailedRevisionErrors: ['installer: boom'] }],
        conditions: [{ type: 'NodeInstallerProgressing', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: '', message: '1 node is at revision 1; 1 node is at revision 2' }],
      },
    };
    // @ts-expect-error logLevel is one of the enum's values
    const bad: KubeAPIServerObject = { spec: { logLevel: 'Verbose' } };
    assert.ok(cluster && bad);
  });
});
