/**
 * Node IPAM: every Node gets a `spec.podCIDR` (a /24 by default) out of the cluster range,
 * 127.128.0.0/9, from which its kubelet hands out pod IPs. The allocation map is kept from
 * the Nodes themselves (their informer), so nothing but the API holds state, and a range is
 * never given twice while its node exists.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { SubnetRange } from '../../api/cidr.ts';

export interface NodeIpamOptions {
  clusterCIDR: string;
  nodeCIDRMaskSize: number;
}

export function createNodeIpamController(ctx: ControllerContext, opts: NodeIpamOptions): Controller {
  const range = new SubnetRange(opts.clusterCIDR, opts.nodeCIDRMaskSize);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  let cursor = 0;

  /**
   * index → node name, for the ranges the cache shows assigned; kept from the informer's events
   * rather than rebuilt per decision, which cost a pass over every node per node (3,500 nodes
   * registering at once took minutes to get their ranges).
   */
  const assigned = new Map<number, string>();
  const assignedTo = new Map<string, number>();
  const release = (name: string, i: number): void => {
    if (assigned.get(i) !== name) return;
    assigned.delete(i);
    // Two nodes given one range by hand: the range stays taken while either has it.
    for (const [other, j] of assignedTo) if (j === i) return void assigned.set(i, other);
  };
  const track = (node: DeepReadonly<V1Node>): void => {
    const name = node.metadata?.name ?? '';
    const i = node.spec?.podCIDR ? range.indexOf(node.spec.podCIDR) : undefined;
    const before = assignedTo.get(name);
    if (before === i) return;
    if (i === undefined) assignedTo.delete(name);
    else {
      assignedTo.set(name, i);
      assigned.set(i, name);
    }
    if (before !== undefined) release(name, before);
  };
  const untrack = (node: DeepReadonly<V1Node>): void => {
    const name = node.metadata?.name ?? '';
    const before = assignedTo.get(name);
    assignedTo.delete(name);
    if (before !== undefined) release(name, before);
  };
  nodes.on('add', track);
  nodes.on('update', track);
  nodes.on('delete', untrack);
  const pending = new Map<number, string>();

  const reconcile = async (name: string): Promise<void> => {
    const node = nodes.store.get(name);
    if (!node || node.spec?.podCIDR) {
      for (const [i, n] of pending) if (n === name) pending.delete(i);
      return;
    }
    // Nothing below awaits until the choice is recorded in `pending`, so concurrent workers never pick the same range.
    // A retry after a failed write offers the same range again rather than holding a second one.
    let chosen: number | undefined;
    for (const [i, n] of pending) if (n === name) chosen = i;
    for (let k = 0; chosen === undefined && k < range.count; k++) {
      const i = (cursor + k) % range.count;
      if (!assigned.has(i) && !pending.has(i)) chosen = i;
    }
    if (chosen === undefined) {
      ctx.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name } }, 'Warning', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable (no /${range.mask} left in ${opts.clusterCIDR})`);
      throw new Error(`no pod CIDR left in ${opts.clusterCIDR} for node ${name}`);
    }
    cursor = chosen + 1;
    const cidr = range.cidr(chosen);
    // Held until the informer shows the write, so a second node in the same breath gets another range.
    pending.set(chosen, name);
    await ctx.client.patch(resources.nodes, undefined, name, { spec: { podCIDR: cidr, podCIDRs: [cidr] } });
    ctx.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: node.metadata?.uid } }, 'Normal', 'CIDRAssignmentSucceeded', `Node ${name} was assigned pod CIDR ${cidr}`);
  };

  // kube's range allocator writes with 30 workers: one at a time, a cluster's worth of new nodes waits on round trips.
  const controller = new Controller({ name: 'nodeipam', reconcile, workers: 30, observer: ctx.metrics?.forController('nodeipam') });
  controller.watch(nodes);
  return controller;
}
