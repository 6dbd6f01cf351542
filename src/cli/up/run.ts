/**
 * `shipyard up`: create or resume the cluster in a data directory, show nodes coming up, print
 * a one-screen summary, then stay in the foreground until SIGINT/SIGTERM, which stops every
 * process it started. A second `shipyard up` on a directory already in use is refused.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import pino from 'pino';
import { createLogger } from '../../runtime/logger.ts';
import { loadOrCreateSpec } from './cluster-spec.ts';
import { startControlServer } from './control.ts';
import { startDatacenter } from './datacenter.ts';
import { createProgressView, renderSummary } from './progress.ts';

export interface UpOptions {
  dataDir: string;
  masters: number;
  workers: number;
  mastersSchedulable: boolean;
  apiPort: number;
  cloudPort: number;
  explicitShape: boolean;
  nodeMonitorGracePeriod?: string;
}

function claimDataDir(dataDir: string): () => void {
  const pidFile = join(dataDir, 'run', 'up.pid');
  mkdirSync(join(dataDir, 'run'), { recursive: true });
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    let alive = false;
    try {
      if (pid > 0 && pid !== process.pid) {
        process.kill(pid, 0);
        alive = readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('up');
      }
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`${dataDir} is in use by another \`shipyard up\` (pid ${pid}); stop it first`);
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  return () => rmSync(pidFile, { force: true });
}

export async function runUp(opts: UpOptions): Promise<void> {
  const started = Date.now();
  const { dataDir } = opts;
  const release = claimDataDir(dataDir);
  // Component logs go to a file: the terminal belongs to the progress view and the summary.
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  const logger = createLogger({ component: 'datacenter', destination: pino.destination({ dest: join(dataDir, 'logs', 'datacenter.log'), sync: false }) });
  const { spec, resumed, ignored } = loadOrCreateSpec(dataDir, {
    masters: opts.masters,
    workers: opts.workers,
    mastersSchedulable: opts.mastersSchedulable,
    apiPort: opts.apiPort,
    cloudPort: opts.cloudPort,
  });
  if (opts.explicitShape && ignored.length) process.stdout.write(`Resuming the existing cluster; ignoring ${ignored.join(', ')}.\n`);
  process.stdout.write(`${resumed ? 'Resuming' : 'Creating'} the Shipyard datacenter in ${dataDir} (${spec.masters} master(s), ${spec.workers} worker(s))\n`);

  const dc = await startDatacenter({ dataDir, spec, resumed, logger, nodeMonitorGracePeriod: opts.nodeMonitorGracePeriod });
  let control: Server | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (signal: string): Promise<void> =>
    (stopping ??= (async () => {
      process.stdout.write(`\n${signal}: stopping every node and pod...\n`);
      control?.close();
      await dc.stop();
      release();
      process.stdout.write('Stopped. `shipyard up` on the same data directory resumes this cluster.\n');
    })());
  process.once('SIGINT', () => void stop('SIGINT').finally(() => process.exit(0)));
  process.once('SIGTERM', () => void stop('SIGTERM').finally(() => process.exit(0)));

  control = await startControlServer(dataDir, { node: (action, name) => dc.nodeAction(action, name) });

  const view = createProgressView();
  for (;;) {
    if (stopping) return;
    const rows = await dc.rows();
    const ready = rows.filter((r) => r.node === 'Ready').length;
    view.update(rows, `Waiting for nodes: ${ready}/${spec.masters + spec.workers} Ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    if (rows.length === spec.masters + spec.workers && ready === rows.length) {
      view.done();
      process.stdout.write(renderSummary({ dataDir, kubeconfig: dc.kubeconfigPath, rows, masters: spec.masters, workers: spec.workers, resumed, elapsedMs: Date.now() - started }));
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
