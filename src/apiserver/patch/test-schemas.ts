/**
 * Small hand-written schemas for the patch tests: a Pod and a Deployment shaped like the
 * built-ins (merge keys, list types, an atomic map), referring to each other with `$ref` and
 * `allOf: [{$ref}]` as served OpenAPI does, so the engines are exercised through `resolve()`.
 * The Deployment leaves `metadata` opaque, as CRDs do.
 */
import type { JSONSchemaProps, SchemaResolver } from '../../api/schema.ts';

const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer' };
const stringMap: JSONSchemaProps = { type: 'object', additionalProperties: str };
const ref = (name: string): JSONSchemaProps => ({ $ref: `#/components/schemas/${name}` });

function mapList(item: string, key: string, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return {
    type: 'array',
    items: ref(item),
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': key,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key],
    ...extra,
  };
}

export const components: Record<string, JSONSchemaProps> = {
  ObjectMeta: {
    type: 'object',
    properties: {
      name: str,
      namespace: str,
      uid: str,
      resourceVersion: str,
      generation: int,
      creationTimestamp: str,
      labels: stringMap,
      annotations: stringMap,
      finalizers: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' },
      ownerReferences: mapList('OwnerReference', 'uid'),
      managedFields: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'atomic' },
    },
  },
  OwnerReference: { type: 'object', properties: { apiVersion: str, kind: str, name: str, uid: str, controller: { type: 'boolean' } } },
  Pod: {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: ref('ObjectMeta'),
      spec: ref('PodSpec'),
      status: { allOf: [ref('PodStatus')], description: 'wrapped reference, as served OpenAPI does' },
    },
  },
  PodSpec: {
    type: 'object',
    properties: {
      containers: mapList('Container', 'name'),
      initContainers: mapList('Container', 'name'),
      volumes: mapList('Volume', 'name', { 'x-kubernetes-patch-strategy': 'merge,retainKeys' }),
      tolerations: { type: 'array', items: ref('Toleration'), 'x-kubernetes-list-type': 'atomic' },
      nodeSelector: { ...stringMap, 'x-kubernetes-map-type': 'atomic' },
      nodeName: str,
      restartPolicy: str,
      hostNetwork: { type: 'boolean' },
    },
  },
  Container: {
    type: 'object',
    properties: {
      name: str,
      image: str,
      command: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
      args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
      env: mapList('EnvVar', 'name'),
      ports: mapList('ContainerPort', 'containerPort', { 'x-kubernetes-list-map-keys': ['containerPort', 'protocol'] }),
      volumeMounts: mapList('VolumeMount', 'mountPath'),
      resources: { type: 'object', properties: { limits: stringMap, requests: stringMap } },
    },
  },
  EnvVar: { type: 'object', properties: { name: str, value: str, valueFrom: { type: 'object', properties: { fieldRef: { type: 'object', properties: { fieldPath: str } } } } } },
  ContainerPort: { type: 'object', properties: { containerPort: int, protocol: { type: 'string', default: 'TCP' }, name: str } },
  VolumeMount: { type: 'object', properties: { name: str, mountPath: str, readOnly: { type: 'boolean' } } },
  Volume: {
    type: 'object',
    properties: {
      name: str,
      emptyDir: { type: 'object', properties: { medium: str } },
      hostPath: { type: 'object', properties: { path: str, type: str } },
      configMap: { type: 'object', properties: { name: str } },
    },
  },
  Toleration: { type: 'object', properties: { key: str, operator: str, value: str, effect: str } },
  PodStatus: {
    type: 'object',
    properties: {
      phase: str,
      podIP: str,
      conditions: mapList('PodCondition', 'type'),
    },
  },
  PodCondition: { type: 'object', properties: { type: str, status: str, reason: str } },
  Deployment: {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          replicas: int,
          paused: { type: 'boolean' },
          selector: { type: 'object', properties: { matchLabels: stringMap }, 'x-kubernetes-map-type': 'atomic' },
          template: { type: 'object', properties: { metadata: ref('ObjectMeta'), spec: ref('PodSpec') } },
          strategy: {
            type: 'object',
            properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: str, maxUnavailable: str } } },
          },
        },
      },
      status: { type: 'object', properties: { replicas: int, readyReplicas: int } },
    },
  },
};

export const resolve: SchemaResolver = (schema) => {
  if (!schema.$ref) return schema;
  const target = components[schema.$ref.replace('#/components/schemas/', '')];
  if (!target) throw new Error(`unknown reference ${schema.$ref}`);
  return target;
};

export const podSchema: JSONSchemaProps = ref('Pod');
export const deploymentSchema: JSONSchemaProps = ref('Deployment');
