/**
 * systemd units in a node root, as `systemctl` would leave them: unit files and drop-ins under
 * `etc/systemd/system`, a unit enabled by links in the `<target>.wants/` (or `.requires/`)
 * directories its `[Install]` section names, disabled by removing every such link, masked by a
 * link to `/dev/null`. Nothing runs: a node root has no systemd, so these are the files a real
 * one would read at boot.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { linkTarget, lstatOrUndefined, prepare, removeFile, symlinkAtomic } from './fs.ts';
import { resolveInRoot } from './paths.ts';

export const unitDir = '/etc/systemd/system';
export const vendorUnitDir = '/usr/lib/systemd/system';
export const devNull = '/dev/null';

export function unitPath(name: string): string {
  return `${unitDir}/${name}`;
}

export function dropinPath(unit: string, dropin: string): string {
  return `${unitDir}/${unit}.d/${dropin}`;
}

interface InstallTarget {
  readonly dir: string;
  readonly suffix: 'wants' | 'requires';
}

/** `[Install]` `WantedBy=`/`RequiredBy=`; a unit that names none is wanted by multi-user.target. */
export function installTargets(contents: string | undefined): InstallTarget[] {
  const out: InstallTarget[] = [];
  let section = '';
  for (const raw of (contents ?? '').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) section = line.slice(1, -1);
    if (section !== 'Install') continue;
    const m = /^(WantedBy|RequiredBy)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    for (const t of m[2]!.split(/\s+/).filter(Boolean)) {
      if (!t.includes('/')) out.push({ dir: t, suffix: m[1] === 'WantedBy' ? 'wants' : 'requires' });
    }
  }
  return out.length ? out : [{ dir: 'multi-user.target', suffix: 'wants' }];
}

/**
 * Links `name` into every target its contents name. `target` is the unit file the links point
 * at (node path): the unit's own in `etc/systemd/system`, or the vendor one.
 */
export async function enableUnit(root: string, name: string, contents: string | undefined, target: string): Promise<void> {
  for (const { dir, suffix } of installTargets(contents)) {
    const link = `${unitDir}/${dir}.${suffix}/${name}`;
    await symlinkAtomic(linkTarget(link, target), await prepare(root, link));
  }
}

/** Every enablement link of `name`, whatever `[Install]` said when it was made (as `systemctl disable`). */
export async function enablementLinks(root: string, name: string): Promise<string[]> {
  const dir = await resolveInRoot(root, unitDir, { followFinal: true });
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const links: string[] = [];
  for (const e of entries) {
    if (!/\.(wants|requires)$/.test(e.name)) continue;
    const st = await lstatOrUndefined(join(dir, e.name, name));
    if (st?.isSymbolicLink()) links.push(`${unitDir}/${e.name}/${name}`);
  }
  return links;
}

export async function disableUnit(root: string, name: string): Promise<void> {
  for (const link of await enablementLinks(root, name)) await removeFile(await resolveInRoot(root, link));
}

export async function maskUnit(root: string, name: string): Promise<void> {
  await symlinkAtomic(devNull, await prepare(root, unitPath(name)));
}

export async function isMasked(root: string, name: string): Promise<boolean> {
  const host = await resolveInRoot(root, unitPath(name));
  const st = await lstatOrUndefined(host);
  return !!st?.isSymbolicLink() && (await readlink(host)) === devNull;
}

/** What `systemctl is-enabled` would answer, as far as links tell. */
export async function enablementState(root: string, name: string): Promise<'masked' | 'enabled' | 'disabled'> {
  if (await isMasked(root, name)) return 'masked';
  return (await enablementLinks(root, name)).length > 0 ? 'enabled' : 'disabled';
}

/** The unit file systemd would load for `name`: the administrator's, else the vendor's. */
export async function installedUnitFile(root: string, name: string): Promise<{ path: string; contents: string } | undefined> {
  for (const path of [unitPath(name), `${vendorUnitDir}/${name}`]) {
    const contents = await readFile(await resolveInRoot(root, path, { followFinal: true }), 'utf8').catch(() => undefined);
    if (contents !== undefined) return { path, contents };
  }
  return undefined;
}
