/**
 * FeatureGate (config.openshift.io/v1, singleton `cluster`): which feature set the cluster runs
 * (Default when empty), or an explicit gate list for CustomNoUpgrade; the status lists, per
 * release version, which gates are on and off, so operators of a version read their own list.
 * Leaving Default is one-way, as the CEL rules on `featureSet` say.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { group, includedInPayload, metav1Conditions, version } from './common.ts';

export const featureSets = ['CustomNoUpgrade', 'DevPreviewNoUpgrade', 'TechPreviewNoUpgrade', 'OKD', ''] as const;
export type FeatureSet = (typeof featureSets)[number];

const gateName = s.string({ pattern: '^([A-Za-z0-9-]+\\.)*[A-Za-z0-9-]+\\.?$' });
const gateNames = s.array(gateName);

const noChange = (set: string) => ({ rule: `oldSelf == '${set}' ? self == '${set}' : true`, message: `${set} may not be changed` });

export const featureGateSpec = s.object(
  {
    featureSet: s.enum(featureSets, {
      description: 'A named set of gates; empty is Default.',
      rules: [noChange('CustomNoUpgrade'), noChange('TechPreviewNoUpgrade'), noChange('DevPreviewNoUpgrade'), { rule: "oldSelf == 'OKD' ? self != '' : true", message: 'OKD cannot transition to Default' }],
    }),
    customNoUpgrade: s.nullable(
      s.object(
        { enabled: gateNames, disabled: gateNames },
        { description: 'Gates to turn on or off, with featureSet CustomNoUpgrade; such a cluster cannot be updated.' },
      ),
    ),
  },
  { rules: [{ rule: 'has(oldSelf.featureSet) ? has(self.featureSet) : true', message: '.spec.featureSet cannot be removed' }] },
);
export type FeatureGateSpec = Infer<typeof featureGateSpec>;

const gateAttributes = s.array(s.object({ name: required(gateName) }));

export const featureGateDetails = s.object({
  version: required(s.string({ description: 'The release version these gates apply to.' })),
  enabled: gateAttributes,
  disabled: gateAttributes,
});
export type FeatureGateDetails = Infer<typeof featureGateDetails>;

export const featureGateStatus = s.object({
  conditions: metav1Conditions,
  featureGates: s.array(featureGateDetails, { listType: 'map', listMapKeys: ['version'] }),
});
export type FeatureGateStatus = Infer<typeof featureGateStatus>;

export const FeatureGate = defineCustomResource({
  group,
  version,
  kind: 'FeatureGate',
  plural: 'featuregates',
  scope: 'Cluster',
  description: 'The feature gates of the cluster (singleton `cluster`).',
  annotations: includedInPayload,
  spec: featureGateSpec,
  status: featureGateStatus,
});
export type FeatureGate = ResourceOf<typeof FeatureGate>;
