/**
 * The `prune` command a pruner pod runs (issue 17, item 4; library-go's static-pod `prune`
 * subcommand): on its node, it removes every `<static-pod-name>-N` directory of the resource
 * directory whose N is at most `--max-eligible-revision` and not among `--protected-revisions`,
 * with the installer's leftover staging directories of those revisions. Anything else there (the
 * cert directory, newer revisions an installer may be writing right now, other files) is left
 * alone. It needs no API access: the controller has decided, this only applies it to the disk.
 *
 * Paths are the node's, resolved inside its root (`noderoot/`), which is found as the installer
 * finds it: through the container's `/etc/kubernetes/` mount.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveInRoot } from '../../../noderoot/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { podResourceName, resourceDir } from '../installer/install.ts';
import { nodeRootOf } from '../installer/command.ts';

export interface PruneArgs {
  readonly maxEligibleRevision: number;
  readonly protectedRevisions: ReadonlySet<number>;
  /** The node's path. */
  readonly resourceDir: string;
  readonly staticPodName: string;
}

const revisionOf = (text: string): number | undefined => (/^\d+$/.test(text) ? Number(text) : undefined);

/** Upstream's flags; `--cert-dir` and `-v` are accepted and not needed. */
export function parsePruneArgs(args: readonly string[]): PruneArgs {
  const { values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      v: { type: 'string' },
      'max-eligible-revision': { type: 'string' },
      'protected-revisions': { type: 'string', default: '' },
      'resource-dir': { type: 'string', default: resourceDir },
      'cert-dir': { type: 'string' },
      'static-pod-name': { type: 'string', default: podResourceName },
    },
  });
  const max = revisionOf(values['max-eligible-revision'] ?? '');
  if (max === undefined) throw new Error(`prune: --max-eligible-revision must be a non-negative integer, got ${JSON.stringify(values['max-eligible-revision'] ?? '')}`);
  const protectedRevisions = new Set<number>();
  for (const part of values['protected-revisions']!.split(',').filter((p) => p !== '')) {
    const r = revisionOf(part.trim());
    if (r === undefined) throw new Error(`prune: --protected-revisions: ${JSON.stringify(part)} is not a revision`);
    protectedRevisions.add(r);
  }
  const staticPodName = values['static-pod-name']!;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(staticPodName)) throw new Error(`prune: --static-pod-name=${staticPodName}: not a name`);
  const dir = values['resource-dir']!.replace(/(.)\/+$/, '$1');
  if (!dir.startsWith('/')) throw new Error(`prune: --resource-dir=${dir}: must be an absolute path`);
  return { maxEligibleRevision: max, protectedRevisions, resourceDir: dir, staticPodName };
}

/** The directory names to remove, among `names`; pure. */
export function prunableEntries(names: readonly string[], a: PruneArgs): string[] {
  const escaped = a.staticPodName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The revision directory, and what an interrupted installer of that revision left beside it.
  const pattern = new RegExp(`^\\.?${escaped}-(\\d+)(\\.shipyard-staging|\\.shipyard-previous)?$`);
  return names.filter((name) => {
    const m = pattern.exec(name);
    if (!m || (name.startsWith('.') !== (m[2] !== undefined))) return false;
    const r = Number(m[1]);
    return r <= a.maxEligibleRevision && !a.protectedRevisions.has(r);
  });
}

/** Removes the unprotected revision directories under `root`'s resource dir; returns the names removed. */
export async function pruneRevisions(root: string, a: PruneArgs): Promise<string[]> {
  const dir = await resolveInRoot(root, a.resourceDir);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    // A node that never got a revision has nothing to prune.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  const removed = prunableEntries(dirs, a).sort();
  for (const name of removed) await rm(join(dir, name), { recursive: true, force: true });
  return removed;
}

export interface PruneContext extends ComponentContext {
  /** Where the removals are reported; stdout unless given (the pod's log). */
  readonly log?: (line: string) => void;
}

export async function runPrune(ctx: PruneContext): Promise<void> {
  const args = parsePruneArgs(ctx.args);
  const log = ctx.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const root = await nodeRootOf(ctx.rootfs);
  const removed = await pruneRevisions(root, args);
  const kept = [...args.protectedRevisions].sort((x, y) => x - y).join(',');
  log(removed.length ? `pruned ${removed.join(', ')} from ${args.resourceDir} (protected: ${kept})` : `nothing to prune in ${args.resourceDir} (protected: ${kept})`);
}
