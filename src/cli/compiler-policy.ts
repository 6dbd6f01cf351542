/**
 * How much of V8's compilers a component runs. A controller spends its life waiting on watches:
 * V8's interpreter runs its reconciles well enough, and each compiler tier costs memory in every
 * process, times the thirty-odd processes of a cluster. The API server, which serves every
 * request and heartbeat, keeps both compilers; so does the datacenter host (`shipyard up`).
 *
 * - **In a pod**, a controller runs without any JIT (`node --jitless`): the process allocates no
 *   executable memory at all, so no baseline or optimized code, interpreted regular
 *   expressions, and neither the code range nor the builtins V8 remaps near it are touched.
 *   Measured on the default cluster (`npm run bench -- footprint`, 36 processes): 2,103 MiB of
 *   total RSS with only the optimizing compiler off, 1,917–1,957 MiB jitless; the CVO went from 77 to
 *   55–71 MiB, a daemon from 57 to 50 MiB. Boot time, idle CPU and the test suite's time did
 *   not change measurably.
 *   V8 reads the flag once, as it starts, so it is part of the built-in image (the image's
 *   `nodeArgs`, node/images.ts), as it would be a container image's entrypoint, not something
 *   the component can set itself. Jitless also means no WebAssembly, which node's global
 *   `fetch` needs: no component uses either.
 * - **Started any other way** (`shipyard component <name>` on a host, a test), a controller turns
 *   only the optimizing compiler (TurboFan) off, at its start (`applyCompilerPolicy`): a process
 *   that ever optimizes a function keeps ~4 MiB more of the node binary resident, besides the
 *   optimized code itself.
 *
 * SHIPYARD_V8_OPTIMIZE=all gives every component both compilers back (a benchmark of a
 * controller's CPU, say); =none takes them from every one, the API server included. Given to
 * `shipyard up`, it decides the built-in images' flags and reaches every pod.
 */
import { setFlagsFromString } from 'node:v8';

function wantsOptimizer(optimize: boolean, env: NodeJS.ProcessEnv): boolean {
  const forced = env.SHIPYARD_V8_OPTIMIZE;
  return forced === 'all' ? true : forced === 'none' ? false : optimize;
}

/** At a component's start: turns the optimizing compiler off unless the component wants it. */
export function applyCompilerPolicy(optimize: boolean, env: NodeJS.ProcessEnv = process.env): void {
  // Read each time V8 decides whether to optimize a function, so before any is hot is early enough.
  if (!wantsOptimizer(optimize, env)) setFlagsFromString('--no-opt');
}

/** The node flags a component's built-in image runs it with. */
export function componentNodeArgs(optimize: boolean, env: NodeJS.ProcessEnv = process.env): string[] {
  return wantsOptimizer(optimize, env) ? [] : ['--jitless'];
}
