/**
 * ClusterOperator (config.openshift.io/v1): how each operator tells the cluster, and the CVO,
 * whether its component is available, progressing, degraded or upgradeable, which versions it
 * runs, and which objects to collect when debugging it. The spec is empty; everything is status.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { clusterOperatorConditions, group, includedInPayload, version, type ClusterOperatorStatusCondition } from './common.ts';

export const clusterOperatorConditionTypes = {
  available: 'Available',
  progressing: 'Progressing',
  degraded: 'Degraded',
  upgradeable: 'Upgradeable',
  evaluationConditionsDetected: 'EvaluationConditionsDetected',
} as const;

/** The `versions[]` entry the VERSION column shows and the CVO waits on. */
export const operatorVersionName = 'operator';

export const operandVersion = s.object({
  name: required(s.string({ description: 'What runs at this version: `operator` for the operator itself, else an operand.' })),
  version: required(s.string({ description: 'The version it runs; reported only once all of it runs that version.' })),
});
export type OperandVersion = Infer<typeof operandVersion>;

export const relatedObject = s.object({
  group: required(s.string()),
  resource: required(s.string({ description: 'The plural resource name, e.g. deployments.' })),
  namespace: s.string(),
  name: required(s.string()),
});
export type RelatedObject = Infer<typeof relatedObject>;

export const clusterOperatorStatus = s.object({
  conditions: clusterOperatorConditions,
  versions: s.array(operandVersion),
  relatedObjects: s.array(relatedObject, { description: 'Objects worth collecting when debugging this operator.' }),
  extension: s.nullable(s.unknownObject({ description: 'Operator-specific data.' })),
});
export type ClusterOperatorStatus = Infer<typeof clusterOperatorStatus>;

export const ClusterOperator = defineCustomResource({
  group,
  version,
  kind: 'ClusterOperator',
  plural: 'clusteroperators',
  shortNames: ['co'],
  scope: 'Cluster',
  description: 'The state of one operator-managed component, as its operator reports it.',
  annotations: includedInPayload,
  spec: s.object({}),
  status: clusterOperatorStatus,
  printerColumns: [
    { name: 'Version', type: 'string', jsonPath: '.status.versions[?(@.name=="operator")].version', description: 'The version the operator runs.' },
    { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status', description: 'Whether the component works.' },
    { name: 'Progressing', type: 'string', jsonPath: '.status.conditions[?(@.type=="Progressing")].status', description: 'Whether the component is changing.' },
    { name: 'Degraded', type: 'string', jsonPath: '.status.conditions[?(@.type=="Degraded")].status', description: 'Whether the component works below its expected level.' },
    { name: 'Since', type: 'date', jsonPath: '.status.conditions[?(@.type=="Available")].lastTransitionTime', description: 'When Available last changed.' },
    // No Message column, as in openshift/api: the API server computes that cell from every
    // condition (clusterOperatorMessage below), which one JSONPath cannot.
  ],
});
export type ClusterOperator = ResourceOf<typeof ClusterOperator>;

/**
 * The MESSAGE column as OpenShift prints it: the message (or, without one, the reason) of the
 * most severe abnormal condition — Available=False, then Degraded=True, then Progressing=True —
 * and nothing for a healthy operator.
 */
export function clusterOperatorMessage(conditions: readonly Readonly<ClusterOperatorStatusCondition>[] | undefined): string | undefined {
  const abnormal = (type: string, status: string) => conditions?.find((c) => c.type === type && c.status === status);
  const worst =
    abnormal(clusterOperatorConditionTypes.available, 'False') ??
    abnormal(clusterOperatorConditionTypes.degraded, 'True') ??
    abnormal(clusterOperatorConditionTypes.progressing, 'True');
  if (!worst) return undefined;
  return worst.message || worst.reason || undefined;
}
