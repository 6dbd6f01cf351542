/**
 * Materializes a pod's volumes under its directory on the node, and gives every container a
 * rootfs (`<podDir>/rootfs/<container>`) in which each volumeMount's mountPath is a link to
 * its volume. A process reads `join(SHIPYARD_ROOTFS, mountPath)` (runtime/container-path.ts)
 * and finds exactly what a real container would see at that path.
 *
 * Secrets are written 0600 whatever `defaultMode` says: on a shared host a world-readable file
 * is readable by every user of the machine, not just the container.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, lstatSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { ApiClient, ApiError, isNotFound } from '../runtime/client.ts';
import { resources } from '../runtime/resources.ts';
import { SERVICE_ACCOUNT_DIR } from '../runtime/kubeconfig.ts';
import type { Mount } from './container-runtime.ts';
import { fieldValue } from './env.ts';
import { writeFileAtomic } from '../api/files.ts';

export interface VolumeDeps {
  client: ApiClient;
  nodeRoot: string;
  nodeName: string;
  podIP: string;
  hostIP: string;
  caCert?: string;
}

export class MountError extends Error {
  readonly volume: string;
  constructor(volume: string, message: string) {
    super(message);
    this.volume = volume;
  }
}

const SA_VOLUME = 'kube-api-access-shipyard';

export function rootfsFor(podDir: string, container: string): string {
  return join(podDir, 'rootfs', container);
}

function writeAtomic(path: string, data: string | Buffer, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, data, mode);
}

function safeKeyPath(dir: string, key: string): string {
  const p = normalize(join(dir, key));
  if (!p.startsWith(dir + '/')) throw new Error(`path "${key}" escapes the volume`);
  return p;
}

type Files = Map<string, { data: string | Buffer; mode: number }>;

async function objectData(client: ApiClient, kind: 'ConfigMap' | 'Secret', ns: string, name: string): Promise<Record<string, Buffer> | undefined> {
  try {
    const obj = await client.get<{ metadata?: object; data?: Record<string, string>; binaryData?: Record<string, string> }>(kind === 'ConfigMap' ? resources.configMaps : resources.secrets, ns, name);
    const out: Record<string, Buffer> = {};
    for (const [k, v] of Object.entries(obj.data ?? {})) out[k] = kind === 'Secret' ? Buffer.from(v, 'base64') : Buffer.from(v);
    for (const [k, v] of Object.entries(obj.binaryData ?? {})) out[k] = Buffer.from(v, 'base64');
    return out;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * A token for the pod's service account, bound to the pod. There is no fallback: a pod whose
 * token cannot be had does not start (its volume setup fails and the kubelet retries), rather
 * than run with some other identity.
 */
async function serviceAccountToken(pod: V1Pod, volume: string, deps: VolumeDeps, audience: string | undefined, expirationSeconds: number | undefined): Promise<string> {
  const ns = pod.metadata?.namespace ?? 'default';
  const sa = pod.spec?.serviceAccountName ?? 'default';
  const fail = (why: string): MountError => new MountError(volume, `MountVolume.SetUp failed for volume "${volume}" : failed to fetch token for service account ${ns}/${sa}: ${why}`);
  let res: { status?: { token?: string } };
  try {
    res = await deps.client.request<{ status?: { token?: string } }>('POST', `/api/v1/namespaces/${encodeURIComponent(ns)}/serviceaccounts/${encodeURIComponent(sa)}/token`, {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: audience ? [audience] : [], expirationSeconds: expirationSeconds ?? 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid } },
      },
    });
  } catch (err) {
    throw fail(err instanceof ApiError ? `${err.code} ${err.reason}: ${err.status.message ?? ''}`.trim() : (err as Error).message);
  }
  if (!res.status?.token) throw fail('the TokenRequest response carried no token');
  return res.status.token;
}

/** The files a volume holds (for kinds that hold files), keyed by relative path. */
async function volumeFiles(pod: V1Pod, v: V1Volume, deps: VolumeDeps): Promise<Files | undefined> {
  const ns = pod.metadata?.namespace ?? 'default';
  const files: Files = new Map();
  const fromObject = async (kind: 'ConfigMap' | 'Secret', name: string, items: { key: string; path: string; mode?: number }[] | undefined, optional: boolean | undefined, defaultMode: number): Promise<void> => {
    const data = await objectData(deps.client, kind, ns, name);
    if (!data) {
      if (optional) return;
      throw new MountError(v.name, `MountVolume.SetUp failed for volume "${v.name}" : ${kind.toLowerCase()} "${name}" not found`);
    }
    const mode = kind === 'Secret' ? 0o600 : defaultMode;
    if (items?.length) {
      for (const it of items) {
        if (!(it.key in data)) {
          if (optional) continue;
          throw new MountError(v.name, `MountVolume.SetUp failed for volume "${v.name}" : key "${it.key}" not found in ${kind.toLowerCase()} "${name}"`);
        }
        files.set(it.path, { data: data[it.key]!, mode: kind === 'Secret' ? 0o600 : (it.mode ?? mode) });
      }
    } else for (const [k, b] of Object.entries(data)) files.set(k, { data: b, mode });
  };
  if (v.configMap) await fromObject('ConfigMap', v.configMap.name ?? '', v.configMap.items, v.configMap.optional, v.configMap.defaultMode ?? 0o644);
  else if (v.secret) await fromObject('Secret', v.secret.secretName ?? '', v.secret.items, v.secret.optional, 0o600);
  else if (v.downwardAPI) {
    for (const it of v.downwardAPI.items ?? []) {
      const value = it.fieldRef ? fieldValue(pod, it.fieldRef.fieldPath, deps) : '';
      files.set(it.path, { data: value ?? '', mode: it.mode ?? v.downwardAPI.defaultMode ?? 0o644 });
    }
  } else if (v.projected) {
    for (const src of v.projected.sources ?? []) {
      if (src.serviceAccountToken) {
        files.set(src.serviceAccountToken.path, { data: await serviceAccountToken(pod, v.name, deps, src.serviceAccountToken.audience, src.serviceAccountToken.expirationSeconds), mode: 0o600 });
      } else if (src.configMap) {
        if (src.configMap.name === 'kube-root-ca.crt' && deps.caCert) {
          const data = await objectData(deps.client, 'ConfigMap', ns, 'kube-root-ca.crt');
          for (const it of src.configMap.items ?? [{ key: 'ca.crt', path: 'ca.crt' }]) files.set(it.path, { data: data?.[it.key] ?? deps.caCert, mode: 0o644 });
        } else {
          await fromObject('ConfigMap', src.configMap.name ?? '', src.configMap.items, src.configMap.optional, v.projected.defaultMode ?? 0o644);
        }
      } else if (src.secret) {
        await fromObject('Secret', src.secret.name ?? '', src.secret.items, src.secret.optional, 0o600);
      } else if (src.downwardAPI) {
        for (const it of src.downwardAPI.items ?? []) files.set(it.path, { data: (it.fieldRef ? fieldValue(pod, it.fieldRef.fieldPath, deps) : '') ?? '', mode: 0o644 });
      }
    }
  } else return undefined;
  return files;
}

function writeFiles(dir: string, files: Files): boolean {
  let changed = false;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const [rel, f] of files) {
    const p = safeKeyPath(dir, rel);
    const data = Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data);
    if (existsSync(p) && readFileSync(p).equals(data)) continue;
    writeAtomic(p, data, f.mode);
    changed = true;
  }
  return changed;
}

/** The pod's volumes plus the service-account volume Kubernetes' admission would add. */
export function effectiveVolumes(pod: V1Pod): { volumes: V1Volume[]; extraMounts: V1VolumeMount[] } {
  const volumes = [...(pod.spec?.volumes ?? [])];
  const extraMounts: V1VolumeMount[] = [];
  if (pod.spec?.automountServiceAccountToken !== false && !volumes.some((v) => v.name === SA_VOLUME)) {
    volumes.push({
      name: SA_VOLUME,
      projected: {
        sources: [
          { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });
    extraMounts.push({ name: SA_VOLUME, mountPath: SERVICE_ACCOUNT_DIR, readOnly: true });
  }
  return { volumes, extraMounts };
}

function volumeDir(podDir: string, name: string): string {
  return join(podDir, 'volumes', name);
}

/** Writes every volume and each container's rootfs; returns each container's mounts. */
export async function materializeVolumes(pod: V1Pod, podDir: string, deps: VolumeDeps): Promise<Map<string, Mount[]>> {
  const { volumes, extraMounts } = effectiveVolumes(pod);
  const hostPaths = new Map<string, string>();
  for (const v of volumes) {
    if (v.hostPath) {
      const p = normalize(join(deps.nodeRoot, v.hostPath.path));
      if (!p.startsWith(deps.nodeRoot)) throw new MountError(v.name, `volume "${v.name}": hostPath ${v.hostPath.path} escapes the node root`);
      const type = v.hostPath.type ?? '';
      if (!existsSync(p)) {
        if (type === 'DirectoryOrCreate' || type === '') mkdirSync(p, { recursive: true });
        else if (type === 'FileOrCreate') writeAtomic(p, '', 0o644);
        else throw new MountError(v.name, `MountVolume.SetUp failed for volume "${v.name}" : hostPath type check failed: ${v.hostPath.path} is not a ${type}`);
      }
      hostPaths.set(v.name, p);
      continue;
    }
    const dir = volumeDir(podDir, v.name);
    if (v.emptyDir) {
      mkdirSync(dir, { recursive: true });
    } else {
      const files = await volumeFiles(pod, v, deps);
      if (!files) throw new MountError(v.name, `volume "${v.name}": this volume type is not supported by Shipyard's kubelet (supported: configMap, secret, emptyDir, hostPath, downwardAPI, projected)`);
      writeFiles(dir, files);
    }
    hostPaths.set(v.name, dir);
  }
  const out = new Map<string, Mount[]>();
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const rootfs = rootfsFor(podDir, c.name);
    rmSync(rootfs, { recursive: true, force: true });
    mkdirSync(rootfs, { recursive: true });
    const mounts: Mount[] = [];
    const wanted = [...(c.volumeMounts ?? []), ...extraMounts.filter((m) => !(c.volumeMounts ?? []).some((x) => x.mountPath === m.mountPath))];
    for (const m of wanted) {
      const base = hostPaths.get(m.name);
      if (!base) throw new MountError(m.name, `container ${c.name}: volumeMount "${m.name}" names no volume of the pod`);
      const hostPath = m.subPath ? safeKeyPath(base, m.subPath) : base;
      // `/etc/kubernetes/` (as the kube-apiserver operator's installer pods mount it) names the same
      // directory as `/etc/kubernetes`, but a link path ending in a slash cannot be created.
      const link = join(rootfs, m.mountPath).replace(/(.)\/+$/, '$1');
      mkdirSync(dirname(link), { recursive: true });
      try {
        lstatSync(link);
        rmSync(link, { recursive: true, force: true });
      } catch {
        // Nothing there yet.
      }
      symlinkSync(hostPath, link);
      mounts.push({ containerPath: m.mountPath, hostPath, readOnly: m.readOnly ?? false });
    }
    out.set(c.name, mounts);
  }
  return out;
}

/** Rewrites ConfigMap/Secret-backed volumes whose source changed; true if anything changed. */
export async function refreshVolumes(pod: V1Pod, podDir: string, deps: VolumeDeps): Promise<boolean> {
  let changed = false;
  for (const v of effectiveVolumes(pod).volumes) {
    if (!v.configMap && !v.secret && !v.projected && !v.downwardAPI) continue;
    if (v.projected?.sources?.some((s) => s.serviceAccountToken)) continue; // tokens are refreshed on restart
    try {
      const files = await volumeFiles(pod, v, deps);
      if (files && writeFiles(volumeDir(podDir, v.name), files)) changed = true;
    } catch {
      // A source that vanished keeps its last contents, as the kubelet does.
    }
  }
  return changed;
}
