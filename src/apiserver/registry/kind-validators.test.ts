import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configCRDs } from '../../api/config/index.ts';
import { machineAPICRDs } from '../../api/machine/index.ts';
import { machineConfigurationCRDs } from '../../api/machineconfiguration/index.ts';
import { definitionsOf } from '../controllers/crd-controller.ts';
import { validateCustomResourceDefinition } from '../crd/crd-validation.ts';
import type { CustomResourceDefinition } from '../crd/types.ts';
import { kindValidator, withKindValidator } from './kind-validators.ts';
import type { KubeObject } from './resource.ts';

const relative = (): KubeObject => ({ metadata: { name: 'x' }, spec: { config: { ignition: { version: '3.4.0' }, storage: { files: [{ path: 'etc/x' }] } } } });

describe('kind validators', () => {
  it('every machineconfiguration CRD is a valid CRD whose schema and rules compile', () => {
    for (const crd of machineConfigurationCRDs()) assert.deepEqual(validateCustomResourceDefinition(crd as unknown as CustomResourceDefinition), [], crd.metadata.name);
  });

  it('MachineConfig has one; other kinds of its group and kinds elsewhere do not', () => {
    assert.ok(kindValidator('machineconfiguration.openshift.io', 'MachineConfig'));
    assert.equal(kindValidator('machineconfiguration.openshift.io', 'MachineConfigPool'), undefined);
    assert.equal(kindValidator('example.com', 'MachineConfig'), undefined);
  });

  it('the CRD controller gives MachineConfig a strategy that validates create and update, not status', () => {
    const crds = machineConfigurationCRDs().map((c) => ({ ...structuredClone(c), metadata: { ...c.metadata, uid: 'u' } }) as unknown as KubeObject);
    const [mc, pool] = crds.map((c) => definitionsOf(c)[0]!);
    assert.deepEqual(mc!.strategy.validate!(relative()).map((e) => e.field), ['spec.config.storage.files[0].path']);
    assert.deepEqual(mc!.strategy.validateUpdate!(relative(), { metadata: {}, spec: {} }).map((e) => e.field), ['spec.config.storage.files[0].path']);
    assert.deepEqual(mc!.strategy.validateUpdate!(relative(), relative()), [], 'unchanged config');
    assert.equal(mc!.strategy.validateStatusUpdate, undefined);
    assert.equal(pool!.strategy.validate, undefined, 'kinds without a validator keep the plain custom resource strategy');
    assert.equal(mc!.strategy.tracksGeneration, true);
  });

  it('every Machine API CRD is a valid CRD; MachineSet has a validator that checks its selector against the template on create and update', () => {
    for (const crd of machineAPICRDs()) assert.deepEqual(validateCustomResourceDefinition(crd as unknown as CustomResourceDefinition), [], crd.metadata.name);
    const defs = machineAPICRDs().map((c) => definitionsOf({ ...structuredClone(c), metadata: { ...c.metadata, uid: 'u' } } as unknown as KubeObject)[0]!);
    const set = defs.find((d) => d.kind === 'MachineSet')!;
    const machineSet = (tier: string): KubeObject => ({ metadata: { name: 'ms' }, spec: { selector: { matchLabels: { tier: 'gold' } }, template: { metadata: { labels: { tier } } } } });
    assert.deepEqual(set.strategy.validate!(machineSet('silver')).map((e) => e.field), ['spec.template.metadata.labels']);
    assert.deepEqual(set.strategy.validate!(machineSet('gold')), []);
    assert.deepEqual(set.strategy.validateUpdate!(machineSet('silver'), machineSet('gold')).map((e) => e.field), ['spec.template.metadata.labels']);
    assert.deepEqual(set.subresources.scale, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' });
    for (const d of defs.filter((x) => x.kind !== 'MachineSet')) assert.equal(d.strategy.validate, undefined, `${d.group} ${d.kind}`);
  });

  it('ClusterVersion has warnings (kube\'s WarningsOnCreate/OnUpdate) for an override group written as an apiVersion, and no validator', () => {
    const cv = configCRDs().map((c) => definitionsOf({ ...structuredClone(c), metadata: { ...c.metadata, uid: 'u' } } as unknown as KubeObject)[0]!).find((d) => d.kind === 'ClusterVersion')!;
    const obj = (group: string): KubeObject => ({ metadata: { name: 'version' }, spec: { overrides: [{ group, kind: 'Deployment', name: 'd', namespace: 'n', unmanaged: true }] } });
    assert.deepEqual(cv.strategy.warningsOnCreate!(obj('apps/v1')), ['spec.overrides[0].group: "apps/v1" names a group and a version; the group is "apps"']);
    assert.equal(cv.strategy.warningsOnUpdate!(obj('apps/v1'), obj('apps')).length, 1);
    assert.deepEqual(cv.strategy.warningsOnUpdate!(obj('apps'), obj('apps/v1')), []);
    assert.equal(cv.strategy.validate, undefined);
  });

  it('keeps the base strategy\'s own checks first', () => {
    const base = { validate: () => [{ type: 'FieldValueRequired' as const, field: 'spec.a', message: 'spec.a: Required value' }] };
    const s = withKindValidator(base, 'machineconfiguration.openshift.io', 'MachineConfig');
    assert.deepEqual(s.validate!(relative()).map((e) => e.field), ['spec.a', 'spec.config.storage.files[0].path']);
    assert.equal(withKindValidator(base, 'example.com', 'Widget'), base);
  });
});
