/**
 * The names the Machine API's components coordinate through, as OpenShift's Machine API
 * Operator spells them: its namespace, the Machine finalizer, the labels that tie Machines to
 * their cluster, role and MachineSet (and that the printer columns read), the annotations users
 * and controllers set on Machines, Nodes and MachineHealthChecks, and the phase and condition
 * words of a Machine's status.
 */

export const machineAPINamespace = 'openshift-machine-api';

/** Held by the machine controller until the instance is gone and the Node deleted. */
export const machineFinalizer = 'machine.machine.openshift.io';

export const machineLabels = {
  /** Required on every Machine: the cluster (infrastructure name) it belongs to. */
  cluster: 'machine.openshift.io/cluster-api-cluster',
  role: 'machine.openshift.io/cluster-api-machine-role',
  type: 'machine.openshift.io/cluster-api-machine-type',
  machineSet: 'machine.openshift.io/cluster-api-machineset',
  interruptible: 'machine.openshift.io/interruptible-instance',
  /** Set by the provider from the instance; the TYPE, REGION and ZONE columns of `kubectl get machines`. */
  instanceType: 'machine.openshift.io/instance-type',
  region: 'machine.openshift.io/region',
  zone: 'machine.openshift.io/zone',
} as const;

export const machineAnnotations = {
  /** Any non-empty value puts the Machine first in line when its MachineSet scales down. */
  deleteMachine: 'machine.openshift.io/delete-machine',
  legacyDeleteMachine: 'machine.openshift.io/cluster-api-delete-machine',
  excludeNodeDraining: 'machine.openshift.io/exclude-node-draining',
  /** The instance's state as the provider last saw it; the STATE column (`-o wide`). */
  instanceState: 'machine.openshift.io/instance-state',
  /** On a Node: `<namespace>/<name>` of its Machine, written by the nodelink controller. */
  nodeMachine: 'machine.openshift.io/machine',
  skipRemediation: 'machine.openshift.io/skip-remediation',
  /** On a MachineHealthCheck, any value: the health check does nothing. */
  paused: 'cluster.x-k8s.io/paused',
  externalRemediation: 'host.metal3.io/external-remediation',
  remediationStrategy: 'machine.openshift.io/remediation-strategy',
} as const;

export const machinePhases = {
  provisioning: 'Provisioning',
  provisioned: 'Provisioned',
  running: 'Running',
  failed: 'Failed',
  deleting: 'Deleting',
} as const;
export type MachinePhase = (typeof machinePhases)[keyof typeof machinePhases];

export const machineConditionTypes = {
  instanceExists: 'InstanceExists',
  drainable: 'Drainable',
  terminable: 'Terminable',
  drained: 'Drained',
} as const;
