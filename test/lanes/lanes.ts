/**
 * `npm test` runs the suite in lanes, each a process of its own running its files one after
 * another (test/run-files.ts), all lanes at once (`--test-concurrency`). Most of the suite's
 * time is the e2e files that boot whole datacenters, and most of their time is waiting (nodes
 * going NotReady, a rollout's minimum ready time, a CronJob's minute): on 2 cores the suite used
 * ~0.5 cores run as one process. Each of those files has a lane of its own share; everything
 * else (unit tests, e2e against a bare API server) is shared by lanes 0 and 1.
 *
 * A lane holds at most two datacenters at once (machine-config and machine-api each boot two
 * side by side), so together they take at most 6 of the 8 address blocks; stops.test.ts names
 * block 6 and block-claim.test.ts takes block 7, which the others, taking the lowest free
 * ones, never reach.
 *
 * Shares are by measured seconds on 2 cores, one lane's ~200 s; a file that boots a datacenter
 * (calls `startUp(`) but is not listed here goes to the lane with the least listed time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findTestFiles, root, runTestFiles } from '../run-files.ts';

const CLUSTER_LANES: readonly (readonly [path: string, seconds: number])[][] = [
  [['test/e2e/kube-apiserver-operator.test.ts', 172], ['test/e2e/custom-release.test.ts', 23]],
  [['test/e2e/machine-config.test.ts', 117], ['test/e2e/machine-api.test.ts', 79]],
  [['test/e2e/cluster-version.test.ts', 94], ['test/e2e/datacenter.test.ts', 55]],
  [['test/e2e/stops.test.ts', 85], ['test/e2e/apiserver-replicas.test.ts', 40], ['test/e2e/batch.test.ts', 32]],
];

/** Lanes 0 and 1 share the rest, alternately in path order: ~350 files, ~200 s alone, ~370 s beside the others on 2 cores. */
const REST_LANES = 2;

export const LANE_COUNT = REST_LANES + CLUSTER_LANES.length;

const bootsDatacenter = (path: string): boolean => path.startsWith('test/e2e/') && readFileSync(join(root, path), 'utf8').includes('startUp(');

/** Lane `k`'s files: lanes below REST_LANES share everything not in a cluster lane. */
export function laneFiles(k: number): string[] {
  const files = findTestFiles();
  const stale = CLUSTER_LANES.flat().filter(([path]) => !process.env.SHIPYARD_TEST_FILTER && !files.includes(path));
  if (stale.length) throw new Error(`test/lanes/lanes.ts lists files that do not exist: ${stale.map(([path]) => path).join(', ')}`);
  const listed = new Map(CLUSTER_LANES.flatMap((lane, i) => lane.map(([path]) => [path, REST_LANES + i] as const)));
  const lightest = REST_LANES + CLUSTER_LANES.map((lane) => lane.reduce((s, [, secs]) => s + secs, 0)).reduce((best, secs, i, all) => (secs < all[best]! ? i : best), 0);
  const clusterLaneOf = (path: string): number | undefined => listed.get(path) ?? (bootsDatacenter(path) ? lightest : undefined);
  const rest = files.filter((f) => clusterLaneOf(f) === undefined);
  if (k < REST_LANES) return rest.filter((_, i) => i % REST_LANES === k);
  return files.filter((f) => clusterLaneOf(f) === k);
}

/** The body of each test/lanes/<k>.ts. */
export function runLane(k: number): void {
  runTestFiles(laneFiles(k));
}
