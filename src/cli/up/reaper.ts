/**
 * No pod process may outlive the datacenter, even when `shipyard up` is killed with SIGKILL and
 * gets no chance to stop them. Linux offers no portable parent-death signal from Node, so a
 * tiny shell process holds a pipe from this process: when this process dies, for any reason,
 * the pipe closes and the shell kills every process of the datacenter (TERM, then KILL 3 s
 * later).
 *
 * "Every process of the datacenter" is found two ways, because either alone has a gap:
 * - the process groups in `run/pgids`, which the process runtime reports as it starts pods;
 * - every process whose environment carries this datacenter's marker
 *   (`SHIPYARD_DATACENTER=<absolute data dir>`, set on every pod process and inherited by
 *   whatever a pod spawns). This catches a process started in the instant between its spawn
 *   and its group being written down, and one that left its group.
 *
 * The reaper runs in a session and process group of its own, so a signal to the process group
 * of `shipyard up` (Ctrl-C, a test harness killing the group, a terminal closing) never reaches
 * it. A resume kills what an earlier run left, by the same marker, before anything starts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface PidRegistry {
  add(pgid: number): void;
  remove(pgid: number): void;
}

export interface Reaper extends PidRegistry {
  /** The variable every pod process gets, so the reaper can find it whatever its group. */
  readonly marker: Readonly<Record<string, string>>;
  /** After a clean shutdown: kills anything of the datacenter still alive, then stops the reaper. */
  release(): void;
}

export const DATACENTER_ENV = 'SHIPYARD_DATACENTER';

// dash (the usual /bin/sh) takes a process group only in the `kill -s SIG -- -pgid` form.
// `grep -lzxF` reads each environment as NUL-separated lines and names the files holding the
// marker line exactly; one grep for all processes keeps this quick however many pods run.
// A clean stop writes "released" before closing the pipe: everything is already stopped, and a
// pass now (or 3 s later) would kill the pods of a run of the same data directory started since.
const SCRIPT = `
r=$(cat)
[ "$r" = released ] && exit 0
f="$1"; m="$2"
marked() { grep -lzxF -- "$m" /proc/[0-9]*/environ 2>/dev/null | sed -e 's|^/proc/||' -e 's|/environ$||'; }
for g in $(cat "$f" 2>/dev/null); do kill -s TERM -- "-$g" 2>/dev/null; done
for p in $(marked); do kill -s TERM "$p" 2>/dev/null; done
sleep 3
for g in $(cat "$f" 2>/dev/null); do kill -s KILL -- "-$g" 2>/dev/null; done
for p in $(marked); do kill -s KILL "$p" 2>/dev/null; done
rm -f "$f"
`;

/** Pids of the processes whose environment holds `line`, found by reading /proc. */
export function processesMarked(line: string): number[] {
  const needle = Buffer.from(`\0${line}\0`);
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`), Buffer.from([0])]);
      if (env.includes(needle)) out.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

function killAll(line: string): number {
  const pids = processesMarked(line);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return pids.length;
}

function markerLine(dataDir: string): string {
  return `${DATACENTER_ENV}=${resolve(dataDir)}`;
}

/**
 * Kills whatever an earlier run of this data directory left running (its reaper killed too, or
 * never started) and waits until those processes are gone, so their addresses are free again.
 */
export async function killLeftovers(dataDir: string): Promise<number> {
  const line = markerLine(dataDir);
  const killed = killAll(line);
  // SIGKILLed processes go at once on an idle machine; a loaded one gets up to 15 s.
  for (let i = 0; i < 300 && processesMarked(line).length; i++) await new Promise((r) => setTimeout(r, 50));
  return killed;
}

/** Starts the reaper; `killLeftovers` has already cleared what an earlier run left. */
export async function startReaper(dataDir: string): Promise<Reaper> {
  const runDir = join(dataDir, 'run');
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, 'pgids');
  const marker = { [DATACENTER_ENV]: resolve(dataDir) };
  const line = markerLine(dataDir);
  const groups = new Set<number>();
  const persist = (): void => {
    writeFileSync(`${file}.tmp`, [...groups].join('\n') + '\n');
    renameSync(`${file}.tmp`, file);
  };
  persist();
  const child = spawn('sh', ['-c', SCRIPT, 'shipyard-reaper', file, line], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  // The pipe must not keep this process alive, only tell the reaper when it is gone.
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  child.stdin!.on('error', () => {});
  return {
    marker,
    add(pgid) {
      groups.add(pgid);
      persist();
    },
    remove(pgid) {
      if (groups.delete(pgid)) persist();
    },
    release() {
      for (const g of groups) {
        try {
          process.kill(-g, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      killAll(line);
      groups.clear();
      persist();
      child.stdin!.end('released');
    },
  };
}
