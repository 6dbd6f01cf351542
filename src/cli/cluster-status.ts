/**
 * `shipyard status`: the cluster on one screen, as an admin asks about it after `oc get
 * clusterversion,clusteroperators`: the version and what the CVO is doing, whether it is paused
 * (its Deployment scaled to 0) or has unmanaged overrides, every ClusterOperator, and the nodes.
 */
import { existsSync } from 'node:fs';
import type { ClusterOperator, ClusterVersion } from '../api/config/index.ts';
import { clusterOperatorMessage } from '../api/config/index.ts';
import { ApiClient } from '../runtime/client.ts';
import { ClientConfig } from '../runtime/kubeconfig.ts';
import { resources } from '../runtime/resources.ts';
import { CVO_NAMESPACE } from '../operators/cluster-version/refs.ts';
import { table } from './up/progress.ts';

type Row = readonly string[];

function since(time: string | undefined, now: number): string {
  if (!time) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(time)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const cond = (conditions: readonly { type: string; status: string; message?: string; lastTransitionTime?: string }[] | undefined, type: string) => conditions?.find((c) => c.type === type);

export interface StatusFacts {
  readonly cv: ClusterVersion | undefined;
  readonly operators: readonly ClusterOperator[];
  readonly cvoReplicas: number | undefined;
  readonly nodes: readonly { name: string; ready: string; roles: string }[];
}

export function renderStatus(f: StatusFacts, now = Date.now()): string {
  const out: string[] = [];
  const cv = f.cv;
  if (!cv) {
    out.push('ClusterVersion: not created yet (the installer creates it when `shipyard up` installs the cluster)');
  } else {
    const c = cv.status?.conditions;
    const completed = cv.status?.history?.find((h) => h.state === 'Completed')?.version ?? '';
    out.push(table([
      ['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'SINCE', 'STATUS'],
      [cv.metadata?.name ?? 'version', completed, cond(c, 'Available')?.status ?? '', cond(c, 'Progressing')?.status ?? '', since(cond(c, 'Progressing')?.lastTransitionTime, now), cond(c, 'Progressing')?.message ?? ''],
    ]));
    const notes: string[] = [];
    if (f.cvoReplicas === 0) notes.push(`The cluster-version-operator is scaled to 0 (${CVO_NAMESPACE}/cluster-version-operator): nothing is being reconciled; scale it back to 1 to resume.`);
    const failing = cond(c, 'Failing');
    if (failing?.status === 'True') notes.push(`Failing: ${failing.message ?? ''}`);
    const upgradeable = cond(c, 'Upgradeable');
    if (upgradeable?.status === 'False') notes.push(`Upgradeable=False (${(upgradeable as { reason?: string }).reason ?? ''}): ${upgradeable.message ?? ''}`);
    const unmanaged = (cv.spec?.overrides ?? []).filter((o) => o.unmanaged);
    for (const o of unmanaged) notes.push(`Unmanaged: ${o.kind} ${o.group ? `${o.group} ` : ''}${o.namespace ? `${o.namespace}/` : ''}${o.name} is not reconciled by the CVO`);
    const history = cv.status?.history ?? [];
    if (history.length) notes.push(`History: ${history.slice(0, 5).map((h) => `${h.version} ${h.state}`).join(', ')}${history.length > 5 ? ', …' : ''}`);
    if (cv.spec?.desiredUpdate?.version || cv.spec?.desiredUpdate?.image) notes.push(`Desired update: ${cv.spec.desiredUpdate.version ?? ''} ${cv.spec.desiredUpdate.image ?? ''}`.trimEnd());
    if (notes.length) out.push('', ...notes);
  }
  out.push('');
  const coRows: Row[] = [['NAME', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED', 'SINCE', 'MESSAGE']];
  for (const co of [...f.operators].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
    const c = co.status?.conditions;
    coRows.push([
      co.metadata?.name ?? '',
      co.status?.versions?.find((v) => v.name === 'operator')?.version ?? '',
      cond(c, 'Available')?.status ?? '',
      cond(c, 'Progressing')?.status ?? '',
      cond(c, 'Degraded')?.status ?? '',
      since(cond(c, 'Available')?.lastTransitionTime, now),
      clusterOperatorMessage(c) ?? '',
    ]);
  }
  out.push(coRows.length > 1 ? table(coRows) : 'No ClusterOperators yet.');
  out.push('');
  out.push(table([['NODE', 'STATUS', 'ROLES'], ...f.nodes.map((n) => [n.name, n.ready, n.roles])]));
  return out.join('\n') + '\n';
}

export async function gatherStatus(client: ApiClient): Promise<StatusFacts> {
  const cv = await client.get<ClusterVersion>(resources.clusterVersions, undefined, 'version').catch(() => undefined);
  const operators = (await client.list<ClusterOperator>(resources.clusterOperators).catch(() => ({ items: [] as ClusterOperator[] }))).items;
  const deployment = await client.get<{ metadata?: object; spec?: { replicas?: number } }>(resources.deployments, CVO_NAMESPACE, 'cluster-version-operator').catch(() => undefined);
  const nodes = (await client.list<{ metadata?: { name?: string; labels?: Record<string, string> }; spec?: { unschedulable?: boolean }; status?: { conditions?: { type: string; status: string }[] } }>(resources.nodes)).items.map((n) => {
    const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    const roles = Object.keys(n.metadata?.labels ?? {}).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice('node-role.kubernetes.io/'.length));
    return { name: n.metadata?.name ?? '', ready: (ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown') + (n.spec?.unschedulable ? ',SchedulingDisabled' : ''), roles: roles.sort().join(',') || '<none>' };
  });
  nodes.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  return { cv, operators, cvoReplicas: deployment ? (deployment.spec?.replicas ?? 1) : undefined, nodes };
}

export async function printStatus(kubeconfigPath: string): Promise<string> {
  if (!existsSync(kubeconfigPath)) throw new Error(`${kubeconfigPath} does not exist: no cluster has been created in this data directory (shipyard up creates one)`);
  const kc = new ClientConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new ApiClient(kc, { userAgent: 'shipyard-status', timeoutMs: 10_000 });
  try {
    return renderStatus(await gatherStatus(client));
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET') throw new Error(`cannot reach the cluster at ${kc.getCurrentCluster()?.server ?? '?'}: is \`shipyard up\` running on this data directory?`);
    throw err;
  } finally {
    client.close();
  }
}
