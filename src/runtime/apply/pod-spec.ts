/**
 * The pod template merge shared by Deployments and DaemonSets. Containers, volumes and their
 * parts are matched by name (volume mounts by path): the manifest's are made present and
 * equal, those it does not list are removed, so a container added by hand is reverted.
 *
 * What the API server defaults (protocol TCP, probe timings, a volume's defaultMode, a
 * fieldRef's apiVersion, dnsPolicy, the grace period) is filled in on both sides before
 * comparing, so a manifest that leaves them out is not forever "different" from what the
 * server returns (cluster-version-operator#722). Fields the CVO enforces even when the
 * manifest omits them are those whose absence is itself a setting: command, args, env,
 * resources, ports, mounts, probes and security contexts. Any other field is enforced only
 * when the manifest sets it.
 */
import { asObj, child, isObj, normalize, objList, put, same, sameResourceList, type Obj } from './json.ts';
import { ensureObjectMeta, mergeMap, setExact, setIfSet, setWithDefault, type Tracker } from './meta.ts';

/** `existing.template` is made to match `required.template` (both are a workload's spec). */
export function ensurePodTemplate(t: Tracker, existingSpec: Obj, requiredSpec: Obj): void {
  const want = asObj(requiredSpec.template) ?? {};
  const have = child(existingSpec, 'template');
  ensureObjectMeta(t, have, { metadata: { labels: asObj(want.metadata)?.labels, annotations: asObj(want.metadata)?.annotations } });
  ensurePodSpec(t, child(have, 'spec'), asObj(want.spec) ?? {});
}

const POD_HANDLED = new Set([
  'initContainers',
  'containers',
  'volumes',
  'serviceAccountName',
  'serviceAccount',
  'hostNetwork',
  'nodeSelector',
  'securityContext',
  'affinity',
  'tolerations',
  'dnsPolicy',
  'terminationGracePeriodSeconds',
]);

export function ensurePodSpec(t: Tracker, have: Obj, want: Obj): void {
  const hostNetwork = want.hostNetwork === true;
  ensureContainers(t, have, 'initContainers', want.initContainers, hostNetwork);
  ensureContainers(t, have, 'containers', want.containers, hostNetwork);
  ensureByKey(t, have, 'volumes', objList(want.volumes), (v) => String(v.name), replaceUnless(t, (a, b) => same(defaultVolume(a), defaultVolume(b))));

  // `serviceAccount` is the deprecated spelling the server copies from serviceAccountName; a
  // stale copy would outlive the change, so it is dropped and the server fills it again.
  const account = want.serviceAccountName ?? want.serviceAccount;
  if (typeof account === 'string' && account !== '' && have.serviceAccountName !== account) {
    have.serviceAccountName = account;
    delete have.serviceAccount;
    t.mark();
  }
  setWithDefault(t, have, want, 'hostNetwork', false);
  mergeMap(t, have, 'nodeSelector', want.nodeSelector);
  ensurePodSecurityContext(t, have, want);
  ensureAffinity(t, have, want);
  ensureTolerations(t, have, objList(want.tolerations));
  setWithDefault(t, have, want, 'dnsPolicy', 'ClusterFirst');
  setWithDefault(t, have, want, 'terminationGracePeriodSeconds', 30);
  for (const key of Object.keys(want)) if (!POD_HANDLED.has(key)) setIfSet(t, have, want, key);
}

/**
 * A keyed list made equal to the manifest's: entries it lists are present (kept in the
 * existing order, missing ones appended) and made to match by `ensureItem`, which returns the
 * entry to keep; entries it does not list, and duplicates, are removed.
 */
export function ensureByKey(t: Tracker, holder: Obj, key: string, want: readonly Obj[], keyOf: (o: Obj) => string, ensureItem: (have: Obj, want: Obj) => Obj): void {
  const have = objList(holder[key]);
  if (want.length === 0 && have.length === 0) return;
  const wanted = new Map(want.map((w) => [keyOf(w), w]));
  const seen = new Set<string>();
  const out: Obj[] = [];
  for (const h of have) {
    const k = keyOf(h);
    const w = wanted.get(k);
    if (!w || seen.has(k)) {
      t.mark();
      continue;
    }
    seen.add(k);
    out.push(ensureItem(h, w));
  }
  for (const w of want) {
    if (seen.has(keyOf(w))) continue;
    seen.add(keyOf(w));
    out.push(structuredClone(w));
    t.mark();
  }
  if (out.length === 0) delete holder[key];
  else holder[key] = out;
}

/** An `ensureItem` that keeps an entry equal to the manifest's and replaces any other. */
export const replaceUnless =
  (t: Tracker, eq: (have: Obj, want: Obj) => boolean) =>
  (have: Obj, want: Obj): Obj => {
    if (eq(have, want)) return have;
    t.mark();
    return structuredClone(want);
  };

function ensureContainers(t: Tracker, have: Obj, key: string, required: unknown, hostNetwork: boolean): void {
  ensureByKey(t, have, key, objList(required), (c) => String(c.name), (h, w) => {
    ensureContainer(t, h, w, hostNetwork);
    return h;
  });
}

const CONTAINER_HANDLED = new Set(['name', 'command', 'args', 'env', 'envFrom', 'resources', 'ports', 'volumeMounts', 'livenessProbe', 'readinessProbe', 'startupProbe', 'securityContext']);

function ensureContainer(t: Tracker, have: Obj, want: Obj, hostNetwork: boolean): void {
  // A launch is changed in the manifest, not by editing the running object's command line.
  setExact(t, have, want, 'command');
  setExact(t, have, want, 'args');
  setExact(t, have, want, 'env', (a, b) => same(defaultEnv(a), defaultEnv(b)));
  setExact(t, have, want, 'envFrom');
  ensureResources(t, have, want);
  ensureByKey(t, have, 'ports', objList(want.ports), portKey, replaceUnless(t, (a, b) => same(defaultPort(a, hostNetwork), defaultPort(b, hostNetwork))));
  ensureByKey(t, have, 'volumeMounts', objList(want.volumeMounts), (m) => String(m.mountPath), replaceUnless(t, same));
  ensureProbe(t, have, want, 'livenessProbe', true);
  ensureProbe(t, have, want, 'readinessProbe', true);
  // The CVO leaves startup probes alone; we enforce one only when the manifest has it.
  ensureProbe(t, have, want, 'startupProbe', false);
  ensureContainerSecurityContext(t, have, want);
  for (const key of Object.keys(want)) if (!CONTAINER_HANDLED.has(key)) setIfSet(t, have, want, key);
}

function ensureResources(t: Tracker, have: Obj, want: Obj): void {
  const w = asObj(want.resources) ?? {};
  const h = asObj(have.resources) ?? {};
  for (const key of ['limits', 'requests']) {
    if (sameResourceList(h[key], w[key])) continue;
    put(child(have, 'resources'), key, w[key]);
    t.mark();
  }
  for (const key of Object.keys(w)) if (key !== 'limits' && key !== 'requests') setIfSet(t, child(have, 'resources'), w, key);
}

/** Unnamed ports are told apart by number and protocol (a name is optional for a single port). */
function portKey(p: Obj): string {
  return typeof p.name === 'string' && p.name !== '' ? p.name : `${String(p.containerPort)}/${String(p.protocol ?? 'TCP')}`;
}

function defaultPort(p: Obj, hostNetwork: boolean): Obj {
  const d = structuredClone(p);
  d.protocol ??= 'TCP';
  // A host-network pod listens on the node: the server makes hostPort the containerPort.
  if (hostNetwork && !d.hostPort) d.hostPort = d.containerPort;
  return d;
}

function defaultEnv(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return env.map((e) => {
    if (!isObj(e)) return e;
    const d = structuredClone(e);
    const fieldRef = asObj(asObj(d.valueFrom)?.fieldRef);
    if (fieldRef) fieldRef.apiVersion ??= 'v1';
    return d;
  });
}

function defaultProbe(p: unknown): unknown {
  if (!isObj(p)) return p;
  const d = structuredClone(p);
  d.timeoutSeconds ??= 1;
  d.periodSeconds ??= 10;
  d.successThreshold ??= 1;
  d.failureThreshold ??= 3;
  const httpGet = asObj(d.httpGet);
  if (httpGet) httpGet.scheme ??= 'HTTP';
  return d;
}

/**
 * `exact`: the probe's absence in the manifest removes an existing one (the CVO's rule for
 * liveness and readiness); otherwise only a probe the manifest has is enforced.
 */
function ensureProbe(t: Tracker, have: Obj, want: Obj, key: string, exact: boolean): void {
  if (!exact && want[key] === undefined) return;
  if (!same(defaultProbe(have[key]), defaultProbe(want[key]))) {
    put(have, key, want[key]);
    t.mark();
  }
}

const VOLUME_MODE_DEFAULT = 0o644;

/** A volume as the server would store it, so defaulted modes and types are not drift. */
function defaultVolume(v: Obj): unknown {
  const d = structuredClone(v);
  const sources = Object.keys(d).filter((k) => k !== 'name' && d[k] !== undefined && d[k] !== null);
  if (sources.length === 0) {
    d.emptyDir = {};
    sources.push('emptyDir');
  }
  const hostPath = asObj(d.hostPath);
  if (hostPath) hostPath.type ??= '';
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = asObj(d[k]);
    if (src) src.defaultMode ??= VOLUME_MODE_DEFAULT;
  }
  for (const item of objList(asObj(d.downwardAPI)?.items)) defaultFieldRef(item);
  for (const source of objList(asObj(d.projected)?.sources)) {
    const token = asObj(source.serviceAccountToken);
    if (token) token.expirationSeconds ??= 3600;
    for (const item of objList(asObj(source.downwardAPI)?.items)) defaultFieldRef(item);
  }
  // `emptyDir: {}` is a choice of source, not an empty value, so it must survive normalize().
  for (const k of sources) if (same(d[k], undefined)) d[k] = { chosen: true };
  return normalize(d);
}

function defaultFieldRef(item: Obj): void {
  const fieldRef = asObj(item.fieldRef);
  if (fieldRef) fieldRef.apiVersion ??= 'v1';
}

function isUnset(v: unknown): boolean {
  return same(v, undefined);
}

/**
 * A pointer-shaped sub-object (seLinuxOptions, capabilities): both unset is fine, one unset
 * takes the manifest's, both set is handed to `both`.
 */
function ensurePtr(t: Tracker, have: Obj, want: Obj, key: string, both: (h: Obj, w: Obj) => void): void {
  const h = asObj(have[key]);
  const w = asObj(want[key]);
  if (isUnset(h) && isUnset(w)) return;
  if (isUnset(h) || isUnset(w) || !h || !w) {
    put(have, key, want[key]);
    t.mark();
    return;
  }
  both(h, w);
}

function ensureSELinuxOptions(t: Tracker, have: Obj, want: Obj): void {
  ensurePtr(t, have, want, 'seLinuxOptions', (h, w) => {
    for (const key of ['user', 'role', 'type', 'level']) setIfSet(t, h, w, key);
  });
}

/** Listed entries (capabilities to add or drop, supplemental groups) must be present; others stay. */
function ensureIncludes(t: Tracker, have: Obj, key: string, want: unknown): void {
  if (!Array.isArray(want) || want.length === 0) return;
  const list = Array.isArray(have[key]) ? [...(have[key] as unknown[])] : [];
  for (const item of want) {
    if (list.some((x) => same(x, item))) continue;
    list.push(structuredClone(item));
    t.mark();
  }
  have[key] = list;
}

const CONTAINER_SC_EXACT = ['privileged', 'runAsUser', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation', 'seccompProfile'];

/** The manifest's security context always wins: a loosened one is put back. */
function ensureContainerSecurityContext(t: Tracker, have: Obj, want: Obj): void {
  ensurePtr(t, have, want, 'securityContext', (h, w) => {
    ensurePtr(t, h, w, 'capabilities', (hc, wc) => {
      ensureIncludes(t, hc, 'add', wc.add);
      ensureIncludes(t, hc, 'drop', wc.drop);
    });
    ensureSELinuxOptions(t, h, w);
    for (const key of CONTAINER_SC_EXACT) setExact(t, h, w, key);
    for (const key of Object.keys(w)) if (!['capabilities', 'seLinuxOptions', ...CONTAINER_SC_EXACT].includes(key)) setIfSet(t, h, w, key);
  });
}

const POD_SC_EXACT = ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'seccompProfile', 'fsGroup'];

function ensurePodSecurityContext(t: Tracker, have: Obj, want: Obj): void {
  ensurePtr(t, have, want, 'securityContext', (h, w) => {
    ensureSELinuxOptions(t, h, w);
    for (const key of POD_SC_EXACT) setExact(t, h, w, key);
    ensureIncludes(t, h, 'supplementalGroups', w.supplementalGroups);
    const sysctls = objList(h.sysctls);
    for (const s of objList(w.sysctls)) {
      const i = sysctls.findIndex((x) => x.name === s.name);
      if (i >= 0 && same(sysctls[i], s)) continue;
      if (i >= 0) sysctls[i] = structuredClone(s);
      else sysctls.push(structuredClone(s));
      t.mark();
    }
    if (sysctls.length) h.sysctls = sysctls;
    for (const key of Object.keys(w)) if (!['seLinuxOptions', 'supplementalGroups', 'sysctls', ...POD_SC_EXACT].includes(key)) setIfSet(t, h, w, key);
  });
}

/** Affinity is left to others until the manifest sets one; then each kind of it is the manifest's. */
function ensureAffinity(t: Tracker, have: Obj, want: Obj): void {
  const w = asObj(want.affinity);
  if (!w) return;
  const h = child(have, 'affinity');
  for (const key of ['nodeAffinity', 'podAffinity', 'podAntiAffinity']) setExact(t, h, w, key);
}

/** Every toleration the manifest lists is present exactly once; tolerations others added stay. */
function ensureTolerations(t: Tracker, have: Obj, want: readonly Obj[]): void {
  if (want.length === 0) return;
  const list = Array.isArray(have.tolerations) ? [...(have.tolerations as unknown[])] : [];
  const duplicate = new Set<number>();
  const found = new Set<number>();
  want.forEach((w, wi) => {
    let seen = false;
    list.forEach((h, hi) => {
      if (!same(h, w)) return;
      if (seen) duplicate.add(hi);
      seen = true;
      found.add(wi);
    });
  });
  const kept = list.filter((_, i) => !duplicate.has(i));
  if (duplicate.size) t.mark();
  want.forEach((w, wi) => {
    if (found.has(wi)) return;
    kept.push(structuredClone(w));
    t.mark();
  });
  have.tolerations = kept;
}
