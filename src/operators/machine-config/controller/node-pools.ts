/**
 * Which pool a Node belongs to, as the MCO decides it: the pools whose `nodeSelector` matches
 * the node's labels (a missing or empty selector matches no node, so a half-made pool never
 * swallows the cluster); of those, `master` wins over everything (a control-plane node never
 * takes a custom role's configuration), one custom pool wins over `worker` (custom pools build
 * on the worker configuration), and a node matched by two custom pools belongs to none: which
 * configuration it should run is ambiguous, so it is reported and left alone.
 */
import { compileLabelSelector, isEmptySelector, selectsNothing, type LabelMatcher } from '../../../api/label-selector.ts';
import { masterPool, workerPool, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { Node } from './node-state.ts';

type Pool = DeepReadonly<MachineConfigPool>;

export type PoolForNode =
  | { readonly pool: Pool; readonly error?: undefined; readonly warning?: string }
  | { readonly pool?: undefined; readonly error?: string };

/**
 * Compiled selectors by pool object: cached objects are frozen and replaced, never changed, so
 * a pool's selector is compiled once per version, not once per node per pass.
 */
const compiled = new WeakMap<Pool, LabelMatcher>();

/** Whether the pool's node selector selects this node; a nil, empty or invalid selector selects none. */
export function poolSelectsNode(pool: Pool, node: Node): boolean {
  let matches = compiled.get(pool);
  if (!matches) {
    const selector = pool.spec?.nodeSelector;
    matches = !selector || isEmptySelector(selector) ? selectsNothing : (compileLabelSelector(selector).matches ?? selectsNothing);
    compiled.set(pool, matches);
  }
  return matches(node.metadata?.labels);
}

/** The node's primary pool: the one that targets it. No pool at all is not an error. */
export function primaryPoolForNode(node: Node, pools: readonly Pool[]): PoolForNode {
  const matching = pools.filter((p) => poolSelectsNode(p, node));
  if (matching.length === 0) return {};
  const master = matching.find((p) => p.metadata?.name === masterPool);
  const worker = matching.find((p) => p.metadata?.name === workerPool);
  const custom = matching.filter((p) => p !== master && p !== worker);
  const name = node.metadata?.name ?? '';
  if (custom.length > 1) {
    const names = custom.map((p) => p.metadata?.name ?? '').sort();
    return { error: `node ${name} belongs to ${custom.length} custom roles, cannot proceed with this Node (pools ${names.join(', ')})` };
  }
  if (custom.length === 1 && master) {
    return {
      pool: master,
      warning: `Found master node that matches selector for custom pool ${custom[0]!.metadata?.name ?? ''}, defaulting to master. This node will not have any custom role configuration as a result. Please review the node to make sure this is intended`,
    };
  }
  if (custom.length === 1) return { pool: custom[0]! };
  return { pool: master ?? worker! };
}

/** The nodes whose primary pool is `pool`. */
export function nodesOfPool(pool: Pool, nodes: readonly Node[], pools: readonly Pool[]): Node[] {
  const name = pool.metadata?.name;
  return nodes.filter((n) => poolSelectsNode(pool, n) && primaryPoolForNode(n, pools).pool?.metadata?.name === name);
}
