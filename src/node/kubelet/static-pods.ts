/**
 * Static pods: manifests in `<node root>/etc/kubernetes/manifests` that the kubelet runs on its
 * own authority, before and without any API server (the API server itself starts this way).
 * Each gets a stable uid from the node and the manifest's content, so a changed manifest is a
 * new pod (the old one stops) and an unchanged one survives restarts under the same identity.
 * A pod is known by its full name (`<namespace>/<name>-<node>`), not by its file: a manifest
 * moved to another file, or deleted and written again, is the same pod changed, and a second
 * manifest naming a pod already defined is skipped, as the kubelet refuses duplicate pod names.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { V1Pod } from '@kubernetes/client-node';

export interface StaticPod {
  readonly file: string;
  readonly hash: string;
  readonly pod: V1Pod;
}

/** The key a static pod is known by: its namespace and name as mirrored. */
export function staticPodFullName(sp: StaticPod): string {
  return `${sp.pod.metadata!.namespace}/${sp.pod.metadata!.name}`;
}

export interface StaticPodScan {
  readonly pods: StaticPod[];
  readonly errors: string[];
}

export function scanStaticPods(dir: string, nodeName: string): StaticPodScan {
  const pods: StaticPod[] = [];
  const errors: string[] = [];
  const fileOf = new Map<string, string>();
  if (!existsSync(dir)) return { pods, errors };
  for (const name of readdirSync(dir).sort()) {
    if (!/\.(ya?ml|json)$/.test(name)) continue;
    const file = join(dir, name);
    let text: string;
    let doc: V1Pod;
    try {
      text = readFileSync(file, 'utf8');
      doc = parse(text) as V1Pod;
    } catch (err) {
      errors.push(`${file}: not valid YAML or JSON: ${(err as Error).message}`);
      continue;
    }
    if (!doc || doc.kind !== 'Pod') {
      errors.push(`${file}: kind: must be Pod, got ${JSON.stringify(doc?.kind)}`);
      continue;
    }
    if (!doc.metadata?.name) {
      errors.push(`${file}: metadata.name: required`);
      continue;
    }
    if (!doc.spec?.containers?.length || doc.spec.containers.some((c) => !c.name || !c.image)) {
      errors.push(`${file}: spec.containers: every container needs a name and an image`);
      continue;
    }
    const hash = createHash('sha256').update(nodeName).update(text).digest('hex');
    const uid = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20, 32)}`;
    const pod: V1Pod = {
      ...doc,
      metadata: {
        ...doc.metadata,
        name: `${doc.metadata.name}-${nodeName}`,
        namespace: doc.metadata.namespace ?? 'default',
        uid,
        annotations: { ...(doc.metadata.annotations ?? {}), 'kubernetes.io/config.hash': hash.slice(0, 32), 'kubernetes.io/config.mirror': hash.slice(0, 32), 'kubernetes.io/config.source': 'file' },
      },
      // A static pod has no service account: it must start before any API server exists.
      spec: { ...doc.spec, nodeName, automountServiceAccountToken: doc.spec.automountServiceAccountToken ?? false, restartPolicy: doc.spec.restartPolicy ?? 'Always', tolerations: doc.spec.tolerations ?? [{ operator: 'Exists', effect: 'NoExecute' }] },
    };
    const sp: StaticPod = { file, hash: hash.slice(0, 32), pod };
    const first = fileOf.get(staticPodFullName(sp));
    if (first !== undefined) {
      errors.push(`${file}: metadata.name: duplicate pod name ${JSON.stringify(staticPodFullName(sp))}, already defined by ${first}`);
      continue;
    }
    fileOf.set(staticPodFullName(sp), file);
    pods.push(sp);
  }
  return { pods, errors };
}
