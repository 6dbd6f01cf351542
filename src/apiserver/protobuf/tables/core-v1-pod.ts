/**
 * Message tables for core/v1 Pod, PodSpec, a partial PodStatus and PodTemplateSpec (the
 * template inside Deployments). Containers, volumes and scheduling are in their own tables.
 * Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const coreV1Pod: MessageTable = {
  Pod: {
    1: 'metadata: ObjectMeta',
    2: 'spec: PodSpec',
    3: 'status: PodStatus',
  },
  PodSpec: {
    1: 'volumes: []Volume',
    2: 'containers: []Container',
    3: 'restartPolicy: string',
    4: 'terminationGracePeriodSeconds: int64!',
    5: 'activeDeadlineSeconds: int64!',
    6: 'dnsPolicy: string',
    7: 'nodeSelector: map<string>',
    8: 'serviceAccountName: string',
    9: 'serviceAccount: string',
    10: 'nodeName: string',
    11: 'hostNetwork: bool',
    12: 'hostPID: bool',
    13: 'hostIPC: bool',
    14: 'securityContext: PodSecurityContext',
    15: 'imagePullSecrets: []LocalObjectReference',
    16: 'hostname: string',
    17: 'subdomain: string',
    18: 'affinity: Affinity',
    19: 'schedulerName: string',
    20: 'initContainers: []Container',
    21: 'automountServiceAccountToken: bool!',
    22: 'tolerations: []Toleration',
    23: 'hostAliases: []HostAlias',
    24: 'priorityClassName: string',
    25: 'priority: int32!',
    26: 'dnsConfig: PodDNSConfig',
    27: 'shareProcessNamespace: bool!',
    28: 'readinessGates: []PodReadinessGate',
    29: 'runtimeClassName: string!',
    30: 'enableServiceLinks: bool!',
    31: 'preemptionPolicy: string!',
    32: 'overhead: map<Quantity>',
    33: 'topologySpreadConstraints: []TopologySpreadConstraint',
    34: 'ephemeralContainers: unsupported',
    35: 'setHostnameAsFQDN: bool!',
    36: 'os: PodOS',
    37: 'hostUsers: bool!',
    38: 'schedulingGates: []PodSchedulingGate',
    39: 'resourceClaims: unsupported',
    40: 'resources: ResourceRequirements',
  },
  PodStatus: {
    1: 'phase: string',
    2: 'conditions: unsupported',
    3: 'message: string',
    4: 'reason: string',
    5: 'hostIP: string',
    6: 'podIP: string',
    7: 'startTime: Time',
    8: 'containerStatuses: unsupported',
    9: 'qosClass: string',
    10: 'initContainerStatuses: unsupported',
    11: 'nominatedNodeName: string',
    12: 'podIPs: []PodIP',
    13: 'ephemeralContainerStatuses: unsupported',
    14: 'resize: string',
    15: 'resourceClaimStatuses: unsupported',
    16: 'hostIPs: []HostIP',
  },
  PodIP: {
    1: 'ip: string!',
  },
  HostIP: {
    1: 'ip: string!',
  },
  PodTemplateSpec: {
    1: 'metadata: ObjectMeta',
    2: 'spec: PodSpec',
  },
  PodOS: {
    1: 'name: string!',
  },
  PodDNSConfig: {
    1: 'nameservers: []string',
    2: 'searches: []string',
    3: 'options: []PodDNSConfigOption',
  },
  PodDNSConfigOption: {
    1: 'name: string',
    2: 'value: string!',
  },
  PodReadinessGate: {
    1: 'conditionType: string!',
  },
  PodSchedulingGate: {
    1: 'name: string!',
  },
  HostAlias: {
    1: 'ip: string!',
    2: 'hostnames: []string',
  },
};
