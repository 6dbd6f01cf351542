/**
 * The inline runtime: a container whose image names a Shipyard component runs that
 * component's `start(ctx)` inside the kubelet's own process, with the same arguments,
 * environment and rootfs a process pod would get. A thousand-node simulation can then run
 * real controllers without a thousand Node processes; the component cannot tell the
 * difference (runtime/component.ts). Its output lines go to the container log.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ComponentContext } from '../../runtime/component.ts';
import type { ContainerExit, ContainerRuntime, RunningContainer } from '../container-runtime.ts';
import { criLine } from '../logs.ts';

export type InlineComponent = (ctx: ComponentContext & { log: (line: string) => void }) => Promise<void>;

export function createInlineRuntime(opts: { components: ReadonlyMap<string, InlineComponent> }): ContainerRuntime {
  return {
    name: 'inline',
    handles: (image) => opts.components.has(image),
    async start(spec): Promise<RunningContainer> {
      const component = opts.components.get(spec.image);
      if (!component) throw new Error(`image ${spec.image} names no inline component`);
      mkdirSync(dirname(spec.logPath), { recursive: true });
      const log = (line: string): void => appendFileSync(spec.logPath, criLine('stdout', line));
      const abort = new AbortController();
      const exited: Promise<ContainerExit> = (async () => {
        try {
          await component({ signal: abort.signal, args: [...spec.command, ...spec.args], env: { ...spec.env, SHIPYARD_ROOTFS: spec.rootfs }, rootfs: spec.rootfs, log });
          return { exitCode: 0, reason: 'Completed', finishedAt: new Date() };
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          appendFileSync(spec.logPath, criLine('stderr', message));
          return { exitCode: 1, reason: 'Error', message, finishedAt: new Date() };
        }
      })();
      return {
        startedAt: new Date(),
        exited,
        async stop(gracePeriodMs) {
          abort.abort();
          // An inline component cannot be killed; past the grace period it is abandoned.
          const timeout = new Promise<ContainerExit>((r) => setTimeout(() => r({ exitCode: 137, reason: 'Error', message: 'did not stop within the grace period', finishedAt: new Date() }), gracePeriodMs).unref());
          return Promise.race([exited, timeout]);
        },
      };
    },
  };
}
