/**
 * No pod process may outlive the datacenter, even when `shipyard up` is killed with SIGKILL and
 * gets no chance to stop them. Linux offers no portable parent-death signal from Node, so a
 * tiny shell process holds a pipe from this process: when this process dies, for any reason,
 * the pipe closes and the shell kills every process group listed in `run/pgids` (TERM, then
 * KILL). A resume also kills groups left in the list by a run whose reaper did not finish,
 * but only processes whose environment names this data directory, so a recycled pid is never
 * a stranger's.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PidRegistry {
  add(pgid: number): void;
  remove(pgid: number): void;
}

export interface Reaper extends PidRegistry {
  /** Stops the reaper without killing anything (after a clean shutdown stopped every pod). */
  release(): void;
}

// dash (the usual /bin/sh) takes a process group only in the `kill -s SIG -- -pgid` form.
const SCRIPT = `
cat >/dev/null
f="$1"
[ -f "$f" ] || exit 0
for g in $(cat "$f"); do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 3
for g in $(cat "$f"); do kill -s KILL -- "-$g" 2>/dev/null; done
rm -f "$f"
`;

function belongsTo(pid: number, dataDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(dataDir);
  } catch {
    return false;
  }
}

async function killStale(file: string, dataDir: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const groups = readFileSync(file, 'utf8').split(/\s+/).map(Number).filter((n) => Number.isInteger(n) && n > 1);
  const ours = groups.filter((g) => belongsTo(g, dataDir));
  for (const g of ours) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return ours.length;
}

export async function startReaper(dataDir: string): Promise<Reaper & { staleKilled: number }> {
  const runDir = join(dataDir, 'run');
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, 'pgids');
  const staleKilled = await killStale(file, dataDir);
  const groups = new Set<number>();
  const persist = (): void => {
    writeFileSync(`${file}.tmp`, [...groups].join('\n') + '\n');
    renameSync(`${file}.tmp`, file);
  };
  persist();
  const child = spawn('sh', ['-c', SCRIPT, 'shipyard-reaper', file], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  // The pipe must not keep this process alive, only tell the reaper when it is gone.
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  child.stdin!.on('error', () => {});
  return {
    staleKilled,
    add(pgid) {
      groups.add(pgid);
      persist();
    },
    remove(pgid) {
      if (groups.delete(pgid)) persist();
    },
    release() {
      groups.clear();
      persist();
      child.stdin!.end();
    },
  };
}
