/**
 * Message tables for the core/v1 objects that kubectl's create generators send: Namespace,
 * ConfigMap, Secret, ServiceAccount and Service, with the references they share. Pods and their
 * parts are in the core-v1-*.ts tables. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const coreV1: MessageTable = {
  Namespace: {
    1: 'metadata: ObjectMeta',
    2: 'spec: NamespaceSpec',
    3: 'status: NamespaceStatus',
  },
  NamespaceSpec: {
    1: 'finalizers: []string',
  },
  NamespaceStatus: {
    1: 'phase: string',
    2: 'conditions: []NamespaceCondition',
  },
  NamespaceCondition: {
    1: 'type: string!',
    2: 'status: string!',
    4: 'lastTransitionTime: Time',
    5: 'reason: string',
    6: 'message: string',
  },
  ConfigMap: {
    1: 'metadata: ObjectMeta',
    2: 'data: map<string>',
    3: 'binaryData: map<bytes>',
    4: 'immutable: bool!',
  },
  Secret: {
    1: 'metadata: ObjectMeta',
    2: 'data: map<bytes>',
    3: 'type: string',
    4: 'stringData: map<string>',
    5: 'immutable: bool!',
  },
  ServiceAccount: {
    1: 'metadata: ObjectMeta',
    2: 'secrets: []ObjectReference',
    3: 'imagePullSecrets: []LocalObjectReference',
    4: 'automountServiceAccountToken: bool!',
  },
  ObjectReference: {
    1: 'kind: string',
    2: 'namespace: string',
    3: 'name: string',
    4: 'uid: string',
    5: 'apiVersion: string',
    6: 'resourceVersion: string',
    7: 'fieldPath: string',
  },
  LocalObjectReference: {
    1: 'name: string',
  },
  Service: {
    1: 'metadata: ObjectMeta',
    2: 'spec: ServiceSpec',
    3: 'status: ServiceStatus',
  },
  ServiceSpec: {
    1: 'ports: []ServicePort',
    2: 'selector: map<string>',
    3: 'clusterIP: string',
    4: 'type: string',
    5: 'externalIPs: []string',
    7: 'sessionAffinity: string',
    8: 'loadBalancerIP: string',
    9: 'loadBalancerSourceRanges: []string',
    10: 'externalName: string',
    11: 'externalTrafficPolicy: string',
    12: 'healthCheckNodePort: int32',
    13: 'publishNotReadyAddresses: bool',
    14: 'sessionAffinityConfig: SessionAffinityConfig',
    17: 'ipFamilyPolicy: string!',
    18: 'clusterIPs: []string',
    19: 'ipFamilies: []string',
    20: 'allocateLoadBalancerNodePorts: bool!',
    21: 'loadBalancerClass: string!',
    22: 'internalTrafficPolicy: string!',
    23: 'trafficDistribution: string!',
  },
  ServicePort: {
    1: 'name: string',
    2: 'protocol: string',
    3: 'port: int32!',
    4: 'targetPort: IntOrString',
    5: 'nodePort: int32',
    6: 'appProtocol: string!',
  },
  SessionAffinityConfig: {
    1: 'clientIP: ClientIPConfig',
  },
  ClientIPConfig: {
    1: 'timeoutSeconds: int32!',
  },
  ServiceStatus: {
    1: 'loadBalancer: LoadBalancerStatus',
    2: 'conditions: []Condition',
  },
  LoadBalancerStatus: {
    1: 'ingress: []LoadBalancerIngress',
  },
  LoadBalancerIngress: {
    1: 'ip: string',
    2: 'hostname: string',
    3: 'ipMode: string!',
    4: 'ports: []PortStatus',
  },
  PortStatus: {
    1: 'port: int32!',
    2: 'protocol: string!',
    3: 'error: string!',
  },
};
