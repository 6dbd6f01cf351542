/**
 * The process runtime: a pod whose image is in the local image store runs as a real child
 * process of the image's entrypoint. An image has exactly one program, so the container's
 * `command` and `args` (in that order) become that program's arguments; with neither set,
 * the image's default arguments are used. A `.js/.mjs/.cjs` entrypoint runs under this Node,
 * a `.ts` one under this Node with tsx's loader, anything else is executed directly.
 *
 * Each container gets its own process group, so stopping it (SIGTERM, then SIGKILL after the
 * grace period) reaches whatever it spawned; the group is reported to `pidRegistry` so the
 * datacenter's reaper can kill it if the datacenter itself dies.
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ContainerExit, ContainerRuntime, ContainerSpec, RunningContainer } from '../container-runtime.ts';
import type { ImageRecord, ImageStore } from '../images.ts';
import { criLine } from '../logs.ts';

export interface PidRegistry {
  add(pgid: number): void;
  remove(pgid: number): void;
}

function programFor(entrypoint: string, nodeArgs: readonly string[] = []): { file: string; prefix: string[] } {
  const ext = extname(entrypoint);
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs') return { file: process.execPath, prefix: [...nodeArgs, entrypoint] };
  // An imported image's own TypeScript program (the built-in images' launchers are .js and run compiled code).
  if (ext === '.ts' || ext === '.mts') return { file: process.execPath, prefix: [...nodeArgs, '--import', import.meta.resolve('tsx'), entrypoint] };
  return { file: entrypoint, prefix: [] };
}

/** The image's own files appear at their paths in the rootfs, unless a volume is mounted there (a mount hides what the image has). */
function linkImageContent(image: ImageRecord, rootfs: string): void {
  for (const [path, dir] of Object.entries(image.content ?? {})) {
    const link = join(rootfs, path);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    rmSync(link, { force: true }); // a dangling link left by an earlier image of the same name
    symlinkSync(dir, link);
  }
}

function signalNumber(sig: NodeJS.Signals | null): number {
  return sig ? ((constants.signals as Record<string, number>)[sig] ?? 9) : 0;
}

export interface ProcessRuntimeOptions {
  images: ImageStore;
  pidRegistry?: PidRegistry;
  /** Set on every process after the pod's own env, which cannot override it (the datacenter's reaper finds its processes by it). */
  env?: Readonly<Record<string, string>>;
}

export function createProcessRuntime(opts: ProcessRuntimeOptions): ContainerRuntime {
  return {
    name: 'process',
    handles: (image) => opts.images.resolve(image) !== undefined,
    async start(spec: ContainerSpec): Promise<RunningContainer> {
      const image = opts.images.resolve(spec.image);
      if (!image) throw new Error(`image "${spec.image}" is not in the local image store`);
      const { file, prefix } = programFor(image.entrypoint, image.nodeArgs);
      const argv = spec.command.length || spec.args.length ? [...spec.command, ...spec.args] : [...image.args];
      linkImageContent(image, spec.rootfs);
      const cwd = spec.workingDir ? join(spec.rootfs, spec.workingDir) : spec.rootfs;
      mkdirSync(cwd, { recursive: true });
      mkdirSync(dirname(spec.logPath), { recursive: true });
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: spec.rootfs, ...spec.env, ...opts.env, SHIPYARD_ROOTFS: spec.rootfs };
      const child = spawn(file, [...prefix, ...argv], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const started = await new Promise<Error | undefined>((resolve) => {
        child.once('spawn', () => resolve(undefined));
        child.once('error', (err) => resolve(err));
      });
      if (started) throw new Error(`cannot run ${image.entrypoint} for image ${spec.image}: ${started.message}`);
      const pgid = child.pid!;
      opts.pidRegistry?.add(pgid);
      const log = createWriteStream(spec.logPath, { flags: 'a' });
      const pump = (stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr'): Promise<void> =>
        new Promise((resolve) => {
          const rl = createInterface({ input: stream, crlfDelay: Infinity });
          rl.on('line', (line) => log.write(criLine(name, line)));
          rl.on('close', () => resolve());
        });
      const pumps = Promise.all([pump(child.stdout!, 'stdout'), pump(child.stderr!, 'stderr')]);
      const exited = new Promise<ContainerExit>((resolve) => {
        child.once('exit', (code, signal) => {
          opts.pidRegistry?.remove(pgid);
          // Whatever the container spawned dies with it, as in a real container's PID namespace.
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // The group is already empty.
          }
          const exitCode = code ?? 128 + signalNumber(signal);
          const exit: ContainerExit = { exitCode, signal: signal ?? undefined, reason: exitCode === 0 ? 'Completed' : 'Error', finishedAt: new Date() };
          // Reported once its last lines are in the log (FallbackToLogsOnError and `kubectl logs`
          // after the pod is done read them then), but not held back for long by a descendant
          // outside the group that keeps a pipe open. Not 1 s: a node host whose event loop was
          // busy that long at the exit would run this timer before the pipes' last reads.
          const bound = setTimeout(() => resolve(exit), 5000);
          void pumps.then(() =>
            log.end(() => {
              clearTimeout(bound);
              resolve(exit);
            }),
          );
        });
      });
      return {
        pid: pgid,
        startedAt: new Date(),
        exited,
        async stop(gracePeriodMs) {
          try {
            process.kill(-pgid, 'SIGTERM');
          } catch {
            return exited;
          }
          const timer = setTimeout(() => {
            try {
              process.kill(-pgid, 'SIGKILL');
            } catch {
              // Exited in the meantime.
            }
          }, Math.max(0, gracePeriodMs));
          const result = await exited;
          clearTimeout(timer);
          return result;
        },
        async exec(command, timeoutMs) {
          if (!command.length) return { exitCode: 126, output: 'exec probe has no command' };
          // Asynchronous: a probe must never stall the kubelet's other pods.
          return new Promise((resolve) => {
            execFile(command[0]!, command.slice(1), { cwd, env, timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
              const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
              resolve({ exitCode: code, output: `${stdout}${stderr}` });
            });
          });
        },
      };
    },
  };
}
