/**
 * The names the kube-apiserver operator's parts coordinate through (issue 17), as OpenShift's
 * cluster-kube-apiserver-operator and library-go's static-pod framework spell them: the
 * namespaces, the ClusterOperator, the condition types its controllers write on the
 * KubeAPIServer CR, and the labels, annotations and object names of revisions, installer and
 * pruner pods and the static pod itself.
 */

/** Where the operator runs and records its events. */
export const kubeAPIServerOperatorNamespace = 'openshift-kube-apiserver-operator';

/**
 * The operator namespace's early name, which the operator's README (the seed's
 * `oc get events -n openshift-cluster-kube-apiserver-operator`) still names: the payload keeps
 * it and the operator records its events there as well, so that command tells the same story.
 */
export const kubeAPIServerLegacyEventNamespace = 'openshift-cluster-kube-apiserver-operator';

/** The operand's namespace: rendered inputs, revision snapshots, installer and mirror pods. */
export const kubeAPIServerNamespace = 'openshift-kube-apiserver';

export const kubeAPIServerClusterOperatorName = 'kube-apiserver';

/**
 * Condition types on the KubeAPIServer CR. All but `degraded` are library-go's or the
 * operator's own; `degraded` is Shipyard's (see its comment).
 */
export const kubeAPIServerConditionTypes = {
  staticPodsAvailable: 'StaticPodsAvailable',
  nodeInstallerProgressing: 'NodeInstallerProgressing',
  nodeInstallerDegraded: 'NodeInstallerDegraded',
  installerControllerDegraded: 'InstallerControllerDegraded',
  revisionControllerDegraded: 'RevisionControllerDegraded',
  configObservationDegraded: 'ConfigObservationDegraded',
  targetConfigControllerDegraded: 'TargetConfigControllerDegraded',
  resourceSyncControllerDegraded: 'ResourceSyncControllerDegraded',
  staticPodsDegraded: 'StaticPodsDegraded',
  nodeControllerDegraded: 'NodeControllerDegraded',
  installerPodPendingDegraded: 'InstallerPodPendingDegraded',
  installerPodContainerWaitingDegraded: 'InstallerPodContainerWaitingDegraded',
  installerPodNetworkingDegraded: 'InstallerPodNetworkingDegraded',
  missingStaticPodControllerDegraded: 'MissingStaticPodControllerDegraded',
  guardControllerDegraded: 'GuardControllerDegraded',
  backingResourceControllerDegraded: 'BackingResourceControllerDegraded',
  unsupportedConfigOverridesUpgradeable: 'UnsupportedConfigOverridesUpgradeable',
  /**
   * Shipyard's, for the DEGRADED column of `kubectl get kubeapiserver`, which JSONPath cannot
   * compute from the `*Degraded` conditions: the operator writes here the same union of every
   * `*Degraded` condition that it writes as the ClusterOperator's Degraded (reason
   * `<Type>_<Reason>`, inertia included, runtime/status-union.ts), so the two agree. The union
   * does not count a condition named exactly `Degraded` as one of its inputs.
   */
  degraded: 'Degraded',
} as const;
export type KubeAPIServerConditionType = (typeof kubeAPIServerConditionTypes)[keyof typeof kubeAPIServerConditionTypes];

/** The two rendered inputs every revision snapshots first, in the operand namespace. */
export const kubeAPIServerRenderedConfigMaps = {
  /** `config.yaml`: the merged KubeAPIServerConfig. */
  config: 'config',
  /** `pod.yaml`, `forceRedeploymentReason`, `version`. */
  pod: 'kube-apiserver-pod',
} as const;

/** `revision-status-N` ConfigMap: data `revision`, `reason`; the other inputs are copied as `<name>-N`. */
export const revisionStatusPrefix = 'revision-status-';
export const revisionStatusName = (revision: number): string => `${revisionStatusPrefix}${revision}`;
export const revisionedName = (input: string, revision: number): string => `${input}-${revision}`;

export const revisionAnnotations = {
  /** On `revision-status-N`: "false" while its copies are written, "true" once the revision may be installed. */
  ready: 'operator.openshift.io/revision-ready',
} as const;

export const revisionLabels = {
  /** On the static pod (so on its mirror pod): the revision it runs, as a decimal string. */
  revision: 'revision',
  /** On the static pod: `apiserver: "true"`. */
  apiserver: 'apiserver',
  /** On every object the revision controller writes. */
  controllerInstanceName: 'operator.openshift.io/controller-instance-name',
  /** `app=installer` on installer pods, `app=pruner` on pruner pods. */
  app: 'app',
} as const;

/** The value of `controllerInstanceName` on the revision controller's objects. */
export const revisionControllerInstanceName = 'kube-apiserver-RevisionController';

/** The static pod's name in its manifest; its mirror pod is `kube-apiserver-<node>`. */
export const kubeAPIServerStaticPodName = 'kube-apiserver';
export const mirrorPodName = (node: string): string => `${kubeAPIServerStaticPodName}-${node}`;

export const installerPodName = (revision: number, node: string, retry = 0): string => (retry > 0 ? `installer-${revision}-retry-${retry}-${node}` : `installer-${revision}-${node}`);
export const prunerPodName = (latestRevision: number, node: string): string => `revision-pruner-${latestRevision}-${node}`;
