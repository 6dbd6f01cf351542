/**
 * Where payloads come from. The CVO's own release is the payload its image carries at
 * `/release-manifests`. Another release is fetched as OpenShift's CVO fetches it: a pod of
 * that release image, on the CVO's own node, copies its `/release-manifests` into the host
 * directory `/etc/cvo/updatepayloads/<hash>`, which the CVO mounts too; the CVO then reads it
 * from there. Any release image the nodes can run can be moved to, and nothing but the image
 * itself has to know what is in it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiClient } from '../../runtime/client.ts';
import { isNotFound } from '../../runtime/client.ts';
import { resources } from '../../runtime/resources.ts';
import { loadPayloadDir, type LoadedPayload } from './payload.ts';
import { CVO_NAMESPACE } from './refs.ts';

export interface PayloadSource {
  own(): Promise<LoadedPayload>;
  /** The payload of another release image, or 'pending' while it is being fetched. */
  load(image: string, signal?: AbortSignal): Promise<LoadedPayload | 'pending'>;
  /** The image for a desired version given without an image: the local release naming. */
  imageForVersion(version: string): string;
}

export interface PayloadSourceOptions {
  readonly client: ApiClient;
  readonly releaseImage: string;
  /** Host path of this CVO's own payload (containerPath('/release-manifests')). */
  readonly ownDir: string;
  /** Host path of the update payloads directory (containerPath('/etc/cvo/updatepayloads')). */
  readonly updatePayloadsDir: string;
  /** The node this CVO runs on: the fetching pod must share its host directory. */
  readonly nodeName: string | undefined;
  /** The release repository, so `desiredUpdate.version` alone can name an image. */
  readonly releaseRepository: string;
}

export const UPDATE_PAYLOADS_PATH = '/etc/cvo/updatepayloads';
const FETCH_TIMEOUT_MS = 60_000;

export function payloadHash(image: string): string {
  return createHash('sha256').update(image).digest('hex').slice(0, 12);
}

export function createPayloadSource(o: PayloadSourceOptions): PayloadSource {
  let own: LoadedPayload | undefined;
  const loaded = new Map<string, LoadedPayload>();
  return {
    async own() {
      own ??= loadPayloadDir(o.ownDir, o.releaseImage);
      return own;
    },
    imageForVersion: (version) => `${o.releaseRepository}:${version}`,
    async load(image) {
      const cached = loaded.get(image);
      if (cached) return cached;
      const hash = payloadHash(image);
      const dir = join(o.updatePayloadsDir, hash, 'release-manifests');
      const podName = `version-${hash}`;
      if (existsSync(join(dir, 'release-metadata'))) {
        const payload = loadPayloadDir(dir, image);
        loaded.set(image, payload);
        await o.client.deleteIfExists(resources.pods, CVO_NAMESPACE, podName).catch(() => false);
        return payload;
      }
      let pod: V1Pod | undefined;
      try {
        pod = await o.client.get<V1Pod>(resources.pods, CVO_NAMESPACE, podName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (pod?.status?.phase === 'Failed') {
        const term = pod.status.containerStatuses?.[0]?.state?.terminated;
        await o.client.deleteIfExists(resources.pods, CVO_NAMESPACE, podName);
        throw new Error(`the release image ${image} could not be retrieved: pod ${CVO_NAMESPACE}/${podName} failed${term?.message ? `: ${term.message.trim()}` : term?.reason ? ` (${term.reason})` : ''}`);
      }
      if (pod?.status?.phase === 'Succeeded') {
        // Succeeded but nothing there: the pod ran elsewhere (the CVO moved); fetch again.
        await o.client.deleteIfExists(resources.pods, CVO_NAMESPACE, podName);
        return 'pending';
      }
      const age = pod?.metadata?.creationTimestamp ? Date.now() - new Date(pod.metadata.creationTimestamp).getTime() : 0;
      if (pod && age > FETCH_TIMEOUT_MS) {
        // An image no node can run as a program (a simulated container never exits) ends here too.
        await o.client.deleteIfExists(resources.pods, CVO_NAMESPACE, podName);
        throw new Error(`the release image ${image} could not be retrieved: pod ${CVO_NAMESPACE}/${podName} did not copy the payload within ${FETCH_TIMEOUT_MS / 1000}s (is the image in the local image store? see shipyard image list)`);
      }
      if (!pod) {
        if (!o.nodeName) throw new Error('cannot fetch another release: the CVO does not know its node (NODE_NAME is not set)');
        await o.client.create<V1Pod>(resources.pods, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: podName, namespace: CVO_NAMESPACE, labels: { 'k8s-app': 'retrieve-openshift-release' } },
          spec: {
            nodeName: o.nodeName,
            restartPolicy: 'Never',
            tolerations: [{ operator: 'Exists' }],
            containers: [
              {
                name: 'release',
                image,
                args: ['copy-payload', `--to=${UPDATE_PAYLOADS_PATH}/${hash}`],
                volumeMounts: [{ name: 'payloads', mountPath: UPDATE_PAYLOADS_PATH }],
                terminationMessagePolicy: 'FallbackToLogsOnError',
              },
            ],
            volumes: [{ name: 'payloads', hostPath: { path: UPDATE_PAYLOADS_PATH, type: 'DirectoryOrCreate' } }],
          },
        });
      }
      return 'pending';
    },
  };
}
