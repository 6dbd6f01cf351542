/**
 * The parts of a node's config that live below the files on a real machine: the kernel command
 * line (rpm-ostree's `kargs`) and the OS deployment (image, kernel type, extensions). A node
 * root has no boot loader, so they are files: `etc/kernel/cmdline`, the file systemd's
 * `kernel-install` takes the command line from, and `etc/machine-config-daemon/os.json`. A
 * root first boot wrote has neither; the daemon's first update that touches them writes them,
 * and until then validation has nothing to compare (the node booted what its config said).
 *
 * Kernel arguments change as the MCO changes them: every argument the old config added is
 * deleted if present and the new config's are appended, so arguments the node had of its own
 * stay. The new config's own are deleted first too, so a second run after a crash does not add
 * them twice.
 */
import { readFile } from 'node:fs/promises';
import { canonicalKernelType, type NodeConfig } from './config.ts';
import { prepare, writeFileAtomic } from './fs.ts';
import { resolveInRoot } from './paths.ts';

export const kernelCmdlinePath = '/etc/kernel/cmdline';
export const osRecordPath = '/etc/machine-config-daemon/os.json';

export interface OsRecord {
  readonly osImageURL: string;
  readonly kernelType: string;
  readonly extensions: readonly string[];
}

/** One entry may hold several arguments (`"a=1 b"`); quotes keep spaces, as the kernel's parser does. */
export function splitKernelArguments(entries: readonly string[] | null | undefined): string[] {
  const out: string[] = [];
  for (const entry of entries ?? []) {
    let current = '';
    let quoted = false;
    for (const ch of entry) {
      if (ch === '"') quoted = !quoted;
      if (/\s/.test(ch) && !quoted) {
        if (current) out.push(current);
        current = '';
      } else current += ch;
    }
    if (current) out.push(current);
  }
  return out;
}

export async function readKernelArguments(root: string): Promise<string[] | undefined> {
  const text = await readFile(await resolveInRoot(root, kernelCmdlinePath, { followFinal: true }), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : splitKernelArguments([text]);
}

export async function updateKernelArguments(root: string, from: readonly string[] | null | undefined, to: readonly string[] | null | undefined): Promise<void> {
  const added = splitKernelArguments(to);
  const removed = new Set([...splitKernelArguments(from), ...added]);
  const kept = ((await readKernelArguments(root)) ?? []).filter((a) => !removed.has(a));
  await writeFileAtomic(await prepare(root, kernelCmdlinePath), `${[...kept, ...added].join(' ')}\n`, 0o644);
}

export function osRecordOf(config: NodeConfig): OsRecord {
  return { osImageURL: config.osImageURL ?? '', kernelType: canonicalKernelType(config.kernelType), extensions: [...(config.extensions ?? [])] };
}

export async function readOsRecord(root: string): Promise<OsRecord | undefined> {
  const text = await readFile(await resolveInRoot(root, osRecordPath, { followFinal: true }), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as OsRecord;
  } catch {
    // A damaged record says nothing about what booted; the validation reports the mismatch.
    return { osImageURL: '', kernelType: '', extensions: [] };
  }
}

export async function writeOsRecord(root: string, config: NodeConfig): Promise<void> {
  await writeFileAtomic(await prepare(root, osRecordPath), `${JSON.stringify(osRecordOf(config), null, 2)}\n`, 0o644);
}
