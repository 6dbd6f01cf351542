/**
 * The view while nodes come up: one row per node (instance state, kubelet, readiness) redrawn
 * in place on a terminal; on anything else (CI logs, a test's pipe) one plain line per change,
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
  update(rows: readonly NodeRow[], headline: string): void;
  done(): void;
}

function table(rows: readonly NodeRow[]): string {
  const header: NodeRow = { name: 'NODE', role: 'ROLE', ip: 'INTERNAL-IP', instance: 'INSTANCE', node: 'STATUS' };
  const all = [header, ...rows];
  const keys: (keyof NodeRow)[] = ['name', 'role', 'ip', 'instance', 'node'];
  const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
  return all.map((r) => keys.map((k, i) => r[k].padEnd(widths[i]!)).join('   ').trimEnd()).join('\n');
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
      for (const r of rows) {
        const line = `  ${r.name} (${r.role}, ${r.ip}): instance ${r.instance}, node ${r.node}`;
        if (last.get(r.name) !== line) {
          stream.write(`${line}\n`);
          last.set(r.name, line);
        }
      }
    },
    done() {},
  };
}

export function renderSummary(o: { dataDir: string; kubeconfig: string; rows: readonly NodeRow[]; masters: number; workers: number; resumed: boolean; elapsedMs: number }): string {
  const lines = [
    '',
    `Shipyard cluster ${o.resumed ? 'resumed' : 'is up'}: ${o.masters} master(s), ${o.workers} worker(s), in ${(o.elapsedMs / 1000).toFixed(1)} s`,
    `  data directory: ${o.dataDir}`,
    `  kubeconfig:     ${o.kubeconfig}`,
    '',
    'Point kubectl at it:',
    `  export KUBECONFIG=${o.kubeconfig}`,
    '  kubectl get nodes -o wide',
    '',
    table(o.rows),
    '',
    `Node operations: shipyard node stop-kubelet|start-kubelet|reboot NODE --data-dir ${o.dataDir}`,
    'Stop with Ctrl-C (SIGINT) or SIGTERM; `shipyard up` on the same data directory resumes this cluster.',
    '',
  ];
  return lines.join('\n');
}
