/**
 * The pruner pod the prune controller runs on a node (issue 17, item 4; library-go's
 * `pruner-pod.yaml`, reference §1 and §9): `revision-pruner-<latest>-<node>`, label
 * `app=pruner`, pinned to its node, privileged over the node's `/etc/kubernetes/`, never
 * restarted, critical and tolerating every taint like the installer pods. It is owned by
 * `revision-status-<latest>`, so it goes when that revision is itself pruned and one pod per
 * node and latest revision is all there ever is.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { kubeAPIServerNamespace, prunerPodName } from '../../../api/operator/index.ts';
import { podResourceName, resourceDir } from '../installer/install.ts';
import { revisionNodePod } from '../installer/installer-pod.ts';

export const prunerContainerName = 'pruner';
/** The operator binary's subcommand, as upstream's image runs `cluster-kube-apiserver-operator prune`. */
export const defaultPruneCommand: readonly string[] = ['cluster-kube-apiserver-operator', 'prune'];

export interface PrunerPodOptions {
  readonly latestRevision: number;
  readonly nodeName: string;
  /** Ascending; everything else up to `latestRevision` is removed from the node. */
  readonly protectedRevisions: readonly number[];
  readonly image: string;
  readonly command?: readonly string[];
  /** `revision-status-<latest>`'s uid: the owner. */
  readonly ownerUid: string;
  readonly namespace?: string;
}

export function prunerPod(o: PrunerPodOptions): V1Pod {
  return revisionNodePod({
    name: prunerPodName(o.latestRevision, o.nodeName),
    namespace: o.namespace ?? kubeAPIServerNamespace,
    app: 'pruner',
    revision: o.latestRevision,
    ownerUid: o.ownerUid,
    nodeName: o.nodeName,
    container: {
      name: prunerContainerName,
      image: o.image,
      command: [...(o.command ?? defaultPruneCommand)],
      args: [
        '-v=4',
        `--max-eligible-revision=${o.latestRevision}`,
        `--protected-revisions=${o.protectedRevisions.join(',')}`,
        `--resource-dir=${resourceDir}`,
        `--static-pod-name=${podResourceName}`,
      ],
      resources: { requests: { cpu: '150m', memory: '100M' }, limits: { cpu: '150m', memory: '100M' } },
      volumeMounts: [{ name: 'kubelet-dir', mountPath: '/etc/kubernetes/' }],
    },
    volumes: [{ name: 'kubelet-dir', hostPath: { path: '/etc/kubernetes/' } }],
  });
}
