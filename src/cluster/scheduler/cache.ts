/**
 * The scheduler's cache: every node with the running totals of what its pods request, kept
 * up to date from informer events one pod at a time. Scheduling a pod then reads a node's
 * totals instead of summing its pods, which is what lets one process place 150,000 pods on
 * 5,000 nodes.
 *
 * It also holds *assumed* pods, as kube-scheduler does: the moment the scheduler decides,
 * the pod is counted on its node, before the binding is even sent, so the next decision
 * (possibly a moment later, on another worker) sees the slot as taken. When the informer
 * reports the pod bound, the assumed entry becomes a confirmed one; if the binding fails, the
 * scheduler forgets it. An informer update that still shows the pod unbound (sent before the
 * binding landed) must not undo the assumption.
 */
import { quantityMilliValue, quantityValue } from '../../api/quantity.ts';
import { objectKey } from '../../runtime/cache.ts';
import type { PodAffinityView } from './plugins/inter-pod-affinity.ts';
import { isTerminal, podInfo } from './pod-info.ts';
import type { Allocatable, Labels, Node, NodeInfo, Pod, PodInfo, Resources } from './types.ts';

function quantity(read: (q: string | number) => number, q: string | number | undefined): number {
  if (q === undefined) return 0;
  try {
    return read(q);
  } catch {
    return 0;
  }
}

export function nodeAllocatable(node: Node): Allocatable {
  const a = (node.status?.allocatable ?? {}) as Readonly<Record<string, string | number>>;
  return { milliCpu: quantity(quantityMilliValue, a.cpu), memory: quantity(quantityValue, a.memory), pods: quantity(quantityValue, a.pods) };
}

const PLACEHOLDER: Node = Object.freeze({});

class NodeState implements NodeInfo {
  readonly name: string;
  /** False while pods name a node the informer has not delivered (or has deleted); such a state is never handed out. */
  known = false;
  /** A plain field, not a checked getter: filters read it hundreds of times per pod. */
  node: Node = PLACEHOLDER;
  allocatable: Allocatable = { milliCpu: 0, memory: 0, pods: 0 };
  requested: Resources = { milliCpu: 0, memory: 0 };
  nonZeroRequested: Resources = { milliCpu: 0, memory: 0 };
  readonly pods = new Map<string, PodInfo>();
  private readonly owners = new Map<string, number>();

  constructor(name: string) {
    this.name = name;
  }

  ownerCount(ownerUid: string): number {
    return this.owners.get(ownerUid) ?? 0;
  }

  add(p: PodInfo): void {
    this.pods.set(p.key, p);
    this.shift(p, 1);
  }

  remove(p: PodInfo): void {
    if (this.pods.get(p.key) !== p) return;
    this.pods.delete(p.key);
    this.shift(p, -1);
  }

  private shift(p: PodInfo, sign: 1 | -1): void {
    this.requested = { milliCpu: this.requested.milliCpu + sign * p.requests.milliCpu, memory: this.requested.memory + sign * p.requests.memory };
    this.nonZeroRequested = {
      milliCpu: this.nonZeroRequested.milliCpu + sign * p.nonZeroRequests.milliCpu,
      memory: this.nonZeroRequested.memory + sign * p.nonZeroRequests.memory,
    };
    if (p.owner) {
      const n = (this.owners.get(p.owner) ?? 0) + sign;
      if (n > 0) this.owners.set(p.owner, n);
      else this.owners.delete(p.owner);
    }
  }
}

interface Placed {
  readonly info: PodInfo;
  readonly assumed: boolean;
}

export class SchedulerCache implements PodAffinityView {
  private readonly nodes = new Map<string, NodeState>();
  /** Nodes the informer knows, in a stable order for the scheduler's rotating scan. */
  private readonly order: NodeState[] = [];
  private readonly orderIndex = new Map<string, number>();
  private readonly placed = new Map<string, Placed>();
  private readonly byNamespace = new Map<string, Map<string, PodInfo>>();
  private readonly antiAffinity = new Map<string, PodInfo>();
  private readonly nsLabels = new Map<string, Labels>();

  /** Nodes with a Node object, in scan order. */
  nodeInfos(): readonly NodeInfo[] {
    return this.order;
  }

  nodeInfo(name: string): NodeInfo | undefined {
    const n = this.nodes.get(name);
    return n?.known ? n : undefined;
  }

  get numNodes(): number {
    return this.order.length;
  }

  setNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const state = this.stateFor(name);
    state.known = true;
    state.node = node;
    state.allocatable = nodeAllocatable(node);
    if (!this.orderIndex.has(name)) {
      this.orderIndex.set(name, this.order.length);
      this.order.push(state);
    }
  }

  removeNode(name: string): void {
    const state = this.nodes.get(name);
    if (!state) return;
    state.known = false;
    state.node = PLACEHOLDER;
    const i = this.orderIndex.get(name);
    if (i !== undefined) {
      // Swap-remove keeps removal O(1); the scan order only needs to be stable, not sorted.
      const last = this.order.pop()!;
      if (last !== state) {
        this.order[i] = last;
        this.orderIndex.set(last.name, i);
      }
      this.orderIndex.delete(name);
    }
    // Its pods stay counted: if the node comes back before they are deleted, they are still there.
    if (state.pods.size === 0) this.nodes.delete(name);
  }

  setNamespace(name: string, labels: Labels | undefined): void {
    this.nsLabels.set(name, labels ?? {});
  }

  removeNamespace(name: string): void {
    this.nsLabels.delete(name);
  }

  /** Applies an informer add or update of a pod. */
  updatePod(pod: Pod): void {
    const key = objectKey(pod);
    const existing = this.placed.get(key);
    if (!pod.spec?.nodeName || isTerminal(pod)) {
      // The binding is on its way; this event predates it.
      if (existing?.assumed && existing.info.uid === pod.metadata?.uid && !isTerminal(pod)) return;
      if (existing) this.detach(existing.info);
      return;
    }
    if (existing) this.detach(existing.info);
    this.attach({ info: podInfo(pod), assumed: false });
  }

  /** Applies an informer delete of a pod. */
  removePod(pod: Pod): void {
    const existing = this.placed.get(objectKey(pod));
    if (existing) this.detach(existing.info);
  }

  /** Counts `info` on `nodeName` until the informer confirms the binding or `forget` undoes it. */
  assume(info: PodInfo, nodeName: string): void {
    const existing = this.placed.get(info.key);
    if (existing) this.detach(existing.info);
    this.attach({ info: { ...info, nodeName }, assumed: true });
  }

  /** Undoes `assume` after a failed binding; a confirmed placement is left alone. */
  forget(key: string): void {
    const existing = this.placed.get(key);
    if (existing?.assumed) this.detach(existing.info);
  }

  isAssumed(key: string): boolean {
    return this.placed.get(key)?.assumed === true;
  }

  /** Where the cache counts the pod, assumed or confirmed. */
  placement(key: string): string | undefined {
    return this.placed.get(key)?.info.nodeName;
  }

  podsInNamespace(namespace: string): Iterable<PodInfo> {
    return this.byNamespace.get(namespace)?.values() ?? [];
  }

  namespacesWithPods(): Iterable<string> {
    return this.byNamespace.keys();
  }

  namespaceLabels(namespace: string): Labels | undefined {
    return this.nsLabels.get(namespace);
  }

  podsWithRequiredAntiAffinity(): Iterable<PodInfo> {
    return this.antiAffinity.values();
  }

  nodeLabels(nodeName: string): Labels | undefined {
    const state = this.nodes.get(nodeName);
    return state?.known ? (state.node.metadata?.labels ?? {}) : undefined;
  }

  private stateFor(name: string): NodeState {
    let state = this.nodes.get(name);
    if (!state) this.nodes.set(name, (state = new NodeState(name)));
    return state;
  }

  private attach(p: Placed): void {
    const { info } = p;
    this.placed.set(info.key, p);
    this.stateFor(info.nodeName).add(info);
    let ns = this.byNamespace.get(info.namespace);
    if (!ns) this.byNamespace.set(info.namespace, (ns = new Map()));
    ns.set(info.key, info);
    if (info.requiredAntiAffinity.length) this.antiAffinity.set(info.key, info);
  }

  private detach(info: PodInfo): void {
    this.placed.delete(info.key);
    const state = this.nodes.get(info.nodeName);
    if (state) {
      state.remove(info);
      if (!state.known && state.pods.size === 0) this.nodes.delete(info.nodeName);
    }
    const ns = this.byNamespace.get(info.namespace);
    if (ns) {
      ns.delete(info.key);
      if (ns.size === 0) this.byNamespace.delete(info.namespace);
    }
    this.antiAffinity.delete(info.key);
  }
}
