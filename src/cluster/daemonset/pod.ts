/**
 * The pod a DaemonSet starts on one node: its template, labelled with the template hash
 * (`controller-revision-hash`), with the tolerations kube gives every daemon pod, and tied to
 * the node, either by required node affinity on `metadata.name` (the scheduler binds it, as
 * in kube) or, in `nodeName` mode, bound directly.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { resources } from '../../runtime/resources.ts';
import { podFromTemplate } from '../workload-common/pod-control.ts';
import { REVISION_HASH_LABEL } from './manage.ts';
import { pinToNode, withDefaultTolerations } from './placement.ts';
import type { DaemonSet } from './types.ts';

export type PlacementMode = 'affinity' | 'nodeName';

export function daemonPod(ds: DaemonSet, hash: string, node: string, mode: PlacementMode): V1Pod {
  const pod = podFromTemplate(resources.daemonSets, ds, ds.spec!.template!);
  pod.metadata!.labels = { ...pod.metadata!.labels, [REVISION_HASH_LABEL]: hash };
  const spec = pod.spec!;
  spec.tolerations = withDefaultTolerations(spec.tolerations, spec.hostNetwork ?? false);
  if (mode === 'nodeName') spec.nodeName = node;
  else spec.affinity = pinToNode(spec.affinity, node);
  return pod;
}
