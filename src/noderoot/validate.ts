/**
 * Whether a node root holds what a config says, checked as the MCO's daemon checks it after a
 * boot and whenever it looks for drift: the OS image, the kernel arguments, then every file
 * (contents and mode, the link itself never followed), then every unit (drop-ins, the unit file
 * or its mask, enabled or not). The first mismatch is returned in the MCO's words, naming the
 * node's path (`content mismatch for file "/etc/x"`); the daemon wraps it as
 * `unexpected on-disk state validating against <config>: ...` (`unexpectedOnDiskState`).
 *
 * Beyond the MCO, a masked unit is checked even when the config gives it no contents.
 */
import { readFile, readlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { filesByPath, type NodeConfig } from './config.ts';
import { lstatOrUndefined } from './fs.ts';
import { readKernelArguments, readOsRecord, splitKernelArguments } from './os-state.ts';
import { resolveInRoot } from './paths.ts';
import { readResource } from './resource.ts';
import { devNull, dropinPath, enablementState, unitPath } from './units.ts';

export function unexpectedOnDiskState(configName: string, mismatch: string): string {
  return `unexpected on-disk state validating against ${configName}: ${mismatch}`;
}

/** The first way `root` differs from `config`, or undefined when it matches. */
export async function validateOnDisk(root: string, config: NodeConfig): Promise<string | undefined> {
  return (await checkOs(root, config)) ?? (await checkFiles(root, config)) ?? (await checkUnits(root, config));
}

async function checkOs(root: string, config: NodeConfig): Promise<string | undefined> {
  const record = await readOsRecord(root);
  const want = config.osImageURL ?? '';
  if (record && record.osImageURL !== want) return `expected target osImageURL ${quote(want)}, have ${quote(record.osImageURL)}`;
  const booted = await readKernelArguments(root);
  if (!booted) return undefined;
  const present = new Set(booted);
  const missing = splitKernelArguments(config.kernelArguments).filter((a) => !present.has(a));
  if (missing.length) return `missing expected kernel arguments: [${missing.join(' ')}]`;
  return undefined;
}

async function checkFiles(root: string, config: NodeConfig): Promise<string | undefined> {
  for (const f of filesByPath(config).values()) {
    if (f.append?.length) return 'found an append section when checking files. Append is not supported';
    let contents: Buffer;
    try {
      contents = await readResource(f.contents ?? {});
    } catch (err) {
      return `couldn't decode file ${quote(f.path)}: ${(err as Error).message}`;
    }
    const mismatch = await checkFile(root, f.path, contents, f.mode ?? 0o644);
    if (mismatch) return mismatch;
  }
  return undefined;
}

async function checkUnits(root: string, config: NodeConfig): Promise<string | undefined> {
  for (const u of config.ignition.systemd?.units ?? []) {
    for (const d of u.dropins ?? []) {
      const path = dropinPath(u.name, d.name);
      const content = d.contents ?? '';
      // Empty drop-ins are removed; one left from before is tolerated, as the MCO does.
      if (content === '' && !(await lstatOrUndefined(await resolveInRoot(root, path)))) continue;
      const mismatch = await checkFile(root, path, Buffer.from(content), 0o644);
      if (mismatch) return mismatch;
    }
    const path = unitPath(u.name);
    if (u.mask) {
      const host = await resolveInRoot(root, path);
      const st = await lstatOrUndefined(host);
      if (!st) return `state validation: error while evaluation symlink for path ${quote(path)}: lstat ${path}: no such file or directory`;
      const received = st.isSymbolicLink() ? await readlink(host) : path;
      if (received !== devNull) return `state validation: invalid unit masked setting. path: ${quote(path)}; expected: ${devNull}; received: ${received}`;
      continue;
    }
    if (!u.contents) continue;
    const mismatch = await checkFile(root, path, Buffer.from(u.contents), 0o644);
    if (mismatch) return mismatch;
    if (u.enabled === undefined) continue;
    const state = await enablementState(root, u.name);
    if (u.enabled && state !== 'enabled') return `unit ${quote(u.name)} expected enabled=true, but systemd reports ${quote(state)}`;
    if (!u.enabled && state === 'enabled') return `unit ${quote(u.name)} expected enabled=false, but systemd reports ${quote(state)}`;
  }
  return undefined;
}

/** The MCO's `checkFileContentsAndMode`. */
async function checkFile(root: string, path: string, expected: Buffer, mode: number): Promise<string | undefined> {
  const host = await resolveInRoot(root, path);
  const st = await lstatOrUndefined(host);
  if (!st) return `could not stat file ${quote(path)}: lstat ${path}: no such file or directory`;
  const actual = goFileMode(st);
  if (actual !== mode) return `mode mismatch for file: ${quote(path)}; expected: ${formatMode(mode)}; received: ${formatMode(actual)}`;
  const contents = await readFile(host);
  if (!contents.equals(expected)) return `content mismatch for file ${quote(path)}`;
  return undefined;
}

/** Go's %q for the paths and names here (JSON's escapes are the same for printable text). */
function quote(s: string): string {
  return JSON.stringify(s);
}

// Go's os.FileMode bits, so the message reads as the MCO's `%v/%d/%#o` of one.
const goBits = { dir: 2 ** 31, symlink: 2 ** 27, device: 2 ** 26, pipe: 2 ** 25, socket: 2 ** 24, setuid: 2 ** 23, setgid: 2 ** 22, charDevice: 2 ** 21, sticky: 2 ** 20 };
const goLetters = 'dalTLDpSugct?';

function goFileMode(st: Stats): number {
  let m = st.mode & 0o777;
  if (st.isDirectory()) m += goBits.dir;
  else if (st.isSymbolicLink()) m += goBits.symlink;
  else if (st.isFIFO()) m += goBits.pipe;
  else if (st.isSocket()) m += goBits.socket;
  else if (st.isCharacterDevice()) m += goBits.device + goBits.charDevice;
  else if (st.isBlockDevice()) m += goBits.device;
  if (st.mode & 0o4000) m += goBits.setuid;
  if (st.mode & 0o2000) m += goBits.setgid;
  if (st.mode & 0o1000) m += goBits.sticky;
  return m;
}

/** `-rw-r--r--/420/0644`: Go's String(), decimal and `%#o` of a FileMode. */
function formatMode(mode: number): string {
  let type = '';
  for (let i = 0; i < goLetters.length; i++) {
    if (Math.floor(mode / 2 ** (31 - i)) % 2 === 1) type += goLetters[i];
  }
  const rwx = 'rwxrwxrwx'
    .split('')
    .map((c, i) => ((mode >> (8 - i)) & 1 ? c : '-'))
    .join('');
  return `${type || '-'}${rwx}/${mode}/${mode === 0 ? '0' : `0${mode.toString(8)}`}`;
}
