/**
 * The nodelink controller (OpenShift's nodelink-controller): links every Node to its Machine
 * (link.ts), keyed by Node. A Machine event maps to the Node it links to (none while the Machine
 * is being deleted, as upstream).
 *
 * The Machine's `status.nodeRef` (with `lastUpdated`) is written when it does not name the Node
 * yet, and again whenever the Node's readiness flips, as remembered per Node in memory: upstream
 * rewrites it then so that Machine watchers (the machine and MachineSet controllers, health
 * checks) hear of the flip. The Node is patched only when something is missing from it, and
 * not again while the cache still shows the version the last patch was made from: the
 * Machine's nodeRef write brings the Node back at once, usually before the cache has shown the
 * patch, and the patch's own event brings it back anyway.
 */
import type { V1Node } from '@kubernetes/client-node';
import { Machine } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { Informer } from '../../../runtime/informer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import {
  isNodeReady,
  machineInternalIPs,
  machineOfNode,
  machineProviderIDs,
  nodeChange,
  nodeInternalIPs,
  nodeOfMachine,
  nodePatch,
  nodeProviderIDs,
  nodeRefCurrent,
  nodeRefOf,
  type LinkIndex,
  type MachineView,
  type Node,
} from './link.ts';

export const MACHINES = refOf(Machine);

export interface NodeLinkControllerOptions {
  /** Only Machines of this namespace (the component's `--namespace`); every namespace when undefined. */
  readonly namespace?: string;
  /** Concurrent reconciles (distinct Nodes); default 1, as upstream. */
  readonly workers?: number;
}

const NAME = 'nodelink';
const PROVIDER_ID_INDEX = 'nodelink.provider-id';
const INTERNAL_IP_INDEX = 'nodelink.internal-ip';

function linkIndex<T extends V1Node | Machine>(informer: Informer<T>): LinkIndex<DeepReadonly<T>> {
  return {
    byProviderID: (id) => informer.store.byIndex(PROVIDER_ID_INDEX, id),
    byInternalIP: (ip) => informer.store.byIndex(INTERNAL_IP_INDEX, ip),
  };
}

export function createNodeLinkController(ctx: ControllerContext, options: NodeLinkControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const machines = ctx.informers.informer<Machine>(MACHINES, options.namespace ? { namespace: options.namespace } : {});
  nodes.addIndexer(PROVIDER_ID_INDEX, nodeProviderIDs);
  nodes.addIndexer(INTERNAL_IP_INDEX, nodeInternalIPs);
  machines.addIndexer(PROVIDER_ID_INDEX, machineProviderIDs);
  machines.addIndexer(INTERNAL_IP_INDEX, machineInternalIPs);
  const nodeIndex = linkIndex(nodes);
  const machineIndex = linkIndex(machines);
  /** Each Node's readiness when its Machine's nodeRef was last written. */
  const readiness = new Map<string, boolean>();
  /** Each Node's resourceVersion when this controller last patched it. */
  const patchedFrom = new Map<string, string | undefined>();

  async function reconcile(name: string): Promise<ReconcileResult> {
    const node = nodes.store.get(name);
    if (!node) {
      readiness.delete(name);
      patchedFrom.delete(name);
      return;
    }
    const match = machineOfNode(node, machineIndex);
    if (match.error) throw new Error(`failed to find machine from node "${name}": ${match.error}`);
    const machine = match.found;
    if (!machine) {
      logger.debug({ node: name }, 'no machine for node');
      return;
    }
    if (node.metadata?.deletionTimestamp) {
      readiness.delete(name);
      return;
    }
    await linkMachine(machine, node);
    if (patchedFrom.has(name) && patchedFrom.get(name) === node.metadata?.resourceVersion) return;
    patchedFrom.delete(name);
    const change = nodeChange(node, machine);
    if (!change) return;
    await ctx.client.patch(resources.nodes, undefined, name, nodePatch(node, change), { type: 'merge' });
    patchedFrom.set(name, node.metadata?.resourceVersion);
    logger.info({ node: name, machine: `${machine.metadata?.namespace}/${machine.metadata?.name}`, labels: Object.keys(change.labels ?? {}), annotations: Object.keys(change.annotations ?? {}), taints: change.taints?.length }, 'updated node from its machine');
  }

  async function linkMachine(machine: MachineView, node: Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    const ready = isNodeReady(node);
    if (nodeRefCurrent(machine, node) && readiness.get(name) === ready) return;
    // A merge patch on the status subresource: no resourceVersion, so the machine controller's own status writes never conflict with it.
    const status = { nodeRef: nodeRefOf(node), lastUpdated: formatTimestamp(ctx.clock.wallNow()) };
    await ctx.client.patch(MACHINES, machine.metadata?.namespace, machine.metadata?.name ?? '', { status }, { type: 'merge', subresource: 'status' });
    readiness.set(name, ready);
    logger.info({ node: name, machine: `${machine.metadata?.namespace}/${machine.metadata?.name}`, ready }, 'updated nodeRef');
  }

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'sync failed'),
    reconcile,
  });
  controller.watch(nodes);
  controller.watchMapped(machines, (m) => {
    if (m.metadata?.deletionTimestamp) return [];
    const found = nodeOfMachine(m, nodeIndex).found;
    return found?.metadata?.name ? [found.metadata.name] : [];
  });
  return controller;
}
