/**
 * `shipyard up`: create or resume the cluster in a data directory, show nodes coming up, print
 * a one-screen summary, then stay in the foreground until SIGINT/SIGTERM, which stops every
 * process it started. A second `shipyard up` on a directory already in use is refused.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import pino from 'pino';
import { parseDuration } from '../../api/duration.ts';
import { createLogger } from '../../runtime/logger.ts';
import { loadOrCreateSpec } from './cluster-spec.ts';
import { startControlServer } from './control.ts';
import { startDatacenter } from './datacenter.ts';
import { openImageStore } from '../../node/images.ts';
import { gatherStatus } from '../cluster-status.ts';
import { bootstrapClusterVersion, buildReleases, DEFAULT_RELEASE_VERSION, loadRelease } from './install.ts';
import { createProgressView, nodeTable, renderSummary, type NodeRow } from './progress.ts';

export interface UpOptions {
  dataDir: string;
  masters: number;
  workers: number;
  mastersSchedulable: boolean;
  apiPort: number;
  cloudPort: number;
  explicitShape: boolean;
  nodeMonitorGracePeriod?: string;
  /** The CVO's reconcile interval (first start only; default the CVO's random 2–4 minutes). */
  cvoReconcileInterval?: string;
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
  if (opts.cvoReconcileInterval !== undefined) parseDuration(opts.cvoReconcileInterval); // refused before anything starts
  const { spec, resumed, ignored } = loadOrCreateSpec(dataDir, {
    masters: opts.masters,
    workers: opts.workers,
    mastersSchedulable: opts.mastersSchedulable,
    apiPort: opts.apiPort,
    cloudPort: opts.cloudPort,
    cvoReconcileInterval: opts.cvoReconcileInterval,
  });
  if (opts.explicitShape && ignored.length) process.stdout.write(`Resuming the existing cluster; ignoring ${ignored.join(', ')}.\n`);
  process.stdout.write(`${resumed ? 'Resuming' : 'Creating'} the Shipyard datacenter in ${dataDir} (${spec.masters} master(s), ${spec.workers} worker(s))\n`);

  // The release images exist before any node boots: the installer hands the first one to the CVO.
  const releases = buildReleases({ dataDir, images: openImageStore(join(dataDir, 'images')), reconcileInterval: spec.cvoReconcileInterval });
  logger.info(releases, 'release images built');
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
  let rows: NodeRow[];
  for (;;) {
    if (stopping) return;
    rows = await dc.rows();
    const ready = rows.filter((r) => r.node === 'Ready').length;
    view.update(nodeTable(rows), `Waiting for nodes: ${ready}/${spec.masters + spec.workers} Ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    if (rows.length === spec.masters + spec.workers && ready === rows.length) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  // The install: the CVO is bootstrapped (once) and installs the payload; progress is shown per
  // ClusterOperator until ClusterVersion says Available.
  const payload = loadRelease(dataDir, DEFAULT_RELEASE_VERSION);
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  for (;;) {
    if (stopping) return;
    try {
      await bootstrapClusterVersion(
        dc.client,
        payload,
        { apiServerURL: `https://127.0.0.1:${spec.apiPort}`, clusterNetworkCIDR: '127.128.0.0/9', hostPrefix: 24, serviceNetworkCIDR: '127.64.0.0/16', masters: spec.masters },
        abort.signal,
      );
      break;
    } catch (err) {
      logger.warn({ err: String(err) }, 'bootstrap of the cluster-version-operator failed; retrying');
      view.update([['STEP', 'STATUS'], ['bootstrap', `retrying: ${String(err).slice(0, 200)}`]], 'Bootstrapping the cluster-version-operator');
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  let version = '';
  let operatorRows: string[][] = [];
  for (;;) {
    if (stopping) return;
    const facts = await gatherStatus(dc.client).catch(() => undefined);
    if (facts) {
      const c = facts.cv?.status?.conditions ?? [];
      const progressing = c.find((x) => x.type === 'Progressing')?.message ?? 'waiting for the cluster-version-operator';
      operatorRows = [
        ['CLUSTEROPERATOR', 'VERSION', 'AVAILABLE', 'PROGRESSING', 'DEGRADED'],
        ...[...facts.operators]
          .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
          .map((o) => {
            const oc = o.status?.conditions ?? [];
            const st = (t: string) => oc.find((x) => x.type === t)?.status ?? '-';
            return [o.metadata?.name ?? '', o.status?.versions?.find((v) => v.name === 'operator')?.version ?? '-', st('Available'), st('Progressing'), st('Degraded')];
          }),
      ];
      view.update(operatorRows, `Installing: ${progressing.split('\n')[0]} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      if (c.some((x) => x.type === 'Available' && x.status === 'True')) {
        version = facts.cv?.status?.history?.find((h) => h.state === 'Completed')?.version ?? '';
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  view.done();
  process.stdout.write(renderSummary({ dataDir, kubeconfig: dc.kubeconfigPath, rows: await dc.rows(), masters: spec.masters, workers: spec.workers, resumed, elapsedMs: Date.now() - started, version, operators: operatorRows }));
}
