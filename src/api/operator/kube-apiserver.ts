/**
 * KubeAPIServer (operator.openshift.io/v1, cluster-scoped singleton `cluster`, category
 * `coreoperators`): the kube-apiserver operator's CR (issue 17, item 1). Its spec is
 * openshift/api's static-pod operator spec with `managementState` limited to Managed and Force,
 * as upstream (Unmanaged and Removed get kube's 422 naming the field); its status the
 * static-pod operator status with upstream's transition rules (latestAvailableRevision and each
 * node's currentRevision only increase, at most one node targeted at a time).
 *
 * Beyond upstream, which prints nothing but NAME and AGE: `kubectl get kubeapiserver` shows
 * LATEST REVISION, NODES AT LATEST, PROGRESSING and DEGRADED. NODES AT LATEST reads a status
 * field JSONPath cannot compute, `nodesAtLatestRevision`, and DEGRADED Shipyard's `Degraded`
 * condition (names.ts); the operator writes both.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { group, nodeStatuses, operatorPayloadAnnotations, operatorSpecFields, operatorStatusFields, staticPodOperatorSpecFields, version } from './common.ts';
import { kubeAPIServerConditionTypes } from './names.ts';

/** Only these pass the schema: "for kube apiserver we only support Managed" (Force acts as Managed). */
export const kubeAPIServerManagementStatePattern = '^(Managed|Force)$';

export const kubeAPIServerSpec = s.object(
  {
    ...operatorSpecFields({ managementStatePattern: kubeAPIServerManagementStatePattern }),
    ...staticPodOperatorSpecFields,
  },
  { description: 'spec is the specification of the desired behavior of the Kubernetes API Server' },
);
export type KubeAPIServerSpec = Infer<typeof kubeAPIServerSpec>;

export const kubeAPIServerStatus = s.object(
  {
    ...operatorStatusFields,
    latestAvailableRevisionReason: s.string({ description: 'latestAvailableRevisionReason describe the detailed reason for the most recent deployment' }),
    nodeStatuses,
    nodesAtLatestRevision: s.string({
      description:
        'Shipyard\'s, not in OpenShift\'s API: "<at latest>/<nodes>", how many of the nodes in nodeStatuses run latestAvailableRevision (currentRevision equal to it) out of all of them, e.g. "2/3". Written by the operator with nodeStatuses, for the NODES AT LATEST column of kubectl get kubeapiserver.',
    }),
  },
  { description: 'status is the most recently observed status of the Kubernetes API Server' },
);
export type KubeAPIServerStatus = Infer<typeof kubeAPIServerStatus>;

const conditionStatus = (type: string) => `.status.conditions[?(@.type=="${type}")].status`;

export const KubeAPIServer = defineCustomResource({
  group,
  version,
  kind: 'KubeAPIServer',
  plural: 'kubeapiservers',
  categories: ['coreoperators'],
  scope: 'Cluster',
  description: 'KubeAPIServer provides information to configure an operator to manage kube-apiserver.',
  annotations: operatorPayloadAnnotations,
  spec: kubeAPIServerSpec,
  status: kubeAPIServerStatus,
  printerColumns: [
    { name: 'Latest Revision', type: 'integer', jsonPath: '.status.latestAvailableRevision', description: 'The newest revision cut' },
    { name: 'Nodes At Latest', type: 'string', jsonPath: '.status.nodesAtLatestRevision', description: 'Nodes running the latest revision, of all nodes' },
    {
      name: 'Progressing',
      type: 'string',
      jsonPath: conditionStatus(kubeAPIServerConditionTypes.nodeInstallerProgressing),
      description: 'Whether a node is not yet at the latest revision (NodeInstallerProgressing)',
    },
    { name: 'Degraded', type: 'string', jsonPath: conditionStatus(kubeAPIServerConditionTypes.degraded), description: 'The union of the *Degraded conditions, as the ClusterOperator reports it' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type KubeAPIServer = ResourceOf<typeof KubeAPIServer>;

/**
 * The value of `status.nodesAtLatestRevision` for a status: nodes whose currentRevision is the
 * latest available one, out of every node in nodeStatuses. Revision 0 means nothing is
 * installed, so no node is at it.
 */
export function nodesAtLatestRevision(status: Pick<KubeAPIServerStatus, 'latestAvailableRevision' | 'nodeStatuses'>): string {
  const latest = status.latestAvailableRevision ?? 0;
  const nodes = status.nodeStatuses ?? [];
  const atLatest = latest > 0 ? nodes.filter((n) => (n.currentRevision ?? 0) === latest).length : 0;
  return `${atLatest}/${nodes.length}`;
}
