/**
 * Short descriptions for the built-in schemas, shown by `kubectl explain`: the fields every
 * kind has, and a few important fields of the common kinds. Keys are `<definition>.<field>`
 * within a package alias; kinds describe themselves in `kinds.ts`.
 */
import type { PackageAlias } from './patch-metadata.ts';

/** Descriptions of the fields every top-level kind has. */
export const commonFieldDescriptions: Readonly<Record<string, string>> = {
  apiVersion: 'The versioned schema of this representation of the object, such as `v1` or `apps/v1`.',
  kind: 'The kind of object this document represents, in CamelCase, such as `Pod`.',
  metadata: 'Standard object metadata: name, namespace, labels, annotations, owners and the fields the server maintains.',
  spec: 'The desired state of the object, written by its users.',
  status: 'The most recently observed state of the object, written by the system. Read-only for users; changed through the `status` subresource.',
};

export const fieldDescriptions: Partial<Record<PackageAlias, Readonly<Record<string, string>>>> = {
  meta: {
    'ObjectMeta.name': 'Unique name within the namespace (or cluster, for cluster-scoped kinds). Cannot be changed after creation.',
    'ObjectMeta.generateName': 'A prefix the server uses to generate a unique name when `name` is empty.',
    'ObjectMeta.namespace': 'The namespace the object lives in; empty for cluster-scoped kinds.',
    'ObjectMeta.uid': 'Unique identifier set by the server on creation; never reused.',
    'ObjectMeta.resourceVersion': 'Opaque version of the object, changed by every write; used for optimistic concurrency and watches.',
    'ObjectMeta.generation': 'A sequence number of changes to the desired state, maintained by the server.',
    'ObjectMeta.creationTimestamp': 'When the object was created, set by the server.',
    'ObjectMeta.deletionTimestamp': 'When deletion was requested; set by the server. The object remains until its finalizers are removed.',
    'ObjectMeta.labels': 'String keys and values used to organise and select objects.',
    'ObjectMeta.annotations': 'String keys and values holding arbitrary non-identifying data for tools.',
    'ObjectMeta.finalizers': 'Names of pending cleanup steps; the object is deleted only when this list is empty.',
    'ObjectMeta.ownerReferences': 'Objects this object depends on; it is garbage-collected once all its owners are gone.',
    'ObjectMeta.managedFields': 'Which manager owns which fields, as recorded by server-side apply and updates.',
    'ListMeta.resourceVersion': 'The version of the collection at the time it was read; start a watch from here.',
    'ListMeta.continue': 'Opaque token to fetch the next page of a limited list.',
    'LabelSelector.matchLabels': 'Labels an object must have, each with exactly this value.',
    'LabelSelector.matchExpressions': 'Label requirements that must all hold (In, NotIn, Exists, DoesNotExist).',
  },
  core: {
    'PodSpec.containers': 'The containers of the pod; at least one. Merged by `name`.',
    'PodSpec.initContainers': 'Containers run to completion, in order, before the regular containers start.',
    'PodSpec.volumes': 'Volumes the containers may mount. Merged by `name`.',
    'PodSpec.nodeName': 'The node the pod is bound to; set by the scheduler through the `binding` subresource.',
    'PodSpec.restartPolicy': 'When containers are restarted: Always, OnFailure or Never.',
    'PodSpec.terminationGracePeriodSeconds': 'Seconds the pod is given to stop after a graceful deletion is requested (default 30).',
    'PodSpec.tolerations': 'Taints this pod tolerates.',
    'PodStatus.phase': 'Summary of where the pod is in its lifecycle: Pending, Running, Succeeded, Failed or Unknown.',
    'PodStatus.conditions': 'Observed conditions of the pod, such as Ready and PodScheduled. Merged by `type`.',
    'Container.name': 'Name of the container, unique within the pod.',
    'Container.image': 'The container image to run.',
    'Container.command': 'Entrypoint array; replaces the image\'s ENTRYPOINT.',
    'Container.args': 'Arguments to the entrypoint; replace the image\'s CMD.',
    'Container.env': 'Environment variables to set in the container. Merged by `name`.',
    'Container.ports': 'Ports the container exposes (informational). Merged by `containerPort`.',
    'Container.resources': 'Compute resources the container requests and is limited to.',
    'Container.volumeMounts': 'Volumes mounted into the container\'s filesystem. Merged by `mountPath`.',
    'NodeSpec.unschedulable': 'Whether new pods may be scheduled onto the node (`kubectl cordon` sets it).',
    'NodeSpec.taints': 'Taints that repel pods which do not tolerate them.',
    'NodeStatus.conditions': 'Observed conditions of the node, such as Ready. Merged by `type`.',
    'NodeStatus.capacity': 'Total resources of the node.',
    'NodeStatus.allocatable': 'Resources available to pods.',
    'ServiceSpec.selector': 'Pods with these labels receive the service\'s traffic.',
    'ServiceSpec.ports': 'Ports the service exposes and where each sends traffic. Merged by `port`.',
    'ServiceSpec.type': 'How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.',
    'ServiceSpec.clusterIP': 'The virtual IP of the service, allocated by the server unless set.',
    'ConfigMap.data': 'Configuration values (UTF-8 strings) by key.',
    'ConfigMap.binaryData': 'Binary configuration values (base64) by key.',
    'Secret.data': 'Secret values, base64-encoded, by key.',
    'Secret.stringData': 'Write-only secret values in plain text, merged into `data` on write.',
    'Secret.type': 'How the secret is used, such as Opaque or kubernetes.io/tls.',
  },
  apps: {
    'DeploymentSpec.replicas': 'Number of pods to run (default 1).',
    'DeploymentSpec.selector': 'Selects the pods this deployment manages; must match the template\'s labels.',
    'DeploymentSpec.template': 'The pod template new ReplicaSets are created from.',
    'DeploymentSpec.strategy': 'How old pods are replaced by new ones: RollingUpdate (default) or Recreate.',
    'ReplicaSetSpec.replicas': 'Number of pods to run (default 1).',
    'ReplicaSetSpec.selector': 'Selects the pods this replica set counts; must match the template\'s labels.',
    'ReplicaSetSpec.template': 'The pod template new pods are created from.',
    'DaemonSetSpec.selector': 'Selects the pods this daemon set manages; must match the template\'s labels.',
    'DaemonSetSpec.template': 'The pod template run on each eligible node.',
  },
  policy: {
    'PodDisruptionBudgetSpec.minAvailable': 'Pods (a count or percentage) that must stay available during evictions.',
    'PodDisruptionBudgetSpec.maxUnavailable': 'Pods (a count or percentage) that may be unavailable during evictions.',
    'PodDisruptionBudgetSpec.selector': 'Selects the pods the budget covers.',
  },
  coordination: {
    'LeaseSpec.holderIdentity': 'Who holds the lease.',
    'LeaseSpec.leaseDurationSeconds': 'How long the holder keeps the lease without renewing it.',
    'LeaseSpec.renewTime': 'When the holder last renewed the lease.',
  },
  apiextensions: {
    'CustomResourceDefinitionSpec.group': 'The API group of the new resource, e.g. example.com.',
    'CustomResourceDefinitionSpec.names': 'The plural, singular, kind, short names and categories of the new resource.',
    'CustomResourceDefinitionSpec.scope': 'Whether the resource is Namespaced or Cluster scoped.',
    'CustomResourceDefinitionSpec.versions': 'The served versions of the resource, each with its schema; exactly one is the storage version.',
    'CustomResourceDefinitionVersion.schema': 'The OpenAPI v3 schema objects of this version are validated and pruned against.',
  },
};
