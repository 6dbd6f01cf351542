/**
 * How a Node and its Machine are linked, as OpenShift's nodelink controller links them: by
 * provider ID (`node.spec.providerID == machine.spec.providerID`), else by the Node's first
 * InternalIP among the Machine's InternalIP addresses; more than one candidate is an error, not a
 * guess. Once linked, the Machine's `status.nodeRef` names the Node, and the Node carries the
 * annotation `machine.openshift.io/machine: <namespace>/<name>`, the Machine's `spec.metadata`
 * labels and annotations (a Machine's value wins over the Node's for the same key) and every
 * taint of `spec.taints` whose key and effect the Node lacks. Nothing is ever removed from the
 * Node: other components label and taint Nodes too, and no single writer owns those lists.
 *
 * Pure: the index functions the controller's caches use, the lookup over them, and the change
 * to make to a Node.
 */
import type { V1Node, V1ObjectReference, V1Taint } from '@kubernetes/client-node';
import { machineAnnotations, type Machine } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export type Node = DeepReadonly<V1Node>;
export type MachineView = DeepReadonly<Machine>;

const internalIP = 'InternalIP';

export const nodeProviderIDs = (node: Node): string[] => (node.spec?.providerID ? [node.spec.providerID] : []);
export const nodeInternalIPs = (node: Node): string[] => (node.status?.addresses ?? []).filter((a) => a.type === internalIP).map((a) => a.address);
export const machineProviderIDs = (m: MachineView): string[] => (m.spec?.providerID ? [m.spec.providerID] : []);
export const machineInternalIPs = (m: MachineView): string[] => (m.status?.addresses ?? []).filter((a) => a.type === internalIP).map((a) => a.address);

/** Lookups by the index values above; each returns every cached object under that value. */
export interface LinkIndex<T> {
  byProviderID(id: string): readonly T[];
  byInternalIP(ip: string): readonly T[];
}

export type Match<T> = { readonly found: T; readonly error?: undefined } | { readonly found?: undefined; readonly error?: string };

function pick<T>(candidates: readonly T[], what: string): Match<T> {
  if (candidates.length > 1) return { error: `expected 1 ${what}, got ${candidates.length}` };
  return candidates.length === 1 ? { found: candidates[0]! } : {};
}

/** The Machine of `node`: by provider ID, else by the Node's first InternalIP. */
export function machineOfNode(node: Node, machines: LinkIndex<MachineView>): Match<MachineView> {
  const id = node.spec?.providerID;
  if (id) {
    const byID = pick(machines.byProviderID(id), `machine with providerID ${id}`);
    if (byID.found || byID.error) return byID;
  }
  const ip = nodeInternalIPs(node)[0];
  return ip ? pick(machines.byInternalIP(ip), `machine with internal IP ${ip}`) : {};
}

/** The Node of `machine`: by provider ID, else by the Machine's first InternalIP. */
export function nodeOfMachine(machine: MachineView, nodes: LinkIndex<Node>): Match<Node> {
  const id = machine.spec?.providerID;
  if (id) {
    const byID = pick(nodes.byProviderID(id), `node with providerID ${id}`);
    if (byID.found || byID.error) return byID;
  }
  const ip = machineInternalIPs(machine)[0];
  return ip ? pick(nodes.byInternalIP(ip), `node with internal IP ${ip}`) : {};
}

export const isNodeReady = (node: Node): boolean => node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/** The reference the Machine's `status.nodeRef` holds for `node`. */
export function nodeRefOf(node: Node): V1ObjectReference {
  return { kind: 'Node', name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' };
}

/** Whether the Machine's nodeRef already names this very Node (kind, name and uid). */
export function nodeRefCurrent(machine: MachineView, node: Node): boolean {
  const ref = machine.status?.nodeRef;
  const want = nodeRefOf(node);
  return !!ref && ref.kind === want.kind && ref.name === want.name && ref.uid === want.uid;
}

/** What to add to a Node: only what is missing or different; undefined when nothing is. */
export interface NodeChange {
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  /** The Node's whole new taint list (its taints first, then the Machine's additions): the list is atomic. */
  readonly taints?: V1Taint[];
}

function missing(wanted: Readonly<Record<string, string>>, have: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(wanted)) {
    if (have?.[k] !== v) (out ??= {})[k] = v;
  }
  return out;
}

export function nodeChange(node: Node, machine: MachineView): NodeChange | undefined {
  const meta = machine.spec?.metadata;
  const annotations = missing(
    { [machineAnnotations.nodeMachine]: `${machine.metadata?.namespace ?? ''}/${machine.metadata?.name ?? ''}`, ...(meta?.annotations ?? {}) },
    node.metadata?.annotations,
  );
  const labels = missing({ ...(meta?.labels ?? {}) }, node.metadata?.labels);
  const have = node.spec?.taints ?? [];
  const added: V1Taint[] = [];
  for (const t of machine.spec?.taints ?? []) {
    const present = [...have, ...added].some((n) => n.key === t.key && n.effect === t.effect);
    if (!present) added.push(structuredClone(t) as V1Taint);
  }
  if (!annotations && !labels && added.length === 0) return undefined;
  const change: { -readonly [K in keyof NodeChange]: NodeChange[K] } = {};
  if (labels) change.labels = labels;
  if (annotations) change.annotations = annotations;
  if (added.length) change.taints = [...(structuredClone(have) as V1Taint[]), ...added];
  return change;
}

/**
 * The change as a JSON merge patch. A new taint list replaces the Node's whole list, so it is
 * sent on the resourceVersion it was computed from (a 409 if someone tainted the Node meanwhile);
 * labels and annotations merge key by key and need no such precondition.
 */
export function nodePatch(node: Node, change: NodeChange): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (change.labels) metadata.labels = change.labels;
  if (change.annotations) metadata.annotations = change.annotations;
  const patch: Record<string, unknown> = { metadata };
  if (change.taints) {
    metadata.resourceVersion = node.metadata?.resourceVersion;
    patch.spec = { taints: change.taints };
  }
  return patch;
}
