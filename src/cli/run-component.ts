/**
 * Runs one component as this process: SIGTERM/SIGINT abort its signal (the kubelet's graceful
 * stop), a clean stop exits 0, a failure prints the cause and exits 1, which is what the
 * kubelet's restart policy and `kubectl logs --previous` then show.
 */
import { loadComponent, optimizes } from './components.ts';
import { applyCompilerPolicy } from './compiler-policy.ts';
import { applyHeapGrowthPolicy } from './heap-growth.ts';

export async function runComponentProcess(name: string | undefined, args: readonly string[]): Promise<void> {
  if (!name) {
    process.stderr.write('usage: shipyard component <name> [args...]\n');
    process.exit(2);
  }
  applyHeapGrowthPolicy();
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    applyCompilerPolicy(optimizes(name));
    const start = await loadComponent(name);
    await start({ signal: controller.signal, args, env: process.env, rootfs: process.env.SHIPYARD_ROOTFS });
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}
