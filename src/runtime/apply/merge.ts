/**
 * The CVO's typed merge: given the object in the cluster and the manifest, produce the object
 * to write and whether anything the manifest sets differs. Only what the manifest says is
 * enforced, so drift (an edited image, `kubectl scale`, a container added by hand) is reverted
 * while server defaults and other writers' additions (an extra label, an allocated nodePort,
 * a toleration an operator appended) are left alone. `changed: false` means "do not write":
 * an object that was not edited must never be written, or every pass would bump its
 * resourceVersion and wake every watcher.
 *
 * The rules per kind follow openshift/cluster-version-operator lib/resourcemerge and
 * pkg/cvo/internal/generic.go; where Shipyard differs, the function says why.
 */
import { asObj, child, covers, isObj, objList, put, same, type Obj } from './json.ts';
import { ensureObjectMeta, mergeMap, setExact, setIfSet, setWithDefault, Tracker } from './meta.ts';
import { ensureByKey, ensurePodTemplate } from './pod-spec.ts';

export interface MergeResult<T> {
  readonly changed: boolean;
  /** A copy of `existing` with the manifest's fields applied (equal to it when unchanged). */
  readonly merged: T;
}

type Merge = (t: Tracker, existing: Obj, required: Obj) => void;

/** The API group of an apiVersion: `apps/v1` → `apps`, `v1` → '' (core). */
export function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

const RBAC = 'rbac.authorization.k8s.io';

/** Merges by group and kind; the version does not change what the fields mean. */
const merges: Record<string, Merge> = {
  'apps/Deployment': mergeDeployment,
  'apps/DaemonSet': mergeDaemonSet,
  'batch/Job': ensureObjectMeta,
  '/ConfigMap': mergeConfigMap,
  '/Secret': mergeSecret,
  '/Namespace': ensureObjectMeta,
  '/ServiceAccount': mergeServiceAccount,
  '/Service': mergeService,
  [`${RBAC}/ClusterRole`]: mergeClusterRole,
  [`${RBAC}/Role`]: mergeRole,
  [`${RBAC}/ClusterRoleBinding`]: mergeRoleBinding,
  [`${RBAC}/RoleBinding`]: mergeRoleBinding,
  'apiextensions.k8s.io/CustomResourceDefinition': mergeCustomResourceDefinition,
  // The operator owns a ClusterOperator's status; the CVO only keeps its metadata.
  'config.openshift.io/ClusterOperator': ensureObjectMeta,
};

/**
 * Applies the manifest `required` onto a copy of `existing` (the object as the API server
 * returned it) with the rules of the manifest's kind.
 */
export function mergeObject<T extends object>(existing: T, required: object): MergeResult<T> {
  const merged = structuredClone(existing) as T;
  const want = required as Obj;
  const merge = merges[`${groupOf(want.apiVersion)}/${String(want.kind)}`] ?? mergeUnstructured;
  const t = new Tracker();
  merge(t, merged as Obj, want);
  return { changed: t.changed, merged };
}

function specs(existing: Obj, required: Obj): [Obj, Obj] {
  return [child(existing, 'spec'), asObj(required.spec) ?? {}];
}

/** A strategy as the server defaults it, so `type: RollingUpdate` alone equals 25%/25%. */
function defaultDeploymentStrategy(strategy: unknown): Obj {
  const d = structuredClone(asObj(strategy) ?? {});
  if (d.type === undefined || d.type === '' || d.type === 'RollingUpdate') {
    d.type = 'RollingUpdate';
    const rolling = child(d, 'rollingUpdate');
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  return d;
}

function mergeDeployment(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  const [have, want] = specs(existing, required);
  // Replicas are the manifest's, 1 when it says nothing, so `kubectl scale` is undone.
  const replicas = want.replicas ?? 1;
  if (have.replicas !== replicas) {
    have.replicas = replicas;
    t.mark();
  }
  // apps/v1 requires a selector and makes it immutable: a manifest without one has nothing to enforce.
  setIfSet(t, have, want, 'selector');
  setExact(t, have, want, 'paused');
  setExact(t, have, want, 'minReadySeconds');
  setIfSet(t, have, want, 'revisionHistoryLimit');
  setIfSet(t, have, want, 'progressDeadlineSeconds');
  const strategy = defaultDeploymentStrategy(want.strategy);
  if (!same(defaultDeploymentStrategy(have.strategy), strategy)) {
    have.strategy = strategy;
    t.mark();
  }
  ensurePodTemplate(t, have, want);
}

function defaultDaemonSetStrategy(strategy: unknown): Obj {
  const d = structuredClone(asObj(strategy) ?? {});
  if (d.type === undefined || d.type === '' || d.type === 'RollingUpdate') {
    d.type = 'RollingUpdate';
    const rolling = child(d, 'rollingUpdate');
    rolling.maxUnavailable ??= 1;
    rolling.maxSurge ??= 0;
  }
  return d;
}

function mergeDaemonSet(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  const [have, want] = specs(existing, required);
  setIfSet(t, have, want, 'selector');
  const strategy = defaultDaemonSetStrategy(want.updateStrategy);
  if (!same(defaultDaemonSetStrategy(have.updateStrategy), strategy)) {
    have.updateStrategy = strategy;
    t.mark();
  }
  setIfSet(t, have, want, 'minReadySeconds');
  setIfSet(t, have, want, 'revisionHistoryLimit');
  ensurePodTemplate(t, have, want);
}

function mergeConfigMap(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  mergeMap(t, existing, 'data', required.data);
  mergeMap(t, existing, 'binaryData', required.binaryData);
}

/** `stringData` is write-only: the server stores it base64-encoded in `data`, so it is compared there. */
function mergeSecret(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  mergeMap(t, existing, 'data', required.data);
  const strings = asObj(required.stringData);
  if (!strings) return;
  for (const [key, value] of Object.entries(strings)) {
    if (typeof value !== 'string') continue;
    const encoded = Buffer.from(value, 'utf8').toString('base64');
    const data = child(existing, 'data');
    if (data[key] === encoded) continue;
    data[key] = encoded;
    t.mark();
  }
}

/** Token secrets and pull secrets are the token controller's; only the automount choice is ours. */
function mergeServiceAccount(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  setIfSet(t, existing, required, 'automountServiceAccountToken');
}

function servicePortKey(p: Obj): string {
  return typeof p.name === 'string' && p.name !== '' ? p.name : `${String(p.port)}/${String(p.protocol ?? 'TCP')}`;
}

function defaultServicePort(p: Obj, nodePort: unknown): Obj {
  const d = structuredClone(p);
  d.protocol ??= 'TCP';
  if (d.targetPort === undefined || d.targetPort === 0 || d.targetPort === '') d.targetPort = d.port;
  // A nodePort the manifest leaves out is the server's allocation, not drift.
  if (d.nodePort === undefined && nodePort !== undefined) d.nodePort = nodePort;
  return d;
}

/** Ports, selector and type are the manifest's; the allocated clusterIP(s) are never touched. */
function mergeService(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  const [have, want] = specs(existing, required);
  ensureByKey(t, have, 'ports', objList(want.ports), servicePortKey, (h, w) => {
    if (same(defaultServicePort(h, undefined), defaultServicePort(w, h.nodePort))) return h;
    t.mark();
    const port = structuredClone(w);
    if (port.nodePort === undefined && h.nodePort !== undefined) port.nodePort = h.nodePort;
    return port;
  });
  setWithDefault(t, have, want, 'type', 'ClusterIP');
  setExact(t, have, want, 'selector');
}

/** An aggregated role's rules are written by the aggregation controller, so only the rule is enforced. */
function mergeClusterRole(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  setExact(t, existing, required, 'aggregationRule');
  if (isObj(required.aggregationRule)) return;
  setExact(t, existing, required, 'rules');
}

function mergeRole(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  setExact(t, existing, required, 'rules');
}

function defaultRoleRef(ref: unknown): unknown {
  if (!isObj(ref)) return ref;
  return { ...ref, apiGroup: ref.apiGroup || RBAC };
}

/** Users and groups are RBAC subjects; a service account's apiGroup is the core group. */
function defaultSubjects(subjects: unknown): unknown {
  if (!Array.isArray(subjects)) return subjects;
  return subjects.map((s) => (isObj(s) && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group') ? { ...s, apiGroup: RBAC } : s));
}

function mergeRoleBinding(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  setExact(t, existing, required, 'subjects', (a, b) => same(defaultSubjects(a), defaultSubjects(b)));
  setExact(t, existing, required, 'roleRef', (a, b) => same(defaultRoleRef(a), defaultRoleRef(b)));
}

const INJECT_CA_BUNDLE = 'service.beta.openshift.io/inject-cabundle';

function defaultCrdSpec(spec: unknown): Obj {
  const d = structuredClone(asObj(spec) ?? {});
  const names = asObj(d.names);
  if (names && typeof names.kind === 'string' && names.kind !== '') {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  const conversion = child(d, 'conversion');
  conversion.strategy ||= 'None';
  const service = asObj(asObj(asObj(conversion.webhook)?.clientConfig)?.service);
  if (service) service.port ??= 443;
  return d;
}

/**
 * The spec is the manifest's, compared with the server's defaults filled in. A conversion
 * webhook's caBundle is the service-ca controller's when the CRD asks for injection.
 */
function mergeCustomResourceDefinition(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  const want = structuredClone(asObj(required.spec) ?? {});
  const annotations = asObj(asObj(existing.metadata)?.annotations);
  const wantClient = asObj(asObj(asObj(want.conversion)?.webhook)?.clientConfig);
  const haveClient = asObj(asObj(asObj(asObj(existing.spec)?.conversion)?.webhook)?.clientConfig);
  if (annotations?.[INJECT_CA_BUNDLE] === 'true' && asObj(want.conversion)?.strategy === 'Webhook' && wantClient && haveClient) {
    put(wantClient, 'caBundle', haveClient.caBundle);
  }
  if (same(defaultCrdSpec(existing.spec), defaultCrdSpec(want))) return;
  existing.spec = want;
  t.mark();
}

const UNSTRUCTURED_SKIP = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * Any other kind: each top-level field the manifest has is replaced when what the manifest
 * sets in it differs. Extra values inside it (a custom resource's schema defaults, another
 * writer's field) do not count as drift; the CVO compares the whole object and so hot-loops
 * on a defaulted field, which is the failure this avoids.
 */
function mergeUnstructured(t: Tracker, existing: Obj, required: Obj): void {
  ensureObjectMeta(t, existing, required);
  for (const [key, value] of Object.entries(required)) {
    if (UNSTRUCTURED_SKIP.has(key) || covers(existing[key], value)) continue;
    put(existing, key, value);
    t.mark();
  }
}
