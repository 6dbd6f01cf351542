/**
 * Ignition's first boot, against a node root directory instead of a disk. The user data is
 * parsed, its references fetched and merged (`ignition-render.ts`), then written into the root:
 * directories, files and symlinks shallowest first, hard links last (their targets must exist);
 * systemd units into `etc/systemd/system`, enabled through `<target>.wants/` links and masked by
 * a link to `/dev/null`; SSH keys into `home/<user>/.ssh/authorized_keys.d/ignition`. Overwrite
 * rules are Ignition's: an existing node is replaced only with `overwrite: true`; without it a
 * file with no source keeps its contents (and gets appended to), anything else fails.
 *
 * `etc/.ignition-result.json` records that it ran, as on a real machine, so a reboot does not
 * run it again. A failure leaves no record: the next boot tries again.
 *
 * Symlink targets that are absolute are written relative to the link, so that a process on the
 * host reading the root with plain file calls stays inside it; `/dev/null` (masks) is kept.
 * Ownership (`user`/`group`), password hashes, disks and kernel arguments cannot be applied to
 * a directory: they are listed in the record as skipped.
 */
import { chmod, link, lstat, mkdir, readFile, readlink, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { formatProblem, IgnitionConfigError, parse, validateConfig, type IgnitionConfig, type IgnitionFile, type IgnitionLink, type IgnitionUnit } from '../api/ignition/index.ts';
import { createLoopbackFetcher, type Fetcher } from './ignition-fetch.ts';
import { readResource, renderConfig, type RenderContext } from './ignition-render.ts';
import { resolveInRoot } from './node-root.ts';

export const resultFile = 'etc/.ignition-result.json';

export interface ApplyOptions {
  /** How http(s) sources are fetched; default: loopback-only with retries (`ignition-fetch.ts`). */
  readonly fetch?: Fetcher;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
}

export interface IgnitionResult {
  readonly provisioningDate: string;
  readonly userConfigProvided: boolean;
  /** URLs fetched while rendering and writing, in order. */
  readonly fetched: readonly string[];
  readonly warnings: readonly string[];
  /** Parts of the config a node root cannot express. */
  readonly skipped: readonly string[];
}

export class IgnitionApplyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IgnitionApplyError';
  }
}

/** Renders `config` and writes it into `root`, then records the result. */
export async function applyIgnition(config: IgnitionConfig, root: string, options: ApplyOptions = {}): Promise<IgnitionResult> {
  const ctx: RenderContext = {
    fetch: options.fetch ?? createLoopbackFetcher(),
    signal: options.signal,
    certificateAuthorities: [],
    fetched: [],
    warnings: [],
  };
  const rendered = await renderConfig(config, ctx);
  // Two valid configs can merge into an invalid one; Ignition validates what it will write.
  const problems = validateConfig(rendered);
  if (problems.errors.length > 0) throw new IgnitionConfigError(problems.errors);
  const skipped = await writeConfig(rendered, root, ctx);
  const result: IgnitionResult = {
    provisioningDate: (options.now?.() ?? new Date()).toISOString(),
    userConfigProvided: true,
    fetched: ctx.fetched,
    warnings: ctx.warnings,
    skipped,
  };
  await writeResult(root, result);
  return result;
}

/**
 * What booting does: nothing if Ignition already ran on this root; otherwise parse the user
 * data (none is fine: the record says no config was provided) and apply it.
 */
export async function runFirstBoot(userData: string | undefined, root: string, options: ApplyOptions = {}): Promise<{ ran: boolean; result?: IgnitionResult }> {
  if (await hasRun(root)) return { ran: false };
  if (userData === undefined || userData.trim() === '') {
    const result: IgnitionResult = { provisioningDate: (options.now?.() ?? new Date()).toISOString(), userConfigProvided: false, fetched: [], warnings: [], skipped: [] };
    await writeResult(root, result);
    return { ran: true, result };
  }
  const parsed = parse(userData);
  if (!parsed.ok) throw new IgnitionConfigError(parsed.errors);
  const result = await applyIgnition(parsed.config, root, options);
  return { ran: true, result: { ...result, warnings: [...parsed.warnings.map(formatProblem), ...result.warnings] } };
}

export async function hasRun(root: string): Promise<boolean> {
  return stat(join(root, resultFile)).then(
    () => true,
    () => false,
  );
}

export async function readResult(root: string): Promise<IgnitionResult | undefined> {
  try {
    return JSON.parse(await readFile(join(root, resultFile), 'utf8')) as IgnitionResult;
  } catch {
    return undefined;
  }
}

async function writeResult(root: string, result: IgnitionResult): Promise<void> {
  const path = join(root, resultFile);
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeFile(`${path}.tmp`, `${JSON.stringify(result, null, 2)}\n`, { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

async function writeConfig(config: IgnitionConfig, root: string, ctx: RenderContext): Promise<string[]> {
  const skipped: string[] = [];
  const s = config.storage ?? {};
  type Entry = { path: string; write: () => Promise<void> };
  const entries: Entry[] = [
    ...(s.directories ?? []).map((d) => ({ path: d.path, write: () => writeDirectory(root, d.path, d.mode, d.overwrite === true) })),
    ...(s.files ?? []).map((f) => ({ path: f.path, write: () => writeIgnitionFile(root, f, ctx) })),
    ...(s.links ?? []).filter((l) => !l.hard).map((l) => ({ path: l.path, write: () => writeLink(root, l) })),
  ];
  const depth = (p: string): number => p.split('/').filter(Boolean).length;
  entries.sort((a, b) => depth(a.path) - depth(b.path));
  for (const e of entries) await step(e.path, e.write);
  for (const l of (s.links ?? []).filter((x) => x.hard)) await step(l.path, () => writeLink(root, l));

  for (const u of config.systemd?.units ?? []) await step(`unit ${u.name}`, () => writeUnit(root, u, skipped));
  for (const u of config.passwd?.users ?? []) {
    if (u.sshAuthorizedKeys?.length) {
      const home = u.homeDir ?? (u.name === 'root' ? '/root' : `/home/${u.name}`);
      await step(`user ${u.name}`, () => writeKeys(root, home, u.sshAuthorizedKeys!));
    }
    if (u.passwordHash !== undefined) skipped.push(`passwd.users ${u.name}: passwordHash`);
  }
  const owned = [...(s.files ?? []), ...(s.directories ?? []), ...(s.links ?? [])].filter((n) => n.user || n.group).map((n) => n.path);
  if (owned.length) skipped.push(`ownership of ${owned.join(', ')}`);
  if (config.passwd?.groups?.length) skipped.push(`passwd.groups: ${config.passwd.groups.map((g) => g.name).join(', ')}`);
  for (const key of ['disks', 'raid', 'filesystems', 'luks'] as const) if (s[key]?.length) skipped.push(`storage.${key}: a node root has no block devices`);
  const kargs = config.kernelArguments;
  if (kargs?.shouldExist?.length || kargs?.shouldNotExist?.length) skipped.push('kernelArguments');
  return skipped;
}

async function step(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    throw new IgnitionApplyError(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

async function lstatOrUndefined(path: string) {
  return lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

async function prepare(root: string, path: string): Promise<string> {
  const host = await resolveInRoot(root, path);
  await mkdir(dirname(host), { recursive: true, mode: 0o755 });
  return host;
}

async function writeDirectory(root: string, path: string, mode: number | undefined, overwrite: boolean): Promise<void> {
  const host = await prepare(root, path);
  let st = await lstatOrUndefined(host);
  if (st && overwrite) {
    await rm(host, { recursive: true, force: true });
    st = undefined;
  } else if (st && !st.isDirectory()) {
    throw new Error('a non-directory already exists and overwrite is false');
  }
  if (!st) await mkdir(host, { mode: 0o755 });
  // Unset mode: 0755 for a new directory, the old mode for a kept one (Ignition's rule).
  if (mode !== undefined || !st) await chmod(host, mode ?? 0o755);
}

async function writeIgnitionFile(root: string, f: IgnitionFile, ctx: RenderContext): Promise<void> {
  const host = await prepare(root, f.path);
  const st = await lstatOrUndefined(host);
  const hasSource = !!f.contents?.source;
  const replace = !!st && f.overwrite === true;
  if (st && !replace) {
    if (!st.isFile()) throw new Error('a non-regular file already exists and overwrite is false');
    if (hasSource) throw new Error('a file already exists and overwrite is false');
  }
  const keep = !!st && !replace;
  // Everything is read before anything is removed, so a failed fetch leaves the old file.
  const parts: Buffer[] = [];
  if (keep) parts.push(await readFile(host));
  else if (hasSource) parts.push(await readResource(f.contents!, ctx));
  for (const a of f.append ?? []) parts.push(await readResource(a, ctx));
  if (replace && !st!.isFile()) await rm(host, { recursive: true, force: true });
  // Unset mode: 0644 for a new file, the old mode for a kept one (Ignition's rule).
  const mode = f.mode ?? (keep ? st!.mode & 0o7777 : 0o644);
  const tmp = `${host}.ignition-tmp`;
  await writeFile(tmp, Buffer.concat(parts), { mode });
  await chmod(tmp, mode);
  await rename(tmp, host);
}

/** Absolute targets become relative to the link, so the host never follows one out of the root. */
function linkTarget(path: string, target: string): string {
  if (!target.startsWith('/') || target === '/dev/null') return target;
  return posix.relative(posix.dirname(path), target) || '.';
}

async function writeLink(root: string, l: IgnitionLink): Promise<void> {
  const host = await prepare(root, l.path);
  const target = l.target!;
  const st = await lstatOrUndefined(host);
  if (l.hard) {
    const targetPath = target.startsWith('/') ? target : posix.join(posix.dirname(l.path), target);
    const targetHost = await resolveInRoot(root, targetPath);
    const tst = await lstat(targetHost).catch(() => undefined);
    if (!tst) throw new Error(`hard link target ${JSON.stringify(targetPath)} does not exist`);
    if (st && l.overwrite !== true) {
      if (st.ino === tst.ino && st.dev === tst.dev) return;
      throw new Error('a file already exists at that path but is not the target and overwrite is false');
    }
    if (st) await rm(host, { recursive: true, force: true });
    await link(targetHost, host);
    return;
  }
  const written = linkTarget(l.path, target);
  if (st && l.overwrite !== true) {
    if (!st.isSymbolicLink()) throw new Error('a non-symlink already exists at that path and overwrite is false');
    const existing = await readlink(host);
    if (posix.normalize(existing) === posix.normalize(written)) return;
    throw new Error(`a symlink exists at that path but points to ${existing}, not ${target}, and overwrite is false`);
  }
  if (st) await rm(host, { recursive: true, force: true });
  await symlink(written, host);
}

async function writePlain(root: string, path: string, data: string, mode: number): Promise<void> {
  const host = await prepare(root, path);
  const st = await lstatOrUndefined(host);
  if (st && !st.isFile()) await rm(host, { recursive: true, force: true });
  await writeFile(`${host}.ignition-tmp`, data, { mode });
  await chmod(`${host}.ignition-tmp`, mode);
  await rename(`${host}.ignition-tmp`, host);
}

async function replaceWithLink(root: string, path: string, target: string): Promise<void> {
  const host = await prepare(root, path);
  if (await lstatOrUndefined(host)) await rm(host, { recursive: true, force: true });
  await symlink(linkTarget(path, target), host);
}

const unitDir = '/etc/systemd/system';

async function writeUnit(root: string, u: IgnitionUnit, skipped: string[]): Promise<void> {
  const unitPath = `${unitDir}/${u.name}`;
  for (const d of u.dropins ?? []) {
    if (d.contents !== undefined) await writePlain(root, `${unitPath}.d/${d.name}`, d.contents, 0o644);
  }
  if (u.mask) {
    if (u.contents !== undefined) skipped.push(`unit ${u.name}: contents (the unit is masked)`);
    await replaceWithLink(root, unitPath, '/dev/null');
  } else if (u.contents !== undefined) {
    await writePlain(root, unitPath, u.contents, 0o644);
  }
  if (u.enabled === undefined) return;
  // Without contents of its own the unit is a vendor one, as `systemctl enable` would find it.
  const target = u.contents !== undefined || u.mask ? unitPath : `/usr/lib/systemd/system/${u.name}`;
  for (const { dir, suffix } of installTargets(u.contents)) {
    const wantsPath = `${unitDir}/${dir}.${suffix}/${u.name}`;
    if (u.enabled) await replaceWithLink(root, wantsPath, target);
    else await unlink(await resolveInRoot(root, wantsPath)).catch(() => undefined);
  }
}

/** `[Install]` `WantedBy=`/`RequiredBy=`; a unit that names none is wanted by multi-user.target. */
function installTargets(contents: string | undefined): Array<{ dir: string; suffix: 'wants' | 'requires' }> {
  const out: Array<{ dir: string; suffix: 'wants' | 'requires' }> = [];
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

async function writeKeys(root: string, home: string, keys: readonly string[]): Promise<void> {
  const sshDir = await resolveInRoot(root, `${home}/.ssh`);
  await mkdir(join(sshDir, 'authorized_keys.d'), { recursive: true, mode: 0o700 });
  await chmod(sshDir, 0o700);
  await writePlain(root, `${home}/.ssh/authorized_keys.d/ignition`, `${keys.join('\n')}\n`, 0o600);
}
