/**
 * Whether a component runs V8's optimizing compiler (TurboFan). Its code lives in the node
 * binary, and a process that ever optimizes a function keeps ~4 MiB more of the binary resident,
 * besides the optimized code itself. A controller spends its life waiting on watches: the
 * interpreter and the baseline compiler run its reconciles well enough, and the MiB, times the
 * thirty-odd processes of a cluster, are what a node's memory is spent on. The API server and
 * the datacenter host, which serve every request and heartbeat, keep it.
 *
 * SHIPYARD_V8_OPTIMIZE=all gives it back to every component (a benchmark of a controller's
 * CPU, say); =none takes it from every one. Given to `shipyard up`, it reaches every pod.
 */
import { setFlagsFromString } from 'node:v8';

export function applyCompilerPolicy(optimize: boolean, env: NodeJS.ProcessEnv = process.env): void {
  const forced = env.SHIPYARD_V8_OPTIMIZE;
  const on = forced === 'all' ? true : forced === 'none' ? false : optimize;
  // Read each time V8 decides whether to optimize a function, so before any is hot is early enough.
  if (!on) setFlagsFromString('--no-opt');
}
