/**
 * The shape of a cluster, fixed when `shipyard up` first creates it and read back on every
 * resume (`<dataDir>/cluster.json`), so a resume brings back the same nodes whatever flags it
 * is given.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClusterSpec {
  readonly version: 1;
  readonly masters: number;
  readonly workers: number;
  readonly mastersSchedulable: boolean;
  /** The load balancer in the admin kubeconfig: <block host>:<apiPort>. */
  readonly apiPort: number;
  /** The address block (address-block.ts); absent in clusters created before blocks existed. */
  readonly block?: number;
  readonly cloudPort: number;
  /** The CVO's reconcile interval, fixed into the release payloads; absent: 2–4 minutes. */
  readonly cvoReconcileInterval?: string;
  /**
   * Infrastructure's `infrastructureName` (`shipyard-<5 hex>`): fixed at creation because the
   * instances `shipyard up` launches are tagged with it before the API exists, as
   * openshift-install tags the masters it creates with the cluster's id.
   */
  readonly infraName?: string;
  /** The release image installed (`--release-image`); absent: Shipyard's own default release. */
  readonly releaseImage?: string;
  readonly createdAt: string;
}

export interface SpecRequest {
  masters: number;
  workers: number;
  mastersSchedulable: boolean;
  apiPort: number;
  cloudPort: number;
  block?: number;
  cvoReconcileInterval?: string;
  releaseImage?: string;
}

export function loadOrCreateSpec(dataDir: string, req: SpecRequest): { spec: ClusterSpec; resumed: boolean; ignored: string[] } {
  const file = join(dataDir, 'cluster.json');
  if (existsSync(file)) {
    let spec: ClusterSpec;
    try {
      spec = JSON.parse(readFileSync(file, 'utf8')) as ClusterSpec;
    } catch (err) {
      throw new Error(`${file}: not valid JSON (${(err as Error).message}); fix or remove it`);
    }
    if (spec.version !== 1) throw new Error(`${file}: unsupported version ${String(spec.version)}`);
    const ignored: string[] = [];
    if (req.masters !== spec.masters) ignored.push(`--masters ${req.masters} (cluster has ${spec.masters})`);
    if (req.workers !== spec.workers) ignored.push(`--workers ${req.workers} (cluster has ${spec.workers})`);
    // The release a cluster was installed from is history; updates go through ClusterVersion.
    if (req.releaseImage !== undefined && req.releaseImage !== spec.releaseImage) ignored.push(`--release-image ${req.releaseImage} (cluster was installed from ${spec.releaseImage ?? 'Shipyard\'s default release'}; update it with \`kubectl patch clusterversion version\`)`);
    return { spec, resumed: true, ignored };
  }
  if (!Number.isInteger(req.masters) || req.masters < 1) throw new Error(`--masters must be at least 1, got ${req.masters}`);
  if (!Number.isInteger(req.workers) || req.workers < 0) throw new Error(`--workers must be 0 or more, got ${req.workers}`);
  const spec: ClusterSpec = { version: 1, ...req, infraName: `shipyard-${randomBytes(3).toString('hex').slice(0, 5)}`, createdAt: new Date().toISOString() };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(spec, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
  return { spec, resumed: false, ignored: [] };
}

export function masterName(i: number): string {
  return `master-${i}`;
}

export function workerName(i: number): string {
  return `worker-${i}`;
}
