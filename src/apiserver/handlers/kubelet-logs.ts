/**
 * `pods/log` the way kube-apiserver serves it: by asking the kubelet of the pod's node. The
 * node's InternalIP and `daemonEndpoints.kubeletEndpoint.Port` say where; the request carries
 * the kubelet API token; the kubelet's certificate must chain to the cluster CA (its address
 * is not in the certificate, since node addresses come and go, so the name is not checked).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { join } from 'node:path';
import type { KubeObject } from '../registry/resource.ts';
import { errors } from '../errors.ts';
import type { LogSource } from './context.ts';

/** `<pki>/kubelet-api.token`: shared by the API server (client) and the kubelets (server). */
export function ensureKubeletApiToken(pkiDir: string): string {
  const file = join(pkiDir, 'kubelet-api.token');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

export function createKubeletLogSource(o: { lookupNode: (name: string) => Promise<KubeObject | undefined>; token: string; caCertPem: string }): LogSource {
  return {
    async open(pod, container, opts) {
      const nodeName = pod.spec?.nodeName as string;
      const node = await o.lookupNode(nodeName);
      const ip = (node?.status?.addresses ?? []).find((a: KubeObject) => a.type === 'InternalIP')?.address as string | undefined;
      const port = node?.status?.daemonEndpoints?.kubeletEndpoint?.Port as number | undefined;
      if (!ip || !port || !/^127\./.test(ip)) return undefined;
      const qs = new URLSearchParams({ follow: String(opts.follow), previous: String(opts.previous), timestamps: String(opts.timestamps) });
      if (opts.tailLines !== undefined) qs.set('tailLines', String(opts.tailLines));
      const path = `/containerLogs/${encodeURIComponent(pod.metadata.namespace)}/${encodeURIComponent(pod.metadata.name)}/${encodeURIComponent(container)}?${qs}`;
      return new Promise((resolve, reject) => {
        const req = request(
          { host: ip, port, path, method: 'GET', ca: o.caCertPem, checkServerIdentity: () => undefined, headers: { Authorization: `Bearer ${o.token}` }, signal: opts.signal },
          (res) => {
            if (res.statusCode === 200) return resolve(res);
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => (body += c));
            res.on('end', () => {
              if (res.statusCode === 404) {
                if (opts.previous) reject(errors.badRequest(`previous terminated container "${container}" in pod "${pod.metadata.name}" not found`));
                else resolve(undefined);
              } else reject(errors.internal(`kubelet on node ${nodeName}: ${res.statusCode} ${body.trim()}`));
            });
          },
        );
        req.on('error', (err) => (opts.signal.aborted ? resolve(undefined) : reject(errors.internal(`cannot reach the kubelet on node ${nodeName} (${ip}:${port}): ${err.message}`))));
        req.end();
      });
    },
  };
}
