/**
 * What the config.openshift.io/v1 kinds share: the group, the release-profile annotation every
 * payload CRD carries, and the two condition shapes (ClusterOperator/ClusterVersion conditions,
 * and the generic metav1.Condition the other config kinds use).
 */
import { type Infer, required, s } from '../crd/schema-builder.ts';

export const group = 'config.openshift.io';
export const version = 'v1';

/** Name of every config.openshift.io singleton except ClusterVersion (`version`). */
export const configSingletonName = 'cluster';

/** The CVO applies only manifests included in its cluster profile; the CRDs ship in the payload too. */
export const includedInPayload = { 'include.release.openshift.io/self-managed-high-availability': 'true' } as const;

export const conditionStatus = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof conditionStatus)[number];

/**
 * A ClusterOperator or ClusterVersion condition. Unlike metav1.Condition, `status` is not an
 * enum in the schema and `reason`/`message` are optional, as OpenShift defines them.
 */
export const clusterOperatorStatusCondition = s.object({
  type: required(s.string({ description: 'The aspect reported: Available, Progressing, Degraded, Upgradeable, ...' })),
  status: required(s.stringOf<ConditionStatus>({ description: 'True, False or Unknown.' })),
  lastTransitionTime: required(s.time({ description: 'When status last changed.' })),
  reason: s.string({ description: 'A machine-readable CamelCase cause.' }),
  message: s.string({ description: 'A human-readable explanation.' }),
});
export type ClusterOperatorStatusCondition = Infer<typeof clusterOperatorStatusCondition>;

export const clusterOperatorConditions = s.array(clusterOperatorStatusCondition, { listType: 'map', listMapKeys: ['type'] });

/** metav1.Condition, with the validation Kubernetes generates for it. */
export const metav1Condition = s.object({
  type: required(
    s.string({
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    }),
  ),
  status: required(s.enum(conditionStatus)),
  observedGeneration: s.integer({ format: 'int64', minimum: 0 }),
  lastTransitionTime: required(s.time()),
  reason: required(s.string({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' })),
  message: required(s.string({ maxLength: 32768 })),
});
export type Condition = Infer<typeof metav1Condition>;

export const metav1Conditions = s.array(metav1Condition, { listType: 'map', listMapKeys: ['type'] });
