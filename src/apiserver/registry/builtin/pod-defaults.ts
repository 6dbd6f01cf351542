/**
 * The defaults kube-apiserver gives a PodSpec, wherever one is embedded (a Pod, and the pod
 * template of a Deployment, ReplicaSet, DaemonSet, Job or CronJob): kube 1.32's SetDefaults_PodSpec,
 * _Container, _Probe, _HTTPGetAction, _ObjectFieldSelector, _Volume and the volume sources' own,
 * plus what v1 serialization always writes (`resources: {}`, a resourceFieldRef's `divisor: "0"`,
 * `serviceAccount` mirroring `serviceAccountName`). What only a Pod gets, SetDefaults_Pod and the
 * create-time admission plugins (ServiceAccount, Priority, DefaultTolerationSeconds), is in
 * `defaultPod` and `admitPod`.
 */
import type { KubeObject } from '../resource.ts';

const isObject = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function each(list: unknown, fn: (item: KubeObject) => void): void {
  if (Array.isArray(list)) for (const item of list) if (isObject(item)) fn(item);
}

/** Go's `if x == "" { x = v }` (and `== 0`): absent and zero values both take the default. */
function orDefault(obj: KubeObject, field: string, value: unknown): void {
  if (obj[field] === undefined || obj[field] === null || obj[field] === '' || obj[field] === 0) obj[field] = value;
}

/** ParseImageName's tag: `latest` when the image names neither a tag nor a digest. */
function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const afterSlash = image.slice(image.lastIndexOf('/') + 1);
  const tag = afterSlash.includes(':') ? afterSlash.slice(afterSlash.indexOf(':') + 1) : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultFieldRef(ref: unknown): void {
  if (isObject(ref)) orDefault(ref, 'apiVersion', 'v1');
}

function defaultResourceFieldRef(ref: unknown): void {
  if (isObject(ref)) ref.divisor ??= '0';
}

function defaultHttpGet(action: unknown): void {
  if (!isObject(action)) return;
  orDefault(action, 'path', '/');
  orDefault(action, 'scheme', 'HTTP');
}

function defaultProbe(probe: unknown): void {
  if (!isObject(probe)) return;
  orDefault(probe, 'timeoutSeconds', 1);
  orDefault(probe, 'periodSeconds', 10);
  orDefault(probe, 'successThreshold', 1);
  orDefault(probe, 'failureThreshold', 3);
  defaultHttpGet(probe.httpGet);
  if (isObject(probe.grpc)) probe.grpc.service ??= '';
}

function defaultContainer(c: KubeObject): void {
  orDefault(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  orDefault(c, 'terminationMessagePath', '/dev/termination-log');
  orDefault(c, 'terminationMessagePolicy', 'File');
  c.resources ??= {};
  each(c.ports, (p) => orDefault(p, 'protocol', 'TCP'));
  each(c.env, (e) => {
    if (!isObject(e.valueFrom)) return;
    defaultFieldRef(e.valueFrom.fieldRef);
    defaultResourceFieldRef(e.valueFrom.resourceFieldRef);
  });
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) defaultProbe(probe);
  if (isObject(c.lifecycle)) for (const hook of [c.lifecycle.postStart, c.lifecycle.preStop]) if (isObject(hook)) defaultHttpGet(hook.httpGet);
}

/** Every field of a VolumeSource: a volume with none of them is an emptyDir (SetDefaults_Volume). */
const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

/** 0644, the mode of files projected from Secrets, ConfigMaps and the downward API. */
const defaultMode = 0o644;

function defaultDownwardApiItems(items: unknown): void {
  each(items, (item) => {
    defaultFieldRef(item.fieldRef);
    defaultResourceFieldRef(item.resourceFieldRef);
  });
}

function defaultVolume(v: KubeObject): void {
  if (!volumeSources.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  if (isObject(v.hostPath)) v.hostPath.type ??= '';
  for (const s of ['secret', 'configMap'] as const) if (isObject(v[s])) v[s].defaultMode ??= defaultMode;
  if (isObject(v.downwardAPI)) {
    v.downwardAPI.defaultMode ??= defaultMode;
    defaultDownwardApiItems(v.downwardAPI.items);
  }
  if (isObject(v.projected)) {
    v.projected.defaultMode ??= defaultMode;
    each(v.projected.sources, (source) => {
      if (isObject(source.downwardAPI)) defaultDownwardApiItems(source.downwardAPI.items);
      if (isObject(source.serviceAccountToken)) source.serviceAccountToken.expirationSeconds ??= 3600;
    });
  }
  if (isObject(v.iscsi)) orDefault(v.iscsi, 'iscsiInterface', 'default');
  if (isObject(v.rbd)) {
    orDefault(v.rbd, 'pool', 'rbd');
    orDefault(v.rbd, 'user', 'admin');
    orDefault(v.rbd, 'keyring', '/etc/ceph/keyring');
  }
  if (isObject(v.azureDisk)) {
    v.azureDisk.cachingMode ??= 'ReadWrite';
    v.azureDisk.kind ??= 'Shared';
    v.azureDisk.fsType ??= 'ext4';
    v.azureDisk.readOnly ??= false;
  }
  if (isObject(v.scaleIO)) {
    orDefault(v.scaleIO, 'storageMode', 'ThinProvisioned');
    orDefault(v.scaleIO, 'fsType', 'xfs');
  }
  const claim = v.ephemeral?.volumeClaimTemplate?.spec;
  if (isObject(claim)) claim.volumeMode ??= 'Filesystem';
}

/** The defaults of a PodSpec, wherever it is embedded (kube's SetObjectDefaults_PodTemplate). */
export function defaultPodSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  orDefault(spec, 'dnsPolicy', 'ClusterFirst');
  orDefault(spec, 'restartPolicy', 'Always');
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  orDefault(spec, 'schedulerName', 'default-scheduler');
  // v1 conversion: the deprecated `serviceAccount` and `serviceAccountName` are one field.
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  each(spec.volumes, defaultVolume);
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) each(list, defaultContainer);
}

/** A pod template (`spec.template` of a workload, a Job, a CronJob's `jobTemplate.spec.template`). */
export function defaultPodTemplate(template: unknown): void {
  if (isObject(template)) defaultPodSpec(template.spec);
}

/**
 * The defaults of a Pod: its PodSpec's, then SetDefaults_Pod, which only a Pod gets: requests
 * default to limits, service links are on, and a host-network pod's ports are host ports.
 */
export function defaultPod(spec: unknown): void {
  if (!isObject(spec)) return;
  defaultPodSpec(spec);
  for (const list of [spec.containers, spec.initContainers]) {
    each(list, (c) => {
      if (!isObject(c.resources) || !isObject(c.resources.limits)) return;
      const merged: KubeObject = { ...c.resources.limits, ...(isObject(c.resources.requests) ? c.resources.requests : {}) };
      // Sorted, as kube writes a ResourceList (a Go map).
      c.resources.requests = Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
    });
  }
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork === true) for (const list of [spec.containers, spec.initContainers]) each(list, (c) => each(c.ports, (p) => orDefault(p, 'hostPort', p.containerPort)));
}

/** kube's built-in PriorityClasses; no others are served, so a pod naming another gets no priority here. */
const builtinPriorityClasses: Readonly<Record<string, number>> = { 'system-node-critical': 2000001000, 'system-cluster-critical': 2000000000 };

/** The DefaultTolerationSeconds admission plugin: tolerate not-ready/unreachable for 300 s. */
export function addDefaultTolerations(spec: KubeObject): void {
  if (!isObject(spec)) return;
  const tolerations: KubeObject[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const has = tolerations.some((t) => t && (t.key === key || (t.operator === 'Exists' && !t.key)) && (!t.effect || t.effect === 'NoExecute'));
    if (!has) tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  spec.tolerations = tolerations;
}

/**
 * What the admission plugins kube-apiserver runs on a pod's create add to its spec: the
 * `default` service account (ServiceAccount), the priority of its class, 0 without one
 * (Priority), and the not-ready/unreachable tolerations (DefaultTolerationSeconds).
 */
export function admitPod(spec: unknown): void {
  if (!isObject(spec)) return;
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount = 'default';
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  const priority = className ? builtinPriorityClasses[className] : 0;
  if (priority !== undefined) {
    spec.priority ??= priority;
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
  }
  addDefaultTolerations(spec);
}

/** The fields a pod's create-time admission set, carried over to an update that leaves them out. */
export function keepAdmittedFields(spec: unknown, old: unknown): void {
  if (!isObject(spec) || !isObject(old)) return;
  for (const f of ['serviceAccountName', 'serviceAccount', 'priority', 'preemptionPolicy']) if (spec[f] === undefined && old[f] !== undefined) spec[f] = old[f];
}
