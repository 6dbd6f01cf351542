/**
 * What the operator.openshift.io/v1 kinds share, as openshift/api declares them: the group, the
 * operator spec every operator CR starts with (managementState, the two intent-based log
 * levels, the observed config and the unsupported overrides), the static-pod operator's extra
 * spec (forced redeployment, revision limits), the operator condition and generation entries
 * of its status, and the per-node revision bookkeeping of a static-pod operator with the
 * transition rules that keep it honest.
 */
import { includedInPayload } from '../config/common.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';

export const group = 'operator.openshift.io';
export const version = 'v1';

/** Name of every operator.openshift.io singleton. */
export const operatorSingletonName = 'cluster';

/** As the release payload ships the group's CRDs. */
export const operatorPayloadAnnotations = includedInPayload;

export const managementStates = ['Managed', 'Unmanaged', 'Force', 'Removed'] as const;
/** The Go type's values; each kind's schema says which of them it accepts. */
export type ManagementState = (typeof managementStates)[number];

export const logLevels = ['', 'Normal', 'Debug', 'Trace', 'TraceAll'] as const;
export type LogLevel = (typeof logLevels)[number];

export const operatorConditionStatus = ['True', 'False', 'Unknown'] as const;
export type OperatorConditionStatus = (typeof operatorConditionStatus)[number];

const logLevel = (description: string) => s.enum(logLevels, { default: 'Normal', description });

/**
 * The operator spec of openshift/api (`OperatorSpec`). `managementStatePattern` narrows the
 * states a kind accepts: the static-pod operators allow only Managed and Force.
 */
export function operatorSpecFields(o: { readonly managementStatePattern?: string }) {
  return {
    managementState: s.stringOf<ManagementState>({
      pattern: o.managementStatePattern,
      description: 'managementState indicates whether and how the operator should manage the component',
    }),
    logLevel: logLevel(
      'logLevel is an intent based logging for an overall component. It does not give fine grained control, but it is a simple way to manage coarse grained logging choices that operators have to interpret for their operands. Valid values are: "Normal", "Debug", "Trace", "TraceAll". Defaults to "Normal".',
    ),
    operatorLogLevel: logLevel(
      'operatorLogLevel is an intent based logging for the operator itself. It does not give fine grained control, but it is a simple way to manage coarse grained logging choices that operators have to interpret for themselves. Valid values are: "Normal", "Debug", "Trace", "TraceAll". Defaults to "Normal".',
    ),
    observedConfig: s.nullable(
      s.unknownObject({ description: 'observedConfig holds a sparse config that controller has observed from the cluster state. It exists in spec because it is an input to the level for the operator' }),
    ),
    unsupportedConfigOverrides: s.nullable(
      s.unknownObject({
        description:
          'unsupportedConfigOverrides overrides the final configuration that was computed by the operator. Misuse of this field could lead to unexpected behavior or conflict with other configuration options. Use of this property blocks cluster upgrades, it must be removed before upgrading your cluster.',
      }),
    ),
  };
}

/** What `StaticPodOperatorSpec` adds: forcing a new revision, and how many old ones to keep. */
export const staticPodOperatorSpecFields = {
  forceRedeploymentReason: s.string({
    description:
      'forceRedeploymentReason can be used to force the redeployment of the operand by providing a unique string. This provides a mechanism to kick a previously failed deployment and provide a reason why you think it will work this time instead of failing again on the same config.',
  }),
  failedRevisionLimit: s.integer({
    format: 'int32',
    description: 'failedRevisionLimit is the number of failed static pod installer revisions to keep on disk and in the api -1 = unlimited, 0 or unset = 5 (default)',
  }),
  succeededRevisionLimit: s.integer({
    format: 'int32',
    description: 'succeededRevisionLimit is the number of successful static pod installer revisions to keep on disk and in the api -1 = unlimited, 0 or unset = 5 (default)',
  }),
};

/** `OperatorCondition`: the standard condition fields, type and status checked as metav1.Condition's are. */
export const operatorCondition = s.object(
  {
    type: required(
      s.string({
        maxLength: 316,
        pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
        description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      }),
    ),
    status: required(s.enum(operatorConditionStatus, { description: 'status of the condition, one of True, False, Unknown.' })),
    lastTransitionTime: required(
      s.time({
        description:
          'lastTransitionTime is the last time the condition transitioned from one status to another. This should be when the underlying condition changed. If that is not known, then using the time when the API field changed is acceptable.',
      }),
    ),
    reason: s.string(),
    message: s.string(),
  },
  { description: 'OperatorCondition is just the standard condition fields.' },
);
export type OperatorCondition = Infer<typeof operatorCondition>;

const generationStatus = s.object(
  {
    group: required(s.string({ description: "group is the group of the thing you're tracking" })),
    resource: required(s.string({ description: "resource is the resource type of the thing you're tracking" })),
    namespace: required(s.string({ description: "namespace is where the thing you're tracking is" })),
    name: required(s.string({ description: "name is the name of the thing you're tracking" })),
    lastGeneration: s.integer({ format: 'int64', description: 'lastGeneration is the last generation of the workload controller involved' }),
    hash: s.string({ description: 'hash is an optional field set for resources without generation that are content sensitive like secrets and configmaps' }),
  },
  { description: 'GenerationStatus keeps track of the generation for a given resource so that decisions about forced updates can be made.' },
);
export type GenerationStatus = Infer<typeof generationStatus>;

/** The `OperatorStatus` fields every operator CR reports. */
export const operatorStatusFields = {
  observedGeneration: s.integer({ format: 'int64', description: "observedGeneration is the last generation change you've dealt with" }),
  conditions: s.array(operatorCondition, { listType: 'map', listMapKeys: ['type'], description: 'conditions is a list of conditions and their status' }),
  version: s.string({ description: 'version is the level this availability applies to' }),
  readyReplicas: s.integer({ format: 'int32', description: 'readyReplicas indicates how many replicas are ready and at the desired state' }),
  latestAvailableRevision: s.integer({
    format: 'int32',
    description: 'latestAvailableRevision is the deploymentID of the most recent deployment',
    rules: [{ rule: 'self >= oldSelf', message: 'must only increase' }],
  }),
  generations: s.array(generationStatus, {
    listType: 'map',
    listMapKeys: ['group', 'resource', 'namespace', 'name'],
    description: 'generations are used to determine when an item needs to be reconciled or has changed in a way that needs a reaction.',
  }),
};

export const lastFailedReasons = ['InstallerFailed', 'OperandFailed', 'OperandFailedFallback'] as const;
export type LastFailedReason = (typeof lastFailedReasons)[number];

/**
 * `NodeStatus` of a static-pod operator. The rules make the installer's state machine
 * monotonic as the API sees it: an entry is created empty (the node controller adds it, the
 * installer controller then targets it), `currentRevision` never goes back or away.
 */
export const nodeStatus = s.object(
  {
    nodeName: required(s.string({ description: 'nodeName is the name of the node' })),
    nodeUID: s.string({
      format: 'uuid',
      minLength: 36,
      maxLength: 36,
      description: 'nodeUID is the UID of the node, so that a node deleted and created again under the same name is seen as new and this entry as stale.',
    }),
    currentRevision: s.integer({
      format: 'int32',
      description: 'currentRevision is the generation of the most recently successful deployment. Can not be set on creation of a nodeStatus. Updates must only increase the value.',
      rules: [{ rule: 'self >= oldSelf', message: 'must only increase' }],
    }),
    targetRevision: s.integer({ format: 'int32', description: "targetRevision is the generation of the deployment we're trying to apply. Can not be set on creation of a nodeStatus." }),
    lastFailedRevision: s.integer({ format: 'int32', description: 'lastFailedRevision is the generation of the deployment we tried and failed to deploy.' }),
    lastFailedTime: s.time({ description: 'lastFailedTime is the time the last failed revision failed the last time.' }),
    lastFailedReason: s.stringOf<LastFailedReason>({ description: 'lastFailedReason is a machine readable failure reason string: InstallerFailed, OperandFailed or OperandFailedFallback.' }),
    lastFailedCount: s.integer({ description: 'lastFailedCount is how often the installer pod of the last failed revision failed.' }),
    lastFallbackCount: s.integer({ description: 'lastFallbackCount is how often a fallback to a previous revision happened.' }),
    lastFailedRevisionErrors: s.array(s.string(), {
      listType: 'atomic',
      description: 'lastFailedRevisionErrors is a list of human readable errors during the failed deployment referenced in lastFailedRevision.',
    }),
  },
  {
    description: 'NodeStatus provides information about the current state of a particular node managed by this operator.',
    rules: [
      { rule: 'has(self.currentRevision) || !has(oldSelf.currentRevision)', message: 'cannot be unset once set', fieldPath: '.currentRevision' },
      { rule: 'oldSelf.hasValue() || !has(self.currentRevision)', message: 'currentRevision can not be set on creation of a nodeStatus', optionalOldSelf: true, fieldPath: '.currentRevision' },
      { rule: 'oldSelf.hasValue() || !has(self.targetRevision)', message: 'targetRevision can not be set on creation of a nodeStatus', optionalOldSelf: true, fieldPath: '.targetRevision' },
    ],
  },
);
export type NodeStatus = Infer<typeof nodeStatus>;

/** nodeStatuses keyed by node, at most one of them being installed at a time. */
export const nodeStatuses = s.array(nodeStatus, {
  listType: 'map',
  listMapKeys: ['nodeName'],
  description: 'nodeStatuses track the deployment values and errors across individual nodes',
  rules: [{ rule: 'size(self.filter(status, status.?targetRevision.orValue(0) != 0)) <= 1', message: 'no more than 1 node status may have a nonzero targetRevision' }],
});
