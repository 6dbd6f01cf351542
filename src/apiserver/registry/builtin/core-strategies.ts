/** Strategies for the core/v1 kinds: defaults and validation as kube-apiserver applies them. */
import { isDeepStrictEqual } from 'node:util';
import { childPath, fieldError, type FieldError } from '../../../api/field-errors.ts';
import type { KubeObject, Strategy } from '../resource.ts';
import { admitPod, defaultPod, keepAdmittedFields } from './pod-defaults.ts';
import { podSpecUpdateErrors, validatePodSpec } from './pod-spec.ts';

export const podStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    defaultPod(obj.spec);
    admitPod(obj.spec);
    obj.status = { phase: 'Pending', qosClass: qosClass(obj.spec) };
  },
  validate: (obj) => validatePodSpec(obj.spec, 'spec'),
  prepareForUpdate(obj, old) {
    defaultPod(obj.spec);
    keepAdmittedFields(obj.spec, old.spec);
    obj.status = old.status;
  },
  validateUpdate: (obj, old) => [...validatePodSpec(obj.spec, 'spec'), ...podSpecUpdateErrors(obj.spec, old.spec)],
};

function qosClass(spec: KubeObject | undefined): string {
  const containers: KubeObject[] = Array.isArray(spec?.containers) ? spec.containers : [];
  let anyRequest = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = c?.resources?.requests ?? {};
    const lim = c?.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) anyRequest = true;
    for (const r of ['cpu', 'memory']) if (!lim[r] || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
  }
  if (guaranteed) return 'Guaranteed';
  return anyRequest ? 'Burstable' : 'BestEffort';
}

export const nodeStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    obj.spec ??= {};
    obj.status ??= {};
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status;
  },
  validate(obj) {
    const errs: FieldError[] = [];
    const taints = obj.spec?.taints;
    if (taints !== undefined && !Array.isArray(taints)) errs.push(fieldError.typeInvalid('spec.taints', taints, 'must be a list'));
    else if (Array.isArray(taints))
      taints.forEach((t: KubeObject, i: number) => {
        const p = childPath('spec.taints', i);
        if (!t?.key) errs.push(fieldError.required(`${p}.key`));
        if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t?.effect)) errs.push(fieldError.notSupported(`${p}.effect`, t?.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
      });
    if (obj.spec?.unschedulable !== undefined && typeof obj.spec.unschedulable !== 'boolean') errs.push(fieldError.typeInvalid('spec.unschedulable', obj.spec.unschedulable, 'must be a boolean'));
    return errs;
  },
  validateUpdate(obj) {
    return nodeStrategy.validate!(obj);
  },
};

export const namespaceStrategy: Strategy = {
  nameRule: 'label',
  allowUnconditionalUpdate: true,
  pendingFinalizers: (obj) => obj.spec?.finalizers ?? [],
  prepareForDelete(obj) {
    obj.status = { ...(obj.status ?? {}), phase: 'Terminating' };
  },
  prepareForCreate(obj) {
    obj.spec = { finalizers: ['kubernetes'] };
    obj.status = { phase: 'Active' };
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
  },
  prepareForUpdate(obj, old) {
    // spec.finalizers changes only through /finalize; status only through /status.
    obj.spec = old.spec;
    obj.status = old.status;
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
  },
};

const configKey = /^[-._a-zA-Z0-9]+$/;
const maxConfigBytes = 1024 * 1024;

function validateDataMap(obj: KubeObject, fields: string[], binary: Record<string, boolean>): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const seen = new Set<string>();
  for (const f of fields) {
    const data = obj[f];
    if (data === undefined || data === null) continue;
    if (typeof data !== 'object' || Array.isArray(data)) {
      errs.push(fieldError.typeInvalid(f, data, 'must be a map of strings'));
      continue;
    }
    for (const [k, v] of Object.entries(data)) {
      if (!configKey.test(k) || k === '.' || k === '..' || k.length > 253) {
        errs.push(fieldError.invalid(`${f}[${k}]`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
      }
      if (typeof v !== 'string') {
        errs.push(fieldError.typeInvalid(`${f}[${k}]`, v, 'must be a string'));
        continue;
      }
      if (binary[f] && !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) errs.push(fieldError.invalid(`${f}[${k}]`, '<value omitted>', 'must be base64 encoded'));
      if (seen.has(k) && f !== 'stringData') errs.push(fieldError.invalid(`${f}[${k}]`, k, 'duplicate of key present in another data field'));
      seen.add(k);
      total += v.length;
    }
  }
  if (total > maxConfigBytes) errs.push(fieldError.tooLong(fields[0]!, maxConfigBytes));
  return errs;
}

export const configMapStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  validate: (obj) => validateDataMap(obj, ['data', 'binaryData'], { binaryData: true }),
  validateUpdate: (obj, old) => [...validateDataMap(obj, ['data', 'binaryData'], { binaryData: true }), ...immutableData(obj, old, ['data', 'binaryData'])],
};

function immutableData(obj: KubeObject, old: KubeObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldError.forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!isDeepStrictEqual(obj[f], old[f])) errs.push(fieldError.forbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

/**
 * `stringData` is write-only: merged into `data` (base64) before storage, as kube-apiserver
 * does. Entries that cannot be folded (bad keys, non-strings) stay behind for validation to name.
 */
function foldStringData(obj: KubeObject): void {
  const sd = obj.stringData;
  if (!sd || typeof sd !== 'object' || Array.isArray(sd)) return;
  if (obj.data !== undefined && (typeof obj.data !== 'object' || obj.data === null || Array.isArray(obj.data))) return;
  obj.data = { ...(obj.data ?? {}) };
  for (const [k, v] of Object.entries(sd)) {
    if (typeof v !== 'string' || !configKey.test(k) || k === '.' || k === '..') continue;
    obj.data[k] = Buffer.from(v).toString('base64');
    delete sd[k];
  }
  if (Object.keys(sd).length === 0) delete obj.stringData;
}

export const secretStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    obj.type ??= 'Opaque';
    foldStringData(obj);
  },
  prepareForUpdate(obj, old) {
    obj.type ??= old.type;
    foldStringData(obj);
  },
  validate: (obj) => validateDataMap(obj, ['data', 'stringData'], { data: true }),
  validateUpdate(obj, old) {
    const errs = [...validateDataMap(obj, ['data', 'stringData'], { data: true }), ...immutableData(obj, old, ['data'])];
    if (obj.type !== old.type) errs.push(fieldError.invalid('type', obj.type, 'field is immutable'));
    return errs;
  },
};

const serviceTypes = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

function validateService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec;
  if (typeof spec !== 'object' || spec === null) return [fieldError.required('spec')];
  const type = spec.type ?? 'ClusterIP';
  if (!serviceTypes.includes(type)) errs.push(fieldError.notSupported('spec.type', type, serviceTypes));
  const ports = spec.ports;
  if (ports !== undefined && !Array.isArray(ports)) return [...errs, fieldError.typeInvalid('spec.ports', ports, 'must be a list')];
  if (type !== 'ExternalName' && spec.clusterIP !== 'None' && (!ports || ports.length === 0)) errs.push(fieldError.required('spec.ports'));
  const names = new Set<string>();
  (ports ?? []).forEach((p: KubeObject, i: number) => {
    const pp = childPath('spec.ports', i);
    if (typeof p !== 'object' || p === null) return errs.push(fieldError.typeInvalid(pp, p, 'must be an object'));
    if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) errs.push(p.port === undefined ? fieldError.required(`${pp}.port`) : fieldError.invalid(`${pp}.port`, p.port, 'must be between 1 and 65535, inclusive'));
    if (ports.length > 1 && !p.name) errs.push(fieldError.required(`${pp}.name`));
    if (p.name) {
      if (names.has(p.name)) errs.push(fieldError.duplicate(`${pp}.name`, p.name));
      names.add(p.name);
    }
    if (p.protocol !== undefined && !['TCP', 'UDP', 'SCTP'].includes(p.protocol)) errs.push(fieldError.notSupported(`${pp}.protocol`, p.protocol, ['TCP', 'UDP', 'SCTP']));
    return undefined;
  });
  if (spec.selector !== undefined && (typeof spec.selector !== 'object' || Array.isArray(spec.selector))) errs.push(fieldError.typeInvalid('spec.selector', spec.selector, 'must be a map of strings'));
  return errs;
}

/** kube's SetDefaults_Service. */
function defaultService(obj: KubeObject): void {
  obj.spec ??= {};
  const spec = obj.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return;
  spec.type ||= 'ClusterIP';
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && typeof spec.sessionAffinityConfig?.clientIP?.timeoutSeconds !== 'number') {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (Array.isArray(spec.ports))
    for (const p of spec.ports) {
      if (!p || typeof p !== 'object') continue;
      p.protocol ||= 'TCP';
      if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
    }
  const externallyAccessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) spec.externalTrafficPolicy ||= 'Cluster';
  if (['ClusterIP', 'NodePort', 'LoadBalancer'].includes(spec.type)) spec.internalTrafficPolicy ??= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

export const serviceStrategy: Strategy = {
  nameRule: 'label1035',
  allowUnconditionalUpdate: true,
  prepareForCreate(obj) {
    defaultService(obj);
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status;
    defaultService(obj);
    obj.spec.clusterIP ??= old.spec?.clusterIP;
    obj.spec.clusterIPs ??= old.spec?.clusterIPs;
  },
  validate: validateService,
  validateUpdate(obj, old) {
    const errs = validateService(obj);
    if (old.spec?.clusterIP && obj.spec?.clusterIP !== old.spec.clusterIP && old.spec.type !== 'ExternalName') {
      errs.push(fieldError.invalid('spec.clusterIP', obj.spec?.clusterIP, 'field is immutable'));
    }
    return errs;
  },
};

export const plainStrategy: Strategy = { allowUnconditionalUpdate: true };

/** kube's SetDefaults_Endpoints: a port's protocol is TCP unless it says otherwise. */
function defaultEndpoints(obj: KubeObject): void {
  if (!Array.isArray(obj.subsets)) return;
  for (const subset of obj.subsets) if (Array.isArray(subset?.ports)) for (const p of subset.ports) if (p && typeof p === 'object') p.protocol ||= 'TCP';
}

export const endpointsStrategy: Strategy = { allowUnconditionalUpdate: true, prepareForCreate: defaultEndpoints, prepareForUpdate: defaultEndpoints };

export const eventStrategy: Strategy = {
  allowUnconditionalUpdate: true,
  validate(obj) {
    const errs: FieldError[] = [];
    const io = obj.involvedObject;
    if (io !== undefined && (typeof io !== 'object' || io === null)) errs.push(fieldError.typeInvalid('involvedObject', io, 'must be an object'));
    else if (io?.namespace && obj.metadata?.namespace && io.namespace !== obj.metadata.namespace) {
      errs.push(fieldError.invalid('involvedObject.namespace', io.namespace, 'does not match event.namespace'));
    }
    return errs;
  },
};
