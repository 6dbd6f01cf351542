/**
 * Drives `shipyard up` as a user does: the real CLI as a child process in a temporary data
 * directory, and real kubectl against the kubeconfig it writes. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeResult, pollUntil, type Json, type KubectlResult } from './support.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const shipyardBin = `${repo}bin/shipyard.js`;

export interface UpProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves once the summary (the `export KUBECONFIG=` line) is printed. */
  ready(timeoutMs: number): Promise<void>;
  exited(): Promise<number | null>;
}

/** With `ownGroup`, `shipyard up` leads a process group of its own, which a test may signal whole (as a terminal does its foreground group). */
export function startUp(dataDir: string, args: readonly string[], opts: { ownGroup?: boolean } = {}): UpProcess {
  const child = spawn(process.execPath, [shipyardBin, 'up', '--data-dir', dataDir, ...args], {
    cwd: repo,
    detached: opts.ownGroup ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_LOG_LEVEL ?? 'info' },
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // An `up` that dies under a test shows up only as refused kubectl calls; say why where the
  // test output keeps it (a SIGINT from the test ends it with 0, a deliberate SIGKILL says so).
  child.once('exit', (code, signal) => {
    if (code === 0) return;
    const log = (() => {
      try {
        return readFileSync(join(dataDir, 'logs', 'datacenter.log'), 'utf8').trimEnd().split('\n').slice(-20).join('\n');
      } catch {
        return '(no datacenter.log)';
      }
    })();
    process.stderr.write(`# shipyard up in ${dataDir} exited (${signal ?? `code ${code}`}); its output ends:\n${out.trimEnd().split('\n').slice(-20).join('\n')}\n# datacenter.log ends:\n${log}\n`);
  });
  return {
    child,
    output: () => out,
    exited: () => exit,
    ready: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`shipyard up not ready after ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
        const check = (): void => {
          if (/export KUBECONFIG=/.test(out)) {
            clearTimeout(timer);
            clearInterval(poll);
            resolve();
          }
        };
        const poll = setInterval(check, 100);
        void exit.then((code) => {
          clearTimeout(timer);
          clearInterval(poll);
          if (!/export KUBECONFIG=/.test(out)) reject(new Error(`shipyard up exited with ${code}; output:\n${out}`));
        });
      }),
  };
}

export function runShipyard(args: readonly string[], timeoutMs = 30_000): Promise<KubectlResult> {
  return run(process.execPath, [shipyardBin, ...args], {}, timeoutMs);
}

export function kubectlWith(kubeconfig: string) {
  return (args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<KubectlResult> =>
    run('kubectl', args, { KUBECONFIG: kubeconfig }, opts.timeoutMs ?? 60_000, opts.input);
}

function run(cmd: string, args: readonly string[], env: Record<string, string>, timeoutMs: number, input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    // A command that exits before reading its input (most do not read it at all) closes the pipe: not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

/** Processes (other than this test's own) whose environment or command line mentions `dataDir`. */
export function processesUsing(dataDir: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim();
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      if (/\) Z /.test(stat)) continue; // zombies are already dead
      if (cmd.includes(dataDir) || env.includes(dataDir)) found.push({ pid, cmd });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** kubectl calls that must succeed: `ok` returns stdout, `json` parses `get … -o json`. */
export function strictKubectl(kubectl: ReturnType<typeof kubectlWith>) {
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl(args, { input });
    assert.equal(r.code, 0, describeResult(args, r));
    return r.stdout;
  };
  const json = async (args: string[]): Promise<Json> => JSON.parse(await ok(['get', ...args, '-o', 'json']));
  return { ok, json };
}

/** Stops `shipyard up` as a user would (SIGINT), makes sure nothing it started survives, and removes its data directory. */
export async function stopUp(up: UpProcess | undefined, dataDir: string): Promise<void> {
  if (up && up.child.exitCode === null) {
    up.child.kill('SIGINT');
    // The timer is cleared once `up` exits, so a stopped datacenter leaves nothing open in the test process.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([up.exited(), new Promise((r) => (timer = setTimeout(r, 30_000)))]);
    clearTimeout(timer);
    if (up.child.exitCode === null && up.child.signalCode === null) {
      process.stderr.write(`# shipyard up in ${dataDir} had not stopped 30 s after SIGINT; killing it. Its output ends:\n${up.output().trimEnd().split('\n').slice(-10).join('\n')}\n`);
      up.child.kill('SIGKILL');
      await up.exited();
    }
  }
  const left = await pollUntil('no process of the datacenter left', async () => processesUsing(dataDir).length === 0 || undefined, { timeoutMs: 15_000 }).catch(() => undefined);
  if (!left) for (const p of processesUsing(dataDir)) process.kill(p.pid, 'SIGKILL');
  // SHIPYARD_E2E_KEEP_LOGS=<dir> keeps each cluster's logs (its components' and pods') for a look after the run.
  const keep = process.env.SHIPYARD_E2E_KEEP_LOGS;
  if (keep) {
    const to = join(keep, basename(dataDir));
    if (existsSync(join(dataDir, 'logs'))) cpSync(join(dataDir, 'logs'), to, { recursive: true });
    const nodes = join(dataDir, 'nodes');
    for (const node of existsSync(nodes) ? readdirSync(nodes) : []) if (existsSync(join(nodes, node, 'logs'))) cpSync(join(nodes, node, 'logs'), join(to, node), { recursive: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}
