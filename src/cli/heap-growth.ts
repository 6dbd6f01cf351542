/**
 * How far a control-plane process lets its heap grow past what its last full collection kept.
 * V8 adapts the factor up to 4x when the machine has memory to spare; Go, which the Kubernetes
 * components are written in, collects at 2x by default (GOGC=100). Several such processes
 * share one machine here, holding 150,000 pods between them, and most of what they occupied
 * at V8's factor was garbage: on the nodes benchmark at 2,000 nodes the API server kept 79 MB
 * live and peaked at 835 MiB. At 2x, the control plane's peak there fell from 2,552 MiB to
 * 1,910 MiB (the API server's to 602) at no CPU cost measurable at steady state (0.14 against
 * 0.15 cores).
 *
 * SHIPYARD_HEAP_GROWING_PERCENT overrides the growth (percent over the live size); 0 leaves
 * V8's own policy.
 */
import { setFlagsFromString, getHeapSpaceStatistics } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

const DEFAULT_PERCENT = 100;

export function applyHeapGrowthPolicy(env: NodeJS.ProcessEnv = process.env): void {
  const raw = env.SHIPYARD_HEAP_GROWING_PERCENT;
  const percent = raw === undefined || raw === '' ? DEFAULT_PERCENT : Number(raw);
  if (!Number.isInteger(percent) || percent <= 0) return;
  // Read by V8 each time it sets the next collection's threshold, so setting it at start-up is enough.
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * `shipyard up`'s young generation: V8 doubles a busy process's up to 16 MiB per semi-space
 * (32 MiB resident) and keeps it. Idle after a default install, `shipyard up` held 132-140 MiB
 * uncapped, 102-121 capped at 4 MiB, for the same CPU over install and idle (3.4-3.6 s in the
 * same hour; not measured at thousands of nodes). The components are not capped: the API
 * server at 4 MiB (`--max-semi-space-size=4`) spent 13% more CPU per update fanned out to 20
 * watchers and 12% more over a default install, for 8-40 MiB less idle.
 */
const DEFAULT_SEMI_SPACE_MIB = 4;

/**
 * Stops the young generation growing past `SHIPYARD_MAX_SEMI_SPACE_MB` MiB per semi-space
 * (default 4; 0 leaves V8's own limit). V8 reads `--max-semi-space-size` only when it sets a
 * heap up, but `--semi-space-growth-factor` at each growth: once the young generation has
 * reached the cap, a factor of 1 keeps it there. Setting up a new isolate (a worker thread
 * starting) puts the factor back to 2, so every collection that finds the young generation at
 * or past the cap sets it again: after a thread starts, it may grow once more.
 */
export function capYoungGeneration(env: NodeJS.ProcessEnv = process.env): void {
  const raw = env.SHIPYARD_MAX_SEMI_SPACE_MB;
  const mib = raw === undefined || raw === '' ? DEFAULT_SEMI_SPACE_MIB : Number(raw);
  if (!Number.isInteger(mib) || mib <= 0) return;
  // Both semi-spaces: what getHeapSpaceStatistics reports as the new space's size.
  const cap = 2 * mib * 1024 * 1024;
  // Set once per size reached: setting V8 flags is not free, and a collection only needs it after a growth.
  let heldAt = 0;
  const hold = (): void => {
    const size = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
    if (size < cap || size === heldAt) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    heldAt = size;
  };
  hold();
  // Each collection is reported soon after it ends; a growth happens only in a collection.
  new PerformanceObserver(hold).observe({ entryTypes: ['gc'] });
}
