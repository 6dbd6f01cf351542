/**
 * A container's environment as the kubelet computes it: `env` with `$(VAR)` references,
 * `valueFrom` (downward API fields, resource fields, ConfigMap and Secret keys), `envFrom`, and
 * the `KUBERNETES_SERVICE_*` variables that point in-cluster clients at the `kubernetes`
 * Service. Errors name the pod, the container, the variable and the object, because that is
 * what a user must fix.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { isNotFound, type ApiClient } from '../runtime/client.ts';
import { resources } from '../runtime/resources.ts';
import { quantityMilliValue } from '../api/quantity.ts';

export interface EnvDeps {
  client: ApiClient;
  nodeName: string;
  podIP: string;
  hostIP: string;
  kubernetesService?: { host: string; port: number };
}

export class EnvError extends Error {}

/** Kubernetes' `$(VAR)` expansion: unknown references stay as written, `$$` escapes. */
export function expand(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    return name !== undefined && name in env ? env[name]! : m;
  });
}

export function expandArgs(list: readonly string[], env: Readonly<Record<string, string>>): string[] {
  return list.map((a) => expand(a, env));
}

export function fieldValue(pod: V1Pod, path: string, deps: Pick<EnvDeps, 'podIP' | 'hostIP' | 'nodeName'>): string | undefined {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) return (m[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations)?.[m[2]!] ?? '';
  switch (path) {
    case 'metadata.name':
      return pod.metadata?.name ?? '';
    case 'metadata.namespace':
      return pod.metadata?.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata?.uid ?? '';
    case 'metadata.labels':
      return Object.entries(pod.metadata?.labels ?? {}).map(([k, v]) => `${k}="${v}"`).join('\n');
    case 'metadata.annotations':
      return Object.entries(pod.metadata?.annotations ?? {}).map(([k, v]) => `${k}="${v}"`).join('\n');
    case 'spec.nodeName':
      return deps.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? 'default';
    case 'status.hostIP':
    case 'status.hostIPs':
      return deps.hostIP;
    case 'status.podIP':
    case 'status.podIPs':
      return deps.podIP;
    default:
      return undefined;
  }
}

export function resourceFieldValue(container: V1Container, resource: string, divisor?: string): string {
  const [kind, name] = resource.split('.') as [string, string];
  const q = (kind === 'limits' ? container.resources?.limits : container.resources?.requests)?.[name];
  // Milli-units on both sides, so "100m" of cpu with divisor "1m" is 100, not 0.
  const value = q === undefined ? 0 : quantityMilliValue(String(q));
  const div = divisor ? quantityMilliValue(divisor) : 1000;
  return String(Math.ceil(value / (div || 1000)));
}

/** `spec.hostname`, else the pod's name, cut to a DNS label's 63 characters as the kubelet does. */
export function podHostname(pod: V1Pod): string {
  return (pod.spec?.hostname || pod.metadata?.name || '').slice(0, 63).replace(/[-.]+$/, '');
}

export async function resolveEnv(pod: V1Pod, container: V1Container, deps: EnvDeps): Promise<Record<string, string>> {
  const where = `pod ${pod.metadata?.namespace}/${pod.metadata?.name}, container ${container.name}`;
  const ns = pod.metadata?.namespace ?? 'default';
  // A container runtime gives each container the pod's hostname; components take their leader
  // election identity from it (runtime/leader-election.ts, candidateIdentity).
  const env: Record<string, string> = { HOSTNAME: podHostname(pod) };
  const svc = deps.kubernetesService;
  if (svc) {
    Object.assign(env, {
      KUBERNETES_SERVICE_HOST: svc.host,
      KUBERNETES_SERVICE_PORT: String(svc.port),
      KUBERNETES_SERVICE_PORT_HTTPS: String(svc.port),
      KUBERNETES_PORT: `tcp://${svc.host}:${svc.port}`,
      [`KUBERNETES_PORT_${svc.port}_TCP`]: `tcp://${svc.host}:${svc.port}`,
      [`KUBERNETES_PORT_${svc.port}_TCP_PROTO`]: 'tcp',
      [`KUBERNETES_PORT_${svc.port}_TCP_PORT`]: String(svc.port),
      [`KUBERNETES_PORT_${svc.port}_TCP_ADDR`]: svc.host,
    });
  }
  const objects = new Map<string, Record<string, string> | undefined>();
  const dataOf = async (kind: 'ConfigMap' | 'Secret', name: string): Promise<Record<string, string> | undefined> => {
    const key = `${kind}/${name}`;
    if (!objects.has(key)) {
      try {
        const obj = await deps.client.get<{ metadata?: { name?: string }; data?: Record<string, string> }>(kind === 'ConfigMap' ? resources.configMaps : resources.secrets, ns, name);
        const data = obj.data ?? {};
        objects.set(key, kind === 'Secret' ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])) : data);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        objects.set(key, undefined);
      }
    }
    return objects.get(key);
  };

  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    if (!ref?.name) continue;
    const data = await dataOf(kind, ref.name);
    if (!data) {
      if (ref.optional) continue;
      throw new EnvError(`${where}: envFrom ${kind.toLowerCase()} "${ref.name}" not found`);
    }
    for (const [k, v] of Object.entries(data)) env[`${from.prefix ?? ''}${k}`] = v;
  }

  for (const e of container.env ?? []) {
    if (e.value !== undefined || !e.valueFrom) {
      env[e.name] = expand(e.value ?? '', env);
      continue;
    }
    const vf = e.valueFrom;
    if (vf.fieldRef) {
      const v = fieldValue(pod, vf.fieldRef.fieldPath, deps);
      if (v === undefined) throw new EnvError(`${where}: env ${e.name}: unsupported fieldRef.fieldPath "${vf.fieldRef.fieldPath}"`);
      env[e.name] = v;
    } else if (vf.resourceFieldRef) {
      const target = vf.resourceFieldRef.containerName ? (pod.spec?.containers ?? []).find((c) => c.name === vf.resourceFieldRef!.containerName) ?? container : container;
      env[e.name] = resourceFieldValue(target, vf.resourceFieldRef.resource, vf.resourceFieldRef.divisor === undefined ? undefined : String(vf.resourceFieldRef.divisor));
    } else if (vf.configMapKeyRef || vf.secretKeyRef) {
      const ref = (vf.configMapKeyRef ?? vf.secretKeyRef)!;
      const kind = vf.configMapKeyRef ? 'ConfigMap' : 'Secret';
      const data = await dataOf(kind, ref.name ?? '');
      const value = data?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new EnvError(`${where}: env ${e.name}: ${data ? `key "${ref.key}" not found in` : ''}${data ? ' ' : ''}${kind.toLowerCase()} "${ref.name}"${data ? '' : ' not found'}`);
      }
      env[e.name] = value;
    }
  }
  return env;
}
