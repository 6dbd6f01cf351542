/**
 * The typed merges, table-driven. "No hot loop" cases give an object as the API server returns
 * it (every default filled in, metadata and status the server owns) and expect the manifest to
 * merge unchanged; drift cases edit what the manifest sets and expect it reverted, while what
 * others added is kept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepFreeze } from '../readonly.ts';
import { mergeObject } from './merge.ts';

type Any = Record<string, any>;

const serverMeta = (extra: Any = {}): Any => ({
  uid: '5c1f0f7e-0000-4000-8000-000000000001',
  resourceVersion: '4711',
  generation: 3,
  creationTimestamp: '2025-01-01T00:00:00Z',
  managedFields: [{ manager: 'cluster-version-operator', operation: 'Update', apiVersion: 'apps/v1', time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: {} }],
  ...extra,
});

const cvOwner = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: 'cv-uid', controller: true };

function deploymentManifest(): Any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'machine-api-operator',
      namespace: 'openshift-machine-api',
      labels: { 'k8s-app': 'machine-api-operator' },
      annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' },
      ownerReferences: [cvOwner],
    },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'machine-api-operator' } },
      strategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels: { 'k8s-app': 'machine-api-operator' }, annotations: { 'target.workload.openshift.io/management': '{"effect": "PreferredDuringScheduling"}' } },
        spec: {
          serviceAccountName: 'machine-api-operator',
          priorityClassName: 'system-node-critical',
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          tolerations: [{ key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'machine-api-operator',
              image: 'quay.io/openshift/machine-api-operator:4.16',
              command: ['/machine-api-operator'],
              args: ['start', '--images-json=/etc/machine-api-operator-config/images/images.json', '--v=2'],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'RELEASE_VERSION', value: '4.16.0' },
              ],
              ports: [{ name: 'metrics', containerPort: 8080 }],
              resources: { requests: { cpu: '10m', memory: '50Mi' } },
              volumeMounts: [{ name: 'images', mountPath: '/etc/machine-api-operator-config/images' }],
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [
            { name: 'images', configMap: { name: 'machine-api-operator-images' } },
            { name: 'cert', secret: { secretName: 'machine-api-operator-webhook-cert' } },
            { name: 'scratch' },
            { name: 'empty-secret', secret: {} },
          ],
        },
      },
    },
  };
}

/** The manifest as a Kubernetes API server returns it after create: every default filled in. */
function deploymentFromServer(): Any {
  const d = deploymentManifest();
  d.metadata = { ...d.metadata, ...serverMeta() };
  d.spec.replicas = 1;
  d.spec.revisionHistoryLimit = 10;
  d.spec.progressDeadlineSeconds = 600;
  d.spec.paused = false;
  d.spec.minReadySeconds = 0;
  d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
  d.spec.template.metadata.creationTimestamp = null;
  const pod = d.spec.template.spec;
  Object.assign(pod, { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', securityContext: {}, serviceAccount: 'machine-api-operator', enableServiceLinks: true, hostNetwork: false });
  const c = pod.containers[0];
  Object.assign(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
  c.env[0].valueFrom.fieldRef.apiVersion = 'v1';
  c.ports[0].protocol = 'TCP';
  c.resources = { requests: { cpu: '10m', memory: '50Mi' } };
  c.volumeMounts[0].readOnly = false;
  c.readinessProbe = { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, initialDelaySeconds: 0 };
  pod.volumes[0].configMap.defaultMode = 420;
  pod.volumes[1].secret.defaultMode = 420;
  pod.volumes[2].emptyDir = {};
  pod.volumes[3].secret.defaultMode = 420;
  d.status = { observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] };
  return d;
}

function daemonSetManifest(): Any {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'machine-config-daemon', namespace: 'openshift-machine-config-operator', labels: { 'k8s-app': 'machine-config-daemon' } },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'machine-config-daemon' } },
      template: {
        metadata: { labels: { 'k8s-app': 'machine-config-daemon' } },
        spec: {
          hostNetwork: true,
          hostPID: true,
          dnsPolicy: 'ClusterFirstWithHostNet',
          containers: [
            {
              name: 'machine-config-daemon',
              image: 'quay.io/openshift/machine-config-operator:4.16',
              command: ['/usr/bin/machine-config-daemon'],
              args: ['start'],
              ports: [{ name: 'health', containerPort: 8798 }],
              securityContext: { privileged: true },
              volumeMounts: [{ name: 'rootfs', mountPath: '/rootfs' }],
              livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 120 },
            },
          ],
          volumes: [{ name: 'rootfs', hostPath: { path: '/' } }],
          tolerations: [{ operator: 'Exists' }],
        },
      },
    },
  };
}

function daemonSetFromServer(): Any {
  const d = daemonSetManifest();
  d.metadata = { ...d.metadata, ...serverMeta() };
  d.spec.revisionHistoryLimit = 10;
  d.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
  const pod = d.spec.template.spec;
  Object.assign(pod, { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', securityContext: {}, serviceAccountName: 'default', serviceAccount: 'default' });
  const c = pod.containers[0];
  Object.assign(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', resources: {} });
  c.ports[0] = { name: 'health', containerPort: 8798, hostPort: 8798, protocol: 'TCP' };
  c.livenessProbe = { ...c.livenessProbe, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
  pod.volumes[0].hostPath.type = '';
  d.status = { desiredNumberScheduled: 3, numberReady: 3 };
  return d;
}

interface Case {
  name: string;
  existing: () => Any;
  required: () => Any;
  changed: boolean;
  check?: (merged: Any, existing: Any) => void;
}

/** Edits a copy of `make()` in place. */
const edit = (make: () => Any, f: (o: Any) => void) => (): Any => {
  const o = make();
  f(o);
  return o;
};

const container = (o: Any): Any => o.spec.template.spec.containers[0];

const noHotLoop: Case[] = [
  { name: 'Deployment: server-defaulted object equals its manifest', existing: deploymentFromServer, required: deploymentManifest, changed: false },
  {
    name: 'Deployment: quantities spelled differently are equal',
    existing: edit(deploymentFromServer, (d) => (container(d).resources.requests = { cpu: '0.01', memory: '52428800' })),
    required: deploymentManifest,
    changed: false,
  },
  {
    name: 'Deployment: explicit RollingUpdate params equal to the defaults',
    existing: deploymentFromServer,
    required: edit(deploymentManifest, (d) => (d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } })),
    changed: false,
  },
  {
    name: 'Deployment: a manifest without a strategy',
    existing: deploymentFromServer,
    required: edit(deploymentManifest, (d) => delete d.spec.strategy),
    changed: false,
  },
  {
    name: 'Deployment: an empty pod securityContext the server added',
    existing: deploymentFromServer,
    required: edit(deploymentManifest, (d) => (d.spec.template.spec.securityContext = {})),
    changed: false,
  },
  {
    name: 'Deployment: manifest spells out zero values the server omits',
    existing: edit(deploymentFromServer, (d) => {
      delete d.spec.paused;
      delete d.spec.minReadySeconds;
      delete container(d).volumeMounts[0].readOnly;
    }),
    required: edit(deploymentManifest, (d) => {
      d.spec.paused = false;
      d.spec.minReadySeconds = 0;
      container(d).volumeMounts[0].readOnly = false;
      container(d).env[1].valueFrom = undefined;
    }),
    changed: false,
  },
  {
    name: 'Deployment: extra labels, annotations, node selector keys and tolerations from others are kept',
    existing: edit(deploymentFromServer, (d) => {
      d.metadata.labels.team = 'x';
      d.metadata.annotations['deployment.kubernetes.io/revision'] = '4';
      d.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'] = '2025-01-02T00:00:00Z';
      d.spec.template.spec.nodeSelector.zone = 'a';
      d.spec.template.spec.tolerations.push({ key: 'extra', operator: 'Exists' });
    }),
    required: deploymentManifest,
    changed: false,
  },
  { name: 'DaemonSet: server-defaulted object (hostNetwork ports, hostPath type, updateStrategy)', existing: daemonSetFromServer, required: daemonSetManifest, changed: false },
];

const drift: Case[] = [
  {
    name: 'Deployment: an edited image is reverted',
    existing: edit(deploymentFromServer, (d) => (container(d).image = 'quay.io/someone/else:latest')),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.equal(container(m).image, 'quay.io/openshift/machine-api-operator:4.16'),
  },
  {
    name: 'Deployment: kubectl scale is reverted to the default of 1',
    existing: edit(deploymentFromServer, (d) => (d.spec.replicas = 3)),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.equal(m.spec.replicas, 1),
  },
  {
    name: 'Deployment: scaling to zero is reverted to the manifest’s replicas',
    existing: edit(deploymentFromServer, (d) => (d.spec.replicas = 0)),
    required: edit(deploymentManifest, (d) => (d.spec.replicas = 2)),
    changed: true,
    check: (m) => assert.equal(m.spec.replicas, 2),
  },
  {
    name: 'Deployment: a container added by hand is removed',
    existing: edit(deploymentFromServer, (d) => d.spec.template.spec.containers.push({ name: 'debug', image: 'busybox' })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(m.spec.template.spec.containers.map((c: Any) => c.name), ['machine-api-operator']),
  },
  {
    name: 'Deployment: a container added to the manifest is added, the existing one kept as merged',
    existing: deploymentFromServer,
    required: edit(deploymentManifest, (d) => d.spec.template.spec.containers.push({ name: 'kube-rbac-proxy', image: 'quay.io/openshift/kube-rbac-proxy:4.16' })),
    changed: true,
    check: (m) => {
      assert.deepEqual(m.spec.template.spec.containers.map((c: Any) => c.name), ['machine-api-operator', 'kube-rbac-proxy']);
      assert.equal(container(m).terminationMessagePath, '/dev/termination-log');
    },
  },
  {
    name: 'Deployment: an edited env is replaced wholesale',
    existing: edit(deploymentFromServer, (d) => {
      container(d).env[1].value = '9.9.9';
      container(d).env.push({ name: 'DEBUG', value: '1' });
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(container(m).env, deploymentManifest().spec.template.spec.containers[0].env),
  },
  {
    name: 'Deployment: edited args and command are reverted',
    existing: edit(deploymentFromServer, (d) => {
      container(d).args = ['start', '--v=9'];
      container(d).command = ['/bin/sh'];
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.deepEqual(container(m).args, deploymentManifest().spec.template.spec.containers[0].args);
      assert.deepEqual(container(m).command, ['/machine-api-operator']);
    },
  },
  {
    name: 'Deployment: a removed label is put back, extra labels and annotations kept',
    existing: edit(deploymentFromServer, (d) => {
      delete d.metadata.labels['k8s-app'];
      d.metadata.labels.extra = 'kept';
      d.metadata.annotations.note = 'kept';
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.deepEqual(m.metadata.labels, { 'k8s-app': 'machine-api-operator', extra: 'kept' });
      assert.equal(m.metadata.annotations.note, 'kept');
    },
  },
  {
    name: 'Deployment: a removed template label is put back',
    existing: edit(deploymentFromServer, (d) => (d.spec.template.metadata.labels = { other: 'x' })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(m.spec.template.metadata.labels, { other: 'x', 'k8s-app': 'machine-api-operator' }),
  },
  {
    name: 'Deployment: a strategy changed by hand is reverted to the defaulted manifest strategy',
    existing: edit(deploymentFromServer, (d) => (d.spec.strategy = { type: 'Recreate' })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(m.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }),
  },
  {
    name: 'Deployment: paused by hand is unpaused',
    existing: edit(deploymentFromServer, (d) => (d.spec.paused = true)),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.ok(!m.spec.paused),
  },
  {
    name: 'Deployment: a volume and a mount added by hand are removed',
    existing: edit(deploymentFromServer, (d) => {
      d.spec.template.spec.volumes.push({ name: 'host', hostPath: { path: '/', type: '' } });
      container(d).volumeMounts.push({ name: 'host', mountPath: '/host' });
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.deepEqual(m.spec.template.spec.volumes.map((v: Any) => v.name), ['images', 'cert', 'scratch', 'empty-secret']);
      assert.deepEqual(container(m).volumeMounts.map((v: Any) => v.mountPath), ['/etc/machine-api-operator-config/images']);
    },
  },
  {
    name: 'Deployment: a volume pointed elsewhere is reverted',
    existing: edit(deploymentFromServer, (d) => (d.spec.template.spec.volumes[0].configMap.name = 'other')),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.equal(m.spec.template.spec.volumes[0].configMap.name, 'machine-api-operator-images'),
  },
  {
    name: 'Deployment: an emptyDir volume swapped for a hostPath is reverted',
    existing: edit(deploymentFromServer, (d) => (d.spec.template.spec.volumes[2] = { name: 'scratch', hostPath: { path: '/tmp', type: '' } })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(m.spec.template.spec.volumes[2], { name: 'scratch' }),
  },
  {
    name: 'Deployment: a loosened security context is tightened again',
    existing: edit(deploymentFromServer, (d) => {
      delete container(d).securityContext.allowPrivilegeEscalation;
      container(d).securityContext.capabilities.drop = [];
      container(d).securityContext.privileged = true;
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.equal(container(m).securityContext.allowPrivilegeEscalation, false);
      assert.deepEqual(container(m).securityContext.capabilities.drop, ['ALL']);
      assert.equal(container(m).securityContext.privileged, undefined);
    },
  },
  {
    name: 'Deployment: a removed readiness probe is restored, an added liveness probe removed',
    existing: edit(deploymentFromServer, (d) => {
      delete container(d).readinessProbe;
      container(d).livenessProbe = { tcpSocket: { port: 8080 } };
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.deepEqual(container(m).readinessProbe, { httpGet: { path: '/healthz', port: 8080 } });
      assert.equal(container(m).livenessProbe, undefined);
    },
  },
  {
    name: 'Deployment: edited resources are reverted',
    existing: edit(deploymentFromServer, (d) => (container(d).resources = { requests: { cpu: '2' }, limits: { memory: '1Gi' } })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.deepEqual(container(m).resources, { requests: { cpu: '10m', memory: '50Mi' } }),
  },
  {
    name: 'Deployment: a changed port is reverted',
    existing: edit(deploymentFromServer, (d) => (container(d).ports[0].containerPort = 9999)),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.equal(container(m).ports[0].containerPort, 8080),
  },
  {
    name: 'Deployment: a removed toleration and node selector key are put back',
    existing: edit(deploymentFromServer, (d) => {
      d.spec.template.spec.tolerations = [];
      d.spec.template.spec.nodeSelector = {};
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.equal(m.spec.template.spec.tolerations.length, 1);
      assert.deepEqual(m.spec.template.spec.nodeSelector, { 'node-role.kubernetes.io/master': '' });
    },
  },
  {
    name: 'Deployment: another service account is reverted, the deprecated copy dropped for the server to refill',
    existing: edit(deploymentFromServer, (d) => {
      d.spec.template.spec.serviceAccountName = 'default';
      d.spec.template.spec.serviceAccount = 'default';
    }),
    required: deploymentManifest,
    changed: true,
    check: (m) => {
      assert.equal(m.spec.template.spec.serviceAccountName, 'machine-api-operator');
      assert.equal(m.spec.template.spec.serviceAccount, undefined);
    },
  },
  {
    name: 'Deployment: an imagePullPolicy the manifest sets is enforced',
    existing: deploymentFromServer,
    required: edit(deploymentManifest, (d) => (container(d).imagePullPolicy = 'Always')),
    changed: true,
    check: (m) => assert.equal(container(m).imagePullPolicy, 'Always'),
  },
  {
    name: 'Deployment: a duplicate toleration is removed',
    existing: edit(deploymentFromServer, (d) => d.spec.template.spec.tolerations.push({ ...d.spec.template.spec.tolerations[0] })),
    required: deploymentManifest,
    changed: true,
    check: (m) => assert.equal(m.spec.template.spec.tolerations.length, 1),
  },
  {
    name: 'DaemonSet: an updateStrategy changed to OnDelete is reverted',
    existing: edit(daemonSetFromServer, (d) => (d.spec.updateStrategy = { type: 'OnDelete' })),
    required: daemonSetManifest,
    changed: true,
    check: (m) => assert.deepEqual(m.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }),
  },
  {
    name: 'DaemonSet: hostNetwork switched off by hand is switched back on',
    existing: edit(daemonSetFromServer, (d) => (d.spec.template.spec.hostNetwork = false)),
    required: daemonSetManifest,
    changed: true,
    check: (m) => assert.equal(m.spec.template.spec.hostNetwork, true),
  },
  {
    name: 'DaemonSet: a dnsPolicy the manifest omits is enforced as the default ClusterFirst',
    existing: edit(daemonSetFromServer, (d) => (d.spec.template.spec.dnsPolicy = 'Default')),
    required: edit(daemonSetManifest, (d) => delete d.spec.template.spec.dnsPolicy),
    changed: true,
    check: (m) => assert.equal(m.spec.template.spec.dnsPolicy, 'ClusterFirst'),
  },
];

const jobManifest = (): Any => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'installer', namespace: 'openshift-kube-apiserver', labels: { app: 'installer' } },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'installer', image: 'quay.io/openshift/installer:4.16' }] } } },
});

const configMap = (): Any => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'images', namespace: 'openshift-machine-api' }, data: { 'images.json': '{"a":1}', mode: 'fast' }, binaryData: { blob: 'AAEC' } });

const secret = (): Any => ({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'creds', namespace: 'openshift-machine-api' }, data: { token: 'c2VjcmV0' }, stringData: { 'config.yaml': 'level: 2\n' } });
const secretFromServer = (): Any => ({ ...secret(), stringData: undefined, data: { token: 'c2VjcmV0', 'config.yaml': Buffer.from('level: 2\n').toString('base64') }, metadata: { ...secret().metadata, ...serverMeta() } });

const service = (): Any => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'machine-api-operator', namespace: 'openshift-machine-api' },
  spec: { selector: { 'k8s-app': 'machine-api-operator' }, ports: [{ name: 'https', port: 8443, targetPort: 'https' }, { name: 'metrics', port: 9090 }] },
});
const serviceFromServer = (): Any => {
  const s = service();
  s.metadata = { ...s.metadata, ...serverMeta() };
  s.spec = { ...s.spec, type: 'ClusterIP', clusterIP: '127.64.0.12', clusterIPs: ['127.64.0.12'], sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' };
  s.spec.ports = [
    { name: 'https', port: 8443, targetPort: 'https', protocol: 'TCP' },
    { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
  ];
  return s;
};

const serviceAccount = (): Any => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'machine-api-operator', namespace: 'openshift-machine-api', labels: { a: 'b' } } });

const clusterRole = (): Any => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'machine-api-operator' }, rules: [{ apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['get', 'list', 'watch'] }] });
const roleBinding = (): Any => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name: 'machine-api-operator' },
  roleRef: { kind: 'ClusterRole', name: 'machine-api-operator' },
  subjects: [{ kind: 'ServiceAccount', name: 'machine-api-operator', namespace: 'openshift-machine-api' }, { kind: 'Group', name: 'system:masters' }],
});

const crd = (): Any => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'machines.machine.openshift.io', annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
  spec: {
    group: 'machine.openshift.io',
    scope: 'Namespaced',
    names: { plural: 'machines', kind: 'Machine' },
    versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } }],
  },
});
const crdFromServer = (): Any => {
  const c = crd();
  c.metadata = { ...c.metadata, ...serverMeta(), finalizers: ['customresourcecleanup.apiextensions.k8s.io'] };
  c.spec.names = { ...c.spec.names, singular: 'machine', listKind: 'MachineList' };
  c.spec.conversion = { strategy: 'None' };
  c.status = { conditions: [{ type: 'Established', status: 'True' }], acceptedNames: { plural: 'machines', kind: 'Machine' }, storedVersions: ['v1beta1'] };
  return c;
};

const clusterOperator = (): Any => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterOperator',
  metadata: { name: 'machine-api', annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
  spec: {},
  status: { versions: [{ name: 'operator', version: '4.16.0' }] },
});

const clusterVersionLike = (): Any => ({ apiVersion: 'example.openshift.io/v1', kind: 'Widget', metadata: { name: 'cluster', labels: { a: '1' } }, spec: { size: 3, nested: { keep: true } } });

const otherKinds: Case[] = [
  { name: 'Job: server-defaulted object', existing: edit(jobManifest, (j) => Object.assign(j.metadata, serverMeta(), { labels: { app: 'installer', 'controller-uid': 'x' } })), required: jobManifest, changed: false },
  {
    name: 'Job: a different template is not an update (a Job’s template is immutable)',
    existing: edit(jobManifest, (j) => (j.spec.template.spec.containers[0].image = 'other')),
    required: jobManifest,
    changed: false,
  },
  { name: 'Job: a removed label is put back', existing: edit(jobManifest, (j) => (j.metadata.labels = {})), required: jobManifest, changed: true, check: (m) => assert.equal(m.metadata.labels.app, 'installer') },
  { name: 'ConfigMap: unchanged data', existing: edit(configMap, (c) => Object.assign(c.metadata, serverMeta())), required: configMap, changed: false },
  {
    name: 'ConfigMap: an edited key is reverted, a key added by someone else kept',
    existing: edit(configMap, (c) => Object.assign(c.data, { mode: 'slow', extra: 'kept' })),
    required: configMap,
    changed: true,
    check: (m) => assert.deepEqual(m.data, { 'images.json': '{"a":1}', mode: 'fast', extra: 'kept' }),
  },
  { name: 'ConfigMap: a removed binaryData key is put back', existing: edit(configMap, (c) => delete c.binaryData), required: configMap, changed: true, check: (m) => assert.equal(m.binaryData.blob, 'AAEC') },
  { name: 'Secret: stringData already stored base64 in data', existing: secretFromServer, required: secret, changed: false },
  {
    name: 'Secret: an edited stringData key is written back into data',
    existing: edit(secretFromServer, (s) => (s.data['config.yaml'] = Buffer.from('level: 9\n').toString('base64'))),
    required: secret,
    changed: true,
    check: (m) => assert.equal(Buffer.from(m.data['config.yaml'], 'base64').toString(), 'level: 2\n'),
  },
  {
    name: 'ServiceAccount: token and pull secrets are left alone',
    existing: edit(serviceAccount, (s) => Object.assign(s, { secrets: [{ name: 'mao-token-x' }], imagePullSecrets: [{ name: 'mao-dockercfg-x' }] })),
    required: serviceAccount,
    changed: false,
  },
  { name: 'Namespace: labels merged', existing: () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { x: 'y' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }), required: () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { 'openshift.io/run-level': '0' } } }), changed: true, check: (m) => assert.deepEqual(m.metadata.labels, { x: 'y', 'openshift.io/run-level': '0' }) },
  { name: 'Service: server-defaulted (clusterIP, protocol, targetPort) equals the manifest', existing: serviceFromServer, required: service, changed: false },
  {
    name: 'Service: an allocated nodePort is not drift',
    existing: edit(serviceFromServer, (s) => {
      s.spec.type = 'NodePort';
      s.spec.ports[1].nodePort = 31000;
    }),
    required: edit(service, (s) => (s.spec.type = 'NodePort')),
    changed: false,
  },
  {
    name: 'Service: an edited port and type are reverted, clusterIP untouched',
    existing: edit(serviceFromServer, (s) => {
      s.spec.ports[0].port = 1;
      s.spec.type = 'NodePort';
    }),
    required: service,
    changed: true,
    check: (m) => {
      assert.equal(m.spec.ports[0].port, 8443);
      assert.equal(m.spec.type, 'ClusterIP');
      assert.equal(m.spec.clusterIP, '127.64.0.12');
      assert.deepEqual(m.spec.clusterIPs, ['127.64.0.12']);
    },
  },
  { name: 'Service: a selector edited by hand is reverted', existing: edit(serviceFromServer, (s) => (s.spec.selector = { other: 'x' })), required: service, changed: true, check: (m) => assert.deepEqual(m.spec.selector, { 'k8s-app': 'machine-api-operator' }) },
  { name: 'ClusterRole: unchanged rules', existing: edit(clusterRole, (r) => Object.assign(r.metadata, serverMeta())), required: clusterRole, changed: false },
  { name: 'ClusterRole: an added rule is removed', existing: edit(clusterRole, (r) => r.rules.push({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] })), required: clusterRole, changed: true, check: (m) => assert.equal(m.rules.length, 1) },
  {
    name: 'ClusterRole: an aggregated role’s rules belong to the aggregation controller',
    existing: edit(clusterRole, (r) => (r.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] })),
    required: edit(clusterRole, (r) => {
      r.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] };
      r.rules = [];
    }),
    changed: false,
  },
  {
    name: 'ClusterRoleBinding: defaulted roleRef and subject apiGroups are not drift',
    existing: edit(roleBinding, (b) => {
      b.roleRef.apiGroup = 'rbac.authorization.k8s.io';
      b.subjects[1].apiGroup = 'rbac.authorization.k8s.io';
    }),
    required: roleBinding,
    changed: false,
  },
  { name: 'ClusterRoleBinding: an added subject is removed', existing: edit(roleBinding, (b) => b.subjects.push({ kind: 'User', name: 'mallory' })), required: roleBinding, changed: true, check: (m) => assert.equal(m.subjects.length, 2) },
  { name: 'CRD: server defaults (singular, listKind, conversion None) are not drift', existing: crdFromServer, required: crd, changed: false },
  {
    name: 'CRD: an edited version is reverted; status and finalizers kept',
    existing: edit(crdFromServer, (c) => (c.spec.versions[0].served = false)),
    required: crd,
    changed: true,
    check: (m) => {
      assert.equal(m.spec.versions[0].served, true);
      assert.equal(m.status.conditions[0].type, 'Established');
      assert.deepEqual(m.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    },
  },
  {
    name: 'ClusterOperator: the reported status is never compared or written',
    existing: edit(clusterOperator, (c) => (c.status = { versions: [{ name: 'operator', version: '4.15.0' }], conditions: [{ type: 'Available', status: 'False' }] })),
    required: clusterOperator,
    changed: false,
  },
  {
    name: 'ClusterOperator: a removed annotation is put back, status untouched',
    existing: edit(clusterOperator, (c) => {
      c.metadata.annotations = {};
      c.status = { versions: [] };
    }),
    required: clusterOperator,
    changed: true,
    check: (m) => {
      assert.equal(m.metadata.annotations['include.release.openshift.io/self-managed-high-availability'], 'true');
      assert.deepEqual(m.status, { versions: [] });
    },
  },
  {
    name: 'unstructured: schema defaults and extra fields inside spec are not drift',
    existing: edit(clusterVersionLike, (w) => {
      w.spec.defaulted = 'by the server';
      w.spec.nested.other = 1;
      w.status = { ready: true };
      w.metadata.labels.extra = 'kept';
    }),
    required: clusterVersionLike,
    changed: false,
  },
  {
    name: 'unstructured: an edited field replaces the top-level key, status and extra labels kept',
    existing: edit(clusterVersionLike, (w) => {
      w.spec.size = 5;
      w.status = { ready: true };
      w.metadata.labels = { extra: 'kept' };
    }),
    required: clusterVersionLike,
    changed: true,
    check: (m) => {
      assert.deepEqual(m.spec, { size: 3, nested: { keep: true } });
      assert.deepEqual(m.status, { ready: true });
      assert.deepEqual(m.metadata.labels, { extra: 'kept', a: '1' });
    },
  },
];

const serverOwned = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields'];

describe('mergeObject', () => {
  for (const [group, cases] of [
    ['no hot loop', noHotLoop],
    ['drift is reverted', drift],
    ['other kinds', otherKinds],
  ] as const) {
    describe(group, () => {
      for (const c of cases) {
        it(c.name, () => {
          const existing = c.existing();
          const before = structuredClone(existing);
          // Frozen, as informer caches and a loaded payload hand them out: the merge must copy, never mutate.
          const { changed, merged } = mergeObject(deepFreeze(existing), deepFreeze(c.required())) as { changed: boolean; merged: Any };
          assert.equal(changed, c.changed);
          assert.deepEqual(existing, before, 'the existing object is not modified');
          if (!c.changed) assert.deepEqual(merged, existing, 'an unchanged merge returns the object as it was');
          for (const key of serverOwned) assert.deepEqual(merged.metadata?.[key], existing.metadata?.[key], `metadata.${key} is the server's`);
          assert.deepEqual(merged.status, existing.status, 'status is never written');
          c.check?.(merged, existing);
          // Once merged, the result is what the manifest asks for: merging again changes nothing.
          assert.equal(mergeObject(merged, c.required()).changed, false, 'the merge is idempotent');
        });
      }
    });
  }

  it('merges owner references by uid, keeping others', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'other-uid' };
    const existing = edit(deploymentFromServer, (d) => (d.metadata.ownerReferences = [other, { ...cvOwner, controller: false }]))();
    const { changed, merged } = mergeObject(existing, deploymentManifest()) as { changed: boolean; merged: Any };
    assert.equal(changed, true);
    assert.deepEqual(merged.metadata.ownerReferences, [other, cvOwner]);
  });

  it('accepts frozen (cached) objects and returns a mutable copy', () => {
    const existing = Object.freeze(deploymentFromServer());
    const { merged } = mergeObject(existing, edit(deploymentManifest, (d) => (d.spec.replicas = 2))());
    assert.equal((merged as Any).spec.replicas, 2);
  });
});
