/**
 * The simulated runtime: any image "runs" with no process, Running after a short delay, until
 * stopped, as kwok's fake containers do. This is what lets one machine host thousands of nodes.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ContainerExit, ContainerRuntime, RunningContainer } from '../container-runtime.ts';
import { criLine } from '../logs.ts';

export function createSimulatedRuntime(opts: { startDelayMs?: number; writeLogs?: boolean } = {}): ContainerRuntime {
  return {
    name: 'simulated',
    handles: () => true,
    async start(spec) {
      if (opts.startDelayMs !== 0) await new Promise((r) => setTimeout(r, opts.startDelayMs ?? 200));
      if (opts.writeLogs ?? true) {
        mkdirSync(dirname(spec.logPath), { recursive: true });
        appendFileSync(spec.logPath, criLine('stdout', `simulated container ${spec.containerName} (image ${spec.image}) started`));
      }
      let finish!: (e: ContainerExit) => void;
      const exited = new Promise<ContainerExit>((r) => (finish = r));
      const container: RunningContainer = {
        startedAt: new Date(),
        exited,
        async stop() {
          finish({ exitCode: 0, reason: 'Completed', finishedAt: new Date() });
          return exited;
        },
        async exec() {
          return { exitCode: 0, output: '' };
        },
      };
      return container;
    },
  };
}
