/**
 * What `shipyard explain mcp/<pool>` needs to know, read once from the cluster: the pool, its
 * nodes with the daemon's annotations, and for a drain that a PodDisruptionBudget blocks, the
 * budget, the pod's owner and why its other replicas cannot run elsewhere (the scheduler's
 * FailedScheduling events). Reading is kept apart from rendering (`explain-pool.ts`).
 */
import type { CoreV1Event as V1Event, V1Deployment, V1Node, V1Pod, V1PodDisruptionBudget, V1ReplicaSet } from '@kubernetes/client-node';
import { compileLabelSelector } from '../../api/label-selector.ts';
import { nodeAnnotations, type MachineConfigPool } from '../../api/machineconfiguration/index.ts';
import { isNotFound, type ApiClient } from '../../runtime/client.ts';
import { resources } from '../../runtime/resources.ts';

export interface NodeFacts {
  readonly name: string;
  readonly ready: string;
  readonly unschedulable: boolean;
  readonly currentConfig?: string;
  readonly desiredConfig?: string;
  readonly state?: string;
  readonly reason?: string;
}

export interface Blocker {
  /** `namespace/name` of the pod the drain cannot evict, and of the budget in the way. */
  readonly pod: string;
  readonly budget: string;
  readonly budgetStatus?: { minAvailable?: string; maxUnavailable?: string; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number; disruptionsAllowed?: number };
  /** The workload the pod belongs to (`Deployment ns/name`), with its replica count. */
  readonly owner?: { kind: string; name: string; replicas?: number };
  /** The owner's other pods that are not running, and the scheduler's last word on each. */
  readonly pendingSiblings: readonly { name: string; message: string }[];
}

export interface PoolFacts {
  readonly pool: MachineConfigPool;
  readonly nodes: readonly NodeFacts[];
  /** Per node name, what blocks its drain (parsed from the daemon's reason). */
  readonly blockers: ReadonlyMap<string, Blocker>;
}

/** The daemon's drain failure: `... Cannot evict pod <ns>/<pod>: would violate PodDisruptionBudget <ns>/<pdb>`. */
const drainBlocked = /Cannot evict pod ([\w.-]+\/[\w.-]+): would violate PodDisruptionBudget ([\w.-]+\/[\w.-]+)/;

export function parseDrainBlocker(reason: string | undefined): { pod: string; budget: string } | undefined {
  const m = reason ? drainBlocked.exec(reason) : null;
  return m ? { pod: m[1]!, budget: m[2]! } : undefined;
}

function nodeFacts(n: V1Node): NodeFacts {
  const a = n.metadata?.annotations ?? {};
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return {
    name: n.metadata?.name ?? '',
    ready: ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown',
    unschedulable: n.spec?.unschedulable === true,
    currentConfig: a[nodeAnnotations.currentConfig],
    desiredConfig: a[nodeAnnotations.desiredConfig],
    state: a[nodeAnnotations.state],
    reason: a[nodeAnnotations.reason],
  };
}

const split = (ref: string): [string, string] => ref.split('/', 2) as [string, string];
const orUndefined = <T>(p: Promise<T>): Promise<T | undefined> => p.catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));

async function blockerFacts(client: ApiClient, pod: string, budget: string): Promise<Blocker> {
  const [ns, podName] = split(pod);
  const [budgetNs, budgetName] = split(budget);
  const pdb = await orUndefined(client.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, budgetNs, budgetName));
  const blocked = await orUndefined(client.get<V1Pod>(resources.pods, ns, podName));
  let owner: Blocker['owner'];
  let siblings: V1Pod[] = [];
  const ref = blocked?.metadata?.ownerReferences?.find((o) => o.controller);
  if (ref?.kind === 'ReplicaSet') {
    const rs = await orUndefined(client.get<V1ReplicaSet>(resources.replicaSets, ns, ref.name));
    const dep = rs?.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'Deployment');
    const d = dep ? await orUndefined(client.get<V1Deployment>(resources.deployments, ns, dep.name)) : undefined;
    owner = d ? { kind: 'Deployment', name: `${ns}/${dep!.name}`, replicas: d.spec?.replicas } : { kind: 'ReplicaSet', name: `${ns}/${ref.name}`, replicas: rs?.spec?.replicas };
    const all = await client.list<V1Pod>(resources.pods, ns);
    siblings = all.items.filter((p) => p.metadata?.name !== podName && p.metadata?.ownerReferences?.some((o) => o.controller && o.uid === ref.uid));
  } else if (ref) owner = { kind: ref.kind, name: `${ns}/${ref.name}` };
  const pending = siblings.filter((p) => p.status?.phase === 'Pending' || !p.spec?.nodeName);
  const events = pending.length ? (await client.list<V1Event>(resources.events, ns, { fieldSelector: 'reason=FailedScheduling' }).catch(() => ({ items: [] as V1Event[] }))).items : [];
  const lastWord = (p: V1Pod): string => {
    const own = events.filter((e) => e.involvedObject?.uid === p.metadata?.uid || e.involvedObject?.name === p.metadata?.name);
    const last = own.sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? ''))).at(-1);
    return last?.message ?? p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message ?? 'not scheduled yet';
  };
  const s = pdb?.spec;
  const st = pdb?.status;
  return {
    pod,
    budget,
    budgetStatus: pdb
      ? {
          minAvailable: s?.minAvailable === undefined ? undefined : String(s.minAvailable),
          maxUnavailable: s?.maxUnavailable === undefined ? undefined : String(s.maxUnavailable),
          currentHealthy: st?.currentHealthy,
          desiredHealthy: st?.desiredHealthy,
          expectedPods: st?.expectedPods,
          disruptionsAllowed: st?.disruptionsAllowed,
        }
      : undefined,
    owner,
    pendingSiblings: pending.map((p) => ({ name: p.metadata?.name ?? '', message: lastWord(p) })),
  };
}

export async function gatherPoolFacts(client: ApiClient, poolName: string): Promise<PoolFacts> {
  const pool = await client.get<MachineConfigPool>(resources.machineConfigPools, undefined, poolName);
  const selector = compileLabelSelector(pool.spec?.nodeSelector as never);
  const all = (await client.list<V1Node>(resources.nodes)).items;
  const matches = 'matches' in selector ? selector.matches : undefined;
  const nodes = matches ? all.filter((n) => matches(n.metadata?.labels ?? {})).map(nodeFacts) : [];
  nodes.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  const blockers = new Map<string, Blocker>();
  for (const n of nodes) {
    const b = parseDrainBlocker(n.reason);
    if (b) blockers.set(n.name, await blockerFacts(client, b.pod, b.budget));
  }
  return { pool, nodes, blockers };
}
