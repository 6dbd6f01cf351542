/**
 * `shipyard up`: create or resume the cluster in a data directory, show nodes coming up, print
 * a one-screen summary, then stay in the foreground until SIGINT, SIGTERM or SIGHUP, which stop
 * every process it started, at any moment, boot included. A second `shipyard up` on a directory
 * already in use is refused; a new cluster gets an address block nothing else uses, and a
 * resumed one whose addresses are taken fails before anything starts.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import pino from 'pino';
import { parseDuration } from '../../api/duration.ts';
import { createLogger } from '../../runtime/logger.ts';
import { loadOrCreateSpec, masterName, workerName, type ClusterSpec } from './cluster-spec.ts';
import { endpointsFree, ensureEndpointsFree, type Endpoint } from './preflight.ts';
import { addressBlock, BLOCK_COUNT, chooseAddressBlock, type AddressBlock } from './address-block.ts';
import { claimBlock, CLAIM_PORT, type BlockClaim } from './block-claim.ts';
import { killLeftovers } from './reaper.ts';
import { loadState } from '../../cloud/state.ts';
import { readCloudToken } from '../../cloud/token.ts';
import { IpAllocator } from '../../cloud/ip-allocator.ts';
import { startControlServer } from './control.ts';
import { startDatacenter, type Datacenter } from './datacenter.ts';
import { openImageStore } from '../../node/images.ts';
import { gatherStatus } from '../cluster-status.ts';
import { machineConfigServer } from '../../api/machineconfiguration/index.ts';
import { bootstrapClusterVersion, buildReleases, DEFAULT_RELEASE_VERSION, releaseImage, TEST_RELEASE_VERSION } from './install.ts';
import { loadReleaseImage, releaseRef } from '../release.ts';
import { createProgressView, nodeTable, renderSummary, type NodeRow } from './progress.ts';
import { capYoungGeneration } from '../heap-growth.ts';

/**
 * Whether the install (or, on a resume, the work) can go on: a new cluster waits for every node
 * it launched; a resumed one for its masters and whatever instance is running, since its
 * MachineSets may have been scaled since it was created.
 */
function nodesUp(rows: readonly NodeRow[], spec: ClusterSpec, resumed: boolean): boolean {
  if (!resumed) return rows.length === spec.masters + spec.workers && rows.every((r) => r.node === 'Ready');
  const live = rows.filter((r) => r.instance === 'pending' || r.instance === 'running');
  return live.filter((r) => r.role === 'master').length >= spec.masters && live.every((r) => r.node === 'Ready');
}

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
  /** The release image to install (first start only); default SHIPYARD_INSTALL_RELEASE_IMAGE_OVERRIDE, then Shipyard's own. */
  releaseImage?: string;
  /** The address block of a new cluster (first start only); default the first one free. */
  addressBlock?: number;
}

/**
 * The release a new cluster installs when not Shipyard's default: `--release-image`, else the
 * environment variable, as openshift-install takes OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE.
 * A custom image is loaded here, before anything starts, so a wrong reference is a message.
 */
function releaseOverride(opts: UpOptions): string | undefined {
  const fromEnv = process.env.SHIPYARD_INSTALL_RELEASE_IMAGE_OVERRIDE || undefined;
  const given = opts.releaseImage ?? fromEnv;
  if (given === undefined) return undefined;
  const ref = releaseRef(given);
  if (opts.releaseImage === undefined) process.stdout.write(`Warning: release image overridden by SHIPYARD_INSTALL_RELEASE_IMAGE_OVERRIDE: ${ref}. The cluster will not run Shipyard's default release.\n`);
  const builtin = [DEFAULT_RELEASE_VERSION, TEST_RELEASE_VERSION].some((v) => releaseImage(v) === ref);
  if (!builtin && !existsSync(join(opts.dataDir, 'cluster.json'))) loadReleaseImage(opts.dataDir, ref);
  return ref;
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
        alive = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('up');
      }
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`${dataDir} is in use by another \`shipyard up\` (pid ${pid}); stop it first`);
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  return () => rmSync(pidFile, { force: true });
}

/** A terminal that has gone away must not turn the stop that follows into a crash. */
function say(text: string): void {
  try {
    process.stdout.write(text);
  } catch {
    // stdout is gone; the stop goes on.
  }
}

type Shape = Pick<ClusterSpec, 'masters' | 'workers' | 'apiPort' | 'cloudPort'>;

/** What this cluster will listen on: the load balancer, the cloud API, each node's kubelet and master-0's API server. */
async function clusterEndpoints(dataDir: string, shape: Shape, block: AddressBlock, resumed: boolean): Promise<Endpoint[]> {
  const nodes: { name: string; ip: string }[] = [];
  if (resumed) {
    for (const i of (await loadState(dataDir)).instances) if (i.state !== 'terminated') nodes.push({ name: i.name, ip: i.privateIP });
  } else {
    // The addresses a new cloud will hand out, masters first, as the datacenter launches them.
    const ips = new IpAllocator(undefined, [], block.nodeCIDR);
    for (let i = 0; i < shape.masters; i++) nodes.push({ name: masterName(i), ip: ips.allocate() });
    for (let i = 0; i < shape.workers; i++) nodes.push({ name: workerName(i), ip: ips.allocate() });
  }
  return [
    { host: block.host, port: shape.apiPort, what: 'the load balancer (--api-port)' },
    { host: block.host, port: shape.cloudPort, what: 'the cloud API (--cloud-port)' },
    { host: block.host, port: machineConfigServer.securePort, what: 'the machine-config server\'s load balancer' },
    ...nodes.map((n) => ({ host: n.ip, port: 10250, what: `node ${n.name}'s kubelet` })),
    ...nodes.filter((n) => n.name === masterName(0)).map((n) => ({ host: n.ip, port: 6443, what: `node ${n.name}'s kube-apiserver` })),
  ];
}

/**
 * A new cluster claims the first address block no other `shipyard up` holds and nothing listens
 * on (block-claim.ts); if none is free, the error says what holds block 0.
 */
async function newClusterBlock(dataDir: string, shape: Shape): Promise<BlockClaim> {
  let claim: BlockClaim | undefined;
  await chooseAddressBlock(
    async (b) => {
      const held = await claimBlock(b);
      if (!held) return false;
      if (await endpointsFree(await clusterEndpoints(dataDir, shape, b, false))) return !!(claim = held);
      held.release();
      return false;
    },
    async () => {
      try {
        await ensureEndpointsFree(await clusterEndpoints(dataDir, shape, addressBlock(0), false));
        await ensureEndpointsFree([claimEndpoint(addressBlock(0))]);
      } catch (err) {
        throw new Error(`every one of the ${BLOCK_COUNT} address blocks is in use by other clusters; in block 0, ${(err as Error).message.replace(/^cannot start: /, '')}`);
      }
      throw new Error(`every one of the ${BLOCK_COUNT} address blocks is in use by other clusters`);
    },
  );
  return claim!;
}

const claimEndpoint = (block: AddressBlock): Endpoint => ({ host: block.host, port: CLAIM_PORT, what: `address block ${block.index ?? 0}` });

/** The block `--address-block` names, for a new cluster: taken is an error naming what holds it. */
async function claimChosenBlock(dataDir: string, shape: Shape, block: AddressBlock): Promise<BlockClaim> {
  const claim = await claimOwnBlock(block);
  try {
    await ensureEndpointsFree(await clusterEndpoints(dataDir, shape, block, false));
  } catch (err) {
    claim.release();
    throw err;
  }
  return claim;
}

/** A resumed cluster's own block, once its addresses are free: held until it stops. */
async function claimOwnBlock(block: AddressBlock): Promise<BlockClaim> {
  const claim = await claimBlock(block);
  if (claim) return claim;
  await ensureEndpointsFree([claimEndpoint(block)]);
  // Released between the bind and the look at /proc: try once more.
  const again = await claimBlock(block);
  if (!again) throw new Error(`cannot start: address block ${block.index ?? 0} (${block.host}:${CLAIM_PORT}) is held by another \`shipyard up\``);
  return again;
}

export async function runUp(opts: UpOptions): Promise<void> {
  const started = Date.now();
  // The datacenter host is as busy a process as the API server (kubelets, heartbeats, balancers).
  capYoungGeneration();
  const { dataDir } = opts;
  const chosenRelease = releaseOverride(opts);
  const releaseDataDir = claimDataDir(dataDir);
  let claim: BlockClaim | undefined;
  const release = (): void => {
    claim?.release();
    releaseDataDir();
  };
  // Component logs go to a file: the terminal belongs to the progress view and the summary.
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  const logger = createLogger({ component: 'datacenter', destination: pino.destination({ dest: join(dataDir, 'logs', 'datacenter.log'), sync: false }) });
  if (opts.cvoReconcileInterval !== undefined) parseDuration(opts.cvoReconcileInterval); // refused before anything starts
  // Leftovers of an earlier run of this cluster hold its addresses; they are not a collision.
  const leftovers = await killLeftovers(dataDir);
  if (leftovers) logger.warn({ processes: leftovers }, 'killed pod processes left behind by a previous run');
  let block: number | undefined;
  try {
    // A new cluster takes addresses nothing else holds; a resumed one has its own, checked below.
    if (!existsSync(join(dataDir, 'cluster.json'))) {
      if (opts.apiPort === CLAIM_PORT || opts.cloudPort === CLAIM_PORT) throw new Error(`--api-port and --cloud-port cannot be ${CLAIM_PORT}: every cluster's address block is held there`);
      claim = opts.addressBlock === undefined ? await newClusterBlock(dataDir, opts) : await claimChosenBlock(dataDir, opts, addressBlock(opts.addressBlock));
      block = claim.block.index;
    }
  } catch (err) {
    release();
    throw err;
  }
  const { spec, resumed, ignored } = loadOrCreateSpec(dataDir, {
    masters: opts.masters,
    workers: opts.workers,
    mastersSchedulable: opts.mastersSchedulable,
    apiPort: opts.apiPort,
    cloudPort: opts.cloudPort,
    block,
    cvoReconcileInterval: opts.cvoReconcileInterval,
    releaseImage: chosenRelease,
  });
  const addresses = addressBlock(spec.block);
  try {
    if (resumed) {
      await ensureEndpointsFree(await clusterEndpoints(dataDir, spec, addresses, true));
      claim = await claimOwnBlock(addresses);
    }
  } catch (err) {
    release();
    throw err;
  }
  const told = ignored.filter((i) => opts.explicitShape || i.startsWith('--release-image'));
  if (resumed && opts.addressBlock !== undefined && opts.addressBlock !== (spec.block ?? 0)) told.push(`--address-block ${opts.addressBlock} (cluster has block ${spec.block ?? 0})`);
  if (told.length) process.stdout.write(`Resuming the existing cluster; ignoring ${told.join(', ')}.\n`);
  process.stdout.write(`${resumed ? 'Resuming' : 'Creating'} the Shipyard datacenter in ${dataDir} (${spec.masters} master(s), ${spec.workers} worker(s))\n`);
  if (addresses.index) process.stdout.write(`Address block ${addresses.index} (${opts.addressBlock === addresses.index ? '--address-block' : 'another cluster holds block 0'}): load balancer ${addresses.host}:${spec.apiPort}, nodes ${addresses.nodeCIDR}, Services ${addresses.serviceCIDR}, pods ${addresses.podCIDR}\n`);

  // The release images exist before any node boots: the installer hands the first one to the CVO.
  const releases = buildReleases({ dataDir, images: openImageStore(join(dataDir, 'images')), reconcileInterval: spec.cvoReconcileInterval });
  logger.info(releases, 'release images built');
  // The stop handlers are in place before anything starts: a signal during boot stops what has
  // started so far (once the datacenter has finished starting), instead of killing this process
  // and leaving the rest to the reaper. A closing terminal (SIGHUP) stops it the same way.
  let control: Server | undefined;
  let stopping: Promise<void> | undefined;
  let starting: Promise<Datacenter> | undefined;
  // Calls off the install's bootstrap when the cluster stops, whatever stops it.
  const abort = new AbortController();
  const stop = (signal: string): Promise<void> =>
    (stopping ??= (async () => {
      abort.abort();
      say(`\n${signal}: stopping every node and pod...\n`);
      control?.close();
      const started = await starting?.catch(() => undefined);
      await started?.stop();
      release();
      say('Stopped. `shipyard up` on the same data directory resumes this cluster.\n');
    })());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void stop(signal).finally(() => process.exit(0)));

  // The release the cluster installs; its images name what the nodes' first configs are rendered for.
  const payload = loadReleaseImage(dataDir, spec.releaseImage ?? releaseImage(DEFAULT_RELEASE_VERSION));
  starting = startDatacenter({ dataDir, spec, resumed, logger, nodeMonitorGracePeriod: opts.nodeMonitorGracePeriod, release: payload });
  const dc = await starting;
  if (stopping) return;
  control = await startControlServer(dataDir, { node: (action, name) => dc.nodeAction(action, name) });

  const view = createProgressView();
  let rows: NodeRow[];
  for (;;) {
    if (stopping) return;
    rows = await dc.rows();
    const ready = rows.filter((r) => r.node === 'Ready').length;
    view.update(nodeTable(rows), `Waiting for nodes: ${ready}/${spec.masters + spec.workers} Ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    if (nodesUp(rows, spec, resumed)) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  // The install: the CVO is bootstrapped (once) and installs the payload; progress is shown per
  // ClusterOperator until ClusterVersion says Available.
  for (;;) {
    if (stopping) return;
    try {
      await bootstrapClusterVersion(
        dc.client,
        payload,
        {
          apiServerURL: `https://${addresses.host}:${spec.apiPort}`,
          clusterNetworkCIDR: addresses.podCIDR,
          hostPrefix: addresses.podHostPrefix,
          serviceNetworkCIDR: addresses.serviceCIDR,
          masters: spec.masters,
          machineConfig: { boot: dc.machineConfig, pkiDir: join(dataDir, 'pki') },
          bootstrapManifests: dc.bootstrapManifests,
          machineAPI: {
            infraName: spec.infraName ?? `shipyard-${spec.block ?? 0}`,
            instances: dc.cloud.list().filter((i) => i.state !== 'terminated').map((i) => ({ name: i.name, role: i.tags['shipyard.io/role'] === 'master' ? 'master' : 'worker', type: i.type, zone: i.zone, providerID: i.providerID })),
            cloudUrl: dc.cloudUrl,
            cloudToken: await readCloudToken(dataDir),
            configServerUrl: `https://${addresses.host}:${machineConfigServer.securePort}`,
            caPem: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'),
          },
        },
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
  process.stdout.write(renderSummary({ dataDir, kubeconfig: dc.kubeconfigPath, rows: await dc.rows(), masters: spec.masters, workers: spec.workers, resumed, elapsedMs: Date.now() - started, version, releaseImage: payload.release.image, operators: operatorRows }));
}
