/**
 * The processes a benchmark starts (API server, controllers), each in its own process group so
 * that its children go with it, all killed on the way out whatever the way out is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export class Processes {
  private readonly procs: ChildProcess[] = [];
  private stopping = false;
  /** Set when a process exits on its own: every wait gives up at once. */
  failure: Error | undefined;

  /** `nodeArgs`: extra `node` flags for every process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). */
  constructor(private readonly nodeArgs: readonly string[] = []) {}

  start(name: string, args: string[], env: Record<string, string> = {}): ChildProcess {
    const p = spawn(process.execPath, [...this.nodeArgs, ...args], {
      detached: true,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, SHIPYARD_LOG_LEVEL: 'warn', ...env },
    });
    p.once('exit', (code, signal) => {
      if (!this.stopping) this.failure ??= new Error(`${name} exited (${signal ?? `code ${code}`})`);
    });
    this.procs.push(p);
    return p;
  }

  /** SIGTERM to every group, up to `graceMs` to exit (a CPU profile is written on exit), then SIGKILL. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const running = this.procs.filter((p) => p.exitCode === null && p.signalCode === null);
    const exited = running.map((p) => new Promise<void>((resolve) => p.once('exit', () => resolve())));
    for (const p of running) signalGroup(p, 'SIGTERM');
    await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.killNow();
  }

  /**
   * Kills every process and removes `dir` if the benchmark is interrupted (SIGINT, SIGTERM) or
   * exits before its own cleanup; the returned function takes these handlers off again.
   */
  cleanUpOnExit(dir: string): () => void {
    const onSignal = (signal: NodeJS.Signals): void => {
      this.killNow();
      rmSync(dir, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    const onExit = (): void => this.killNow();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.once('exit', onExit);
    return () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('exit', onExit);
    };
  }

  /** Synchronous last resort (process exit, second signal). */
  killNow(): void {
    this.stopping = true;
    for (const p of this.procs) signalGroup(p, 'SIGKILL');
  }
}

function signalGroup(p: ChildProcess, signal: NodeJS.Signals): void {
  if (p.pid === undefined) return;
  try {
    process.kill(-p.pid, signal);
  } catch {
    // Already gone.
  }
}
