/**
 * Node IPAM: every Node gets a `spec.podCIDR` (a /24 by default) out of the cluster range,
 * 127.128.0.0/9, from which its kubelet hands out pod IPs. The allocation map is rebuilt from
 * the Nodes themselves, so nothing but the API holds state, and a range is never given twice
 * while its node exists.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { resources } from '../../runtime/resources.ts';
import { SubnetRange } from './cidr.ts';

export interface NodeIpamOptions {
  clusterCIDR: string;
  nodeCIDRMaskSize: number;
}

export function createNodeIpamController(ctx: ControllerContext, opts: NodeIpamOptions): Controller {
  const range = new SubnetRange(opts.clusterCIDR, opts.nodeCIDRMaskSize);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  /** index → node name; rebuilt lazily from the cache before each decision. */
  let cursor = 0;

  const used = (): Map<number, string> => {
    const m = new Map<number, string>();
    for (const n of nodes.store.list()) {
      const i = n.spec?.podCIDR ? range.indexOf(n.spec.podCIDR) : undefined;
      if (i !== undefined) m.set(i, n.metadata!.name!);
    }
    return m;
  };
  const pending = new Map<number, string>();

  const reconcile = async (name: string): Promise<void> => {
    const node = nodes.store.get(name);
    if (!node || node.spec?.podCIDR) {
      for (const [i, n] of pending) if (n === name) pending.delete(i);
      return;
    }
    const taken = used();
    for (const [i, n] of pending) taken.set(i, n);
    let chosen: number | undefined;
    for (let k = 0; k < range.count; k++) {
      const i = (cursor + k) % range.count;
      if (!taken.has(i)) {
        chosen = i;
        break;
      }
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

  const controller = new Controller({ name: 'nodeipam', reconcile, workers: 1, observer: ctx.metrics?.forController('nodeipam') });
  controller.watch(nodes);
  return controller;
}
