/**
 * The view while the cluster comes up: one row per node (instance state, kubelet, readiness),
 * then one per ClusterOperator while the CVO installs, redrawn in place on a terminal; on anything else (CI logs, a test's pipe) one plain line per change,
 * since redraw escapes would only garble a log.
 */
import { createLogUpdate } from 'log-update';

export interface NodeRow {
  name: string;
  role: string;
  ip: string;
  instance: string;
  node: string;
}

export interface ProgressView {
  /** Redraws `rows` (the first is the header; the first column names a row) under `headline`. */
  update(rows: readonly (readonly string[])[], headline: string): void;
  done(): void;
}

export function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(widths[i]!))).join('   ').trimEnd()).join('\n');
}

export function nodeTable(rows: readonly NodeRow[]): string[][] {
  return [['NODE', 'ROLE', 'INTERNAL-IP', 'INSTANCE', 'STATUS'], ...rows.map((r) => [r.name, r.role, r.ip, r.instance, r.node])];
}

export function createProgressView(stream: NodeJS.WriteStream = process.stdout): ProgressView {
  if (stream.isTTY) {
    const draw = createLogUpdate(stream);
    return {
      update: (rows, headline) => draw(`${headline}\n\n${table(rows)}\n`),
      done: () => draw.done(),
    };
  }
  const last = new Map<string, string>();
  let lastHeadline = '';
  return {
    update(rows, headline) {
      // The elapsed-seconds suffix changes every redraw; a log only needs a line when the rest does.
      const gist = headline.replace(/ \(\d+ s\)$/, '');
      if (gist !== lastHeadline) {
        stream.write(`${headline}\n`);
        lastHeadline = gist;
      }
      const [header, ...body] = rows;
      for (const r of body) {
        const line = `  ${r[0]}: ${r.slice(1).map((v, i) => `${(header?.[i + 1] ?? '').toLowerCase()} ${v}`).join(', ')}`;
        if (last.get(r[0] ?? '') !== line) {
          stream.write(`${line}\n`);
          last.set(r[0] ?? '', line);
        }
      }
    },
    done() {},
  };
}

export function renderSummary(o: { dataDir: string; kubeconfig: string; rows: readonly NodeRow[]; masters: number; workers: number; resumed: boolean; elapsedMs: number; version?: string; releaseImage?: string; operators?: readonly (readonly string[])[] }): string {
  const lines = [
    '',
    `Shipyard cluster ${o.resumed ? 'resumed' : 'is up'}: ${o.masters} master(s), ${o.workers} worker(s)${o.version ? `, version ${o.version}` : ''}, in ${(o.elapsedMs / 1000).toFixed(1)} s`,
    `  data directory: ${o.dataDir}`,
    `  kubeconfig:     ${o.kubeconfig}`,
    ...(o.releaseImage ? [`  release image:  ${o.releaseImage}`] : []),
    '',
    'Point kubectl at it:',
    `  export KUBECONFIG=${o.kubeconfig}`,
    '  kubectl get nodes -o wide',
    '',
    table(nodeTable(o.rows)),
    '',
    ...(o.operators && o.operators.length > 1 ? [table(o.operators), ''] : []),
    `Cluster status: shipyard status --data-dir ${o.dataDir}   (or kubectl get clusterversion,clusteroperators)`,
    `Node operations: shipyard node stop-kubelet|start-kubelet|reboot NODE --data-dir ${o.dataDir}`,
    'Stop with Ctrl-C (SIGINT) or SIGTERM; `shipyard up` on the same data directory resumes this cluster.',
    '',
  ];
  return lines.join('\n');
}
