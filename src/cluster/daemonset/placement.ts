/**
 * Which nodes a DaemonSet's pod belongs on, with kube's two answers per node: whether a pod
 * should be started there (the template's nodeName, nodeSelector and required node affinity
 * match, and every NoSchedule/NoExecute taint is tolerated), and whether a pod already there
 * may keep running (the same, except that only NoExecute taints evict). Tolerations include
 * the ones kube adds to every DaemonSet pod, so a daemon still runs on a node that is not
 * ready, unreachable, under pressure or cordoned (and, for host-network pods, whose network
 * is not yet up): node agents are what brings such a node back.
 *
 * The template is compiled once per DaemonSet spec and then tried against every node, which
 * is what a 5,000-node cluster needs.
 */
import type { V1Affinity, V1Toleration } from '@kubernetes/client-node';
import { compileRequiredNodeAffinity } from '../../api/node-affinity.ts';
import { findUntoleratedTaint, type Taint } from '../../api/taints.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { DaemonSet, Node, Pod } from './types.ts';

type Toleration = DeepReadonly<V1Toleration>;

const taintToleration = (key: string, effect: 'NoSchedule' | 'NoExecute'): V1Toleration => ({ key, operator: 'Exists', effect });

/** kube's AddOrUpdateDaemonPodTolerations. */
export function defaultTolerations(hostNetwork: boolean): V1Toleration[] {
  const out = [
    taintToleration('node.kubernetes.io/not-ready', 'NoExecute'),
    taintToleration('node.kubernetes.io/unreachable', 'NoExecute'),
    taintToleration('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    taintToleration('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    taintToleration('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    taintToleration('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (hostNetwork) out.push(taintToleration('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return out;
}

const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.operator ?? 'Equal') === (b.operator ?? 'Equal') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '');

/** The template's tolerations with the defaults added; a default replaces an equal one (dropping its tolerationSeconds), as kube does. */
export function withDefaultTolerations(tolerations: readonly Toleration[] | undefined, hostNetwork: boolean): V1Toleration[] {
  const out = (tolerations ?? []).map((t) => structuredClone(t) as V1Toleration);
  for (const d of defaultTolerations(hostNetwork)) {
    const i = out.findIndex((t) => sameToleration(t, d));
    if (i >= 0) out[i] = d;
    else out.push(d);
  }
  return out;
}

export interface NodeFit {
  /** A pod should be started on the node. */
  readonly shouldRun: boolean;
  /** A pod already on the node may stay (no untolerated NoExecute taint). */
  readonly shouldContinueRunning: boolean;
}

export type Placement = (node: Node) => NodeFit;

const NO: NodeFit = Object.freeze({ shouldRun: false, shouldContinueRunning: false });
const YES: NodeFit = Object.freeze({ shouldRun: true, shouldContinueRunning: true });
const STAY: NodeFit = Object.freeze({ shouldRun: false, shouldContinueRunning: true });

const blocksScheduling = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
const evicts = (taint: Taint): boolean => taint.effect === 'NoExecute';

export function compilePlacement(ds: DaemonSet): Placement {
  const spec = ds.spec?.template?.spec;
  const pinned = spec?.nodeName;
  const matchesNode = compileRequiredNodeAffinity(spec);
  const tolerations = withDefaultTolerations(spec?.tolerations, spec?.hostNetwork ?? false);
  return (node) => {
    if (pinned && pinned !== (node.metadata?.name ?? '')) return NO;
    if (!matchesNode(node)) return NO;
    const taints = node.spec?.taints;
    if (!findUntoleratedTaint(taints, tolerations, blocksScheduling)) return YES;
    return findUntoleratedTaint(taints, tolerations, evicts) ? NO : STAY;
  };
}

/** The node a daemon pod is bound to, or (before the scheduler binds it) the one its affinity pins it to. */
export function targetNodeOf(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const fields = terms[0]!.matchFields ?? [];
  const req = fields.find((f) => f.key === 'metadata.name' && f.operator === 'In');
  return req?.values?.length === 1 ? req.values[0] : undefined;
}

/**
 * Pins a pod to one node through required node affinity on `metadata.name`, replacing any
 * required terms the template had (the controller has already checked them against this
 * node), so the scheduler binds it there and nowhere else.
 */
export function pinToNode(affinity: DeepReadonly<V1Affinity> | undefined, nodeName: string): V1Affinity {
  const out = structuredClone(affinity ?? {}) as V1Affinity;
  out.nodeAffinity = {
    ...out.nodeAffinity,
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }] },
  };
  return out;
}
