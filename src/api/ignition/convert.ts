/**
 * Writing a config in another spec version than the one it is held in: what the
 * machine-config server does when a booting machine's Ignition asks for 3.1.0 or 2.2.0 and the
 * rendered config is held as 3.4.0 (coreos/ign-converter's v34tov33 … v32tov31 and v32tov22
 * steps, which the MCO chains). Going up within spec 3 only changes the version, since every
 * 3.x field exists in every later 3.y. Going down, a field the older spec lacks is dropped
 * when it says nothing (empty, or its "unset" value such as `shouldExist: true`) and is
 * otherwise a problem naming the field and the spec it needs: a config is never served with
 * part of it silently missing. Spec 2.2 also lacks what 3.2 added beyond it (HTTP headers,
 * proxies, LUKS, compressed config references, sha256) and names files by filesystem.
 */
import { join, Report, type ConfigProblem } from './problems.ts';
import { isObject, type Shape } from './shape.ts';
import { configV3 } from './shapes.ts';
import type {
  IgnitionConfig,
  IgnitionFile,
  IgnitionNode,
  IgnitionResource,
  IgnitionV2Config,
  IgnitionV2File,
  IgnitionV2Node,
  IgnitionV2Reference,
  IgnitionV2User,
  OpaqueEntry,
} from './types.ts';
import { isSupported, parseVersion, supportedVersions } from './version.ts';

export type ConvertResult =
  | { ok: true; config: IgnitionConfig | IgnitionV2Config }
  | { ok: false; errors: ConfigProblem[] };

interface Target {
  /** `3.1.0`, `2.2.0`: how messages name the spec. */
  readonly label: string;
  /** The spec 3 minor whose fields the target has (2.2 is checked as 3.2, then narrowed). */
  readonly minor: number;
  readonly v2: boolean;
}

/** The config as spec `version` (one of `supportedVersions`), or what that spec cannot express. */
export function convertConfig(config: IgnitionConfig, version: string): ConvertResult {
  const v = parseVersion(version);
  if (!v || !isSupported(v)) {
    return { ok: false, errors: [{ path: 'ignition.version', message: `unsupported config version ${JSON.stringify(version)} (supported: ${supportedVersions.join(', ')})` }] };
  }
  const target: Target = { label: `${v.major}.${v.minor}.0`, minor: v.major === 2 ? 2 : v.minor, v2: v.major === 2 };
  const report = new Report();
  const narrowed = strip(config, configV3, '', target, report) as IgnitionConfig;
  checkDetails(narrowed, target, report);
  if (report.errors.length > 0) return { ok: false, errors: report.errors };
  if (target.v2) return { ok: true, config: toSpec2(narrowed) };
  narrowed.ignition.version = target.label;
  return { ok: true, config: narrowed };
}

/** A copy holding only what the target's spec 3 minor declares; newer fields dropped if empty, reported if not. */
function strip(value: unknown, shape: Shape, path: string, target: Target, report: Report): unknown {
  if (typeof shape === 'string') return shape === 'opaque' ? structuredClone(value) : value;
  if ('array' in shape) return Array.isArray(value) ? value.map((item, i) => strip(item, shape.array, join(path, i), target, report)) : value;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = Object.hasOwn(shape.object, key) ? shape.object[key] : undefined;
    if (!field || raw === undefined) continue;
    const at = join(path, key);
    if (field.since !== undefined && field.since > target.minor) {
      if (!isEmpty(raw) && raw !== field.unset) report.error(at, `requires spec version 3.${field.since}.0 or later, not ${target.label}`);
      continue;
    }
    out[key] = raw === null ? null : strip(raw, field.shape, at, target, report);
  }
  return out;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.values(value).every(isEmpty);
  return false;
}

/** What a field-by-field walk cannot see: values inside fields both specs have, and spec 2.2's gaps. */
function checkDetails(c: IgnitionConfig, target: Target, report: Report): void {
  const unsupported = (at: string, what: string) => report.error(at, `spec ${target.label} has no ${what}`);
  const s = c.storage;
  if (target.minor < 4) {
    const modes = (entries: { mode?: number }[] | undefined, list: string) =>
      entries?.forEach((e, i) => {
        if (e.mode !== undefined && e.mode & 0o7000) unsupported(join(join(`storage.${list}`, i), 'mode'), 'special mode bits (setuid, setgid, sticky)');
      });
    modes(s?.files, 'files');
    modes(s?.directories, 'directories');
    s?.luks?.forEach((l, i) => {
      const at = join('storage.luks', i);
      if (l.discard === true) unsupported(join(at, 'discard'), 'LUKS discard');
      if (Array.isArray(l.openOptions) && l.openOptions.length > 0) unsupported(join(at, 'openOptions'), 'LUKS openOptions');
      const tang = isObject(l.clevis) && Array.isArray(l.clevis.tang) ? l.clevis.tang : [];
      tang.forEach((t: unknown, j) => {
        if (isObject(t) && !isEmpty(t.advertisement)) unsupported(join(join(join(at, 'clevis.tang'), j), 'advertisement'), 'offline Tang provisioning');
      });
    });
  }
  if (target.minor < 3) {
    s?.links?.forEach((l, i) => {
      if (!l.target) report.error(join(join('storage.links', i), 'target'), `is required in spec ${target.label}`);
    });
  }
  if (target.minor < 2 || target.v2) {
    eachResource(c, (r, at) => {
      if (r.verification?.hash?.startsWith('sha256-')) unsupported(join(join(at, 'verification'), 'hash'), 'sha256 hashes');
    });
    partitions(s).forEach(({ p, at }) => {
      if (p.resize === true) unsupported(join(at, 'resize'), 'partition resize');
    });
  }
  if (target.v2) checkSpec2(c, unsupported);
}

function checkSpec2(c: IgnitionConfig, unsupported: (at: string, what: string) => void): void {
  const ign = c.ignition;
  if (!isEmpty(ign.proxy)) unsupported('ignition.proxy', 'HTTP proxies');
  eachResource(c, (r, at, kind) => {
    if (r.httpHeaders?.length) unsupported(join(at, 'httpHeaders'), 'HTTP headers');
    if (kind === 'reference' && r.compression) unsupported(join(at, 'compression'), 'compressed config references and CAs');
  });
  if (c.storage?.luks?.length) unsupported('storage.luks', 'LUKS volumes');
  c.passwd?.users?.forEach((u, i) => {
    if (u.shouldExist === false) unsupported(join(join('passwd.users', i), 'shouldExist'), 'users that should not exist');
  });
  c.passwd?.groups?.forEach((g, i) => {
    if (g.shouldExist === false) unsupported(join(join('passwd.groups', i), 'shouldExist'), 'groups that should not exist');
  });
  partitions(c.storage).forEach(({ p, at }) => {
    // Spec 2.2 counts partition sizes in sectors, so a size in MiB has no faithful equivalent.
    if (p.sizeMiB !== undefined && p.sizeMiB !== null) unsupported(join(at, 'sizeMiB'), 'partition sizes in MiB');
    if (p.startMiB !== undefined && p.startMiB !== null) unsupported(join(at, 'startMiB'), 'partition starts in MiB');
    if (p.shouldExist === false) unsupported(join(at, 'shouldExist'), 'partitions that should not exist');
  });
  c.storage?.filesystems?.forEach((fs, i) => {
    if (Array.isArray(fs.mountOptions) && fs.mountOptions.length > 0) unsupported(join(join('storage.filesystems', i), 'mountOptions'), 'filesystem mount options');
  });
}

type ResourceKind = 'reference' | 'file';

function eachResource(c: IgnitionConfig, visit: (r: IgnitionResource, at: string, kind: ResourceKind) => void): void {
  c.ignition.config?.merge?.forEach((r, i) => visit(r, join('ignition.config.merge', i), 'reference'));
  if (c.ignition.config?.replace) visit(c.ignition.config.replace, 'ignition.config.replace', 'reference');
  c.ignition.security?.tls?.certificateAuthorities?.forEach((r, i) => visit(r, join('ignition.security.tls.certificateAuthorities', i), 'reference'));
  c.storage?.files?.forEach((f, i) => {
    const at = join('storage.files', i);
    if (f.contents) visit(f.contents, join(at, 'contents'), 'file');
    f.append?.forEach((a, j) => visit(a, join(join(at, 'append'), j), 'file'));
  });
}

function partitions(s: IgnitionConfig['storage']): { p: OpaqueEntry; at: string }[] {
  return (s?.disks ?? []).flatMap((d, i) =>
    (Array.isArray(d.partitions) ? d.partitions : []).filter(isObject).map((p, j) => ({ p, at: join(join(join('storage.disks', i), 'partitions'), j) })),
  );
}

/** Spec 3 (already narrowed to what 2.2 can say) written as spec 2.2. */
function toSpec2(c: IgnitionConfig): IgnitionV2Config {
  const out: IgnitionV2Config = { ignition: { version: '2.2.0' } };
  // A reference without a source names nothing (a 2.2 config's `replace: {verification: {}}`, as the seed's).
  const merged = (c.ignition.config?.merge ?? []).filter((r) => r.source);
  const replace = c.ignition.config?.replace?.source ? c.ignition.config.replace : undefined;
  if (merged.length || replace) {
    out.ignition.config = {};
    if (merged.length) out.ignition.config.append = merged.map(reference);
    if (replace) out.ignition.config.replace = reference(replace);
  }
  const cas = (c.ignition.security?.tls?.certificateAuthorities ?? []).filter((r) => r.source);
  if (cas.length) out.ignition.security = { tls: { certificateAuthorities: cas.map(reference) } };
  if (c.ignition.timeouts && !isEmpty(c.ignition.timeouts)) out.ignition.timeouts = { ...c.ignition.timeouts };
  const storage = storageV2(c.storage);
  if (storage) out.storage = storage;
  if (c.systemd?.units?.length) out.systemd = { units: c.systemd.units.map((u) => ({ ...u, ...(u.dropins ? { dropins: u.dropins.map((d) => ({ ...d })) } : {}) })) };
  if (c.passwd?.users?.length || c.passwd?.groups?.length) {
    out.passwd = {};
    if (c.passwd.users?.length) out.passwd.users = c.passwd.users.map(({ shouldExist: _, ...u }): IgnitionV2User => structuredClone(u));
    if (c.passwd.groups?.length) out.passwd.groups = c.passwd.groups.map(({ shouldExist: _, ...g }) => ({ ...g }));
  }
  return out;
}

function reference(r: IgnitionResource): IgnitionV2Reference {
  const out: IgnitionV2Reference = { source: r.source ?? '' };
  if (r.verification?.hash) out.verification = { hash: r.verification.hash };
  return out;
}

function storageV2(s: IgnitionConfig['storage']): IgnitionV2Config['storage'] {
  if (!s) return undefined;
  const out: NonNullable<IgnitionV2Config['storage']> = {};
  const mounts = mountPoints(s.filesystems ?? []);
  if (s.disks?.length) out.disks = s.disks.map(diskV2);
  if (s.raid?.length) out.raid = s.raid.map((r) => pick(r, ['name', 'level', 'devices', 'spares', 'options']));
  if (s.filesystems?.length) out.filesystems = s.filesystems.map((fs, i) => filesystemV2(fs, mounts[i]!));
  const files = (s.files ?? []).flatMap((f) => filesV2(f, mounts));
  if (files.length) out.files = files;
  if (s.directories?.length) out.directories = s.directories.map((d) => ({ ...nodeV2(d, mounts), ...(d.mode !== undefined ? { mode: d.mode } : {}) }));
  if (s.links?.length) {
    out.links = s.links.map((l) => ({ ...nodeV2(l, mounts), target: l.target ?? '', ...(l.hard !== undefined ? { hard: l.hard } : {}) }));
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Spec 2 names a file's filesystem; spec 3 mounts filesystems at paths. A filesystem with a
 * path becomes one named by that path (an index when it has none, as ign-converter names them),
 * and a node beneath it is written relative to it; everything else is on `root`.
 */
function mountPoints(filesystems: OpaqueEntry[]): string[] {
  let unnamed = 1;
  return filesystems.map((fs) => (typeof fs.path === 'string' && fs.path !== '/' ? fs.path : String(unnamed++)));
}

function filesystemV2(fs: OpaqueEntry, name: string): OpaqueEntry {
  return { name, mount: pick(fs, ['device', 'format', 'wipeFilesystem', 'label', 'uuid', 'options']) };
}

function diskV2(d: OpaqueEntry): OpaqueEntry {
  const out = pick(d, ['device', 'wipeTable']);
  if (Array.isArray(d.partitions)) out.partitions = d.partitions.filter(isObject).map((p) => pick(p, ['label', 'number', 'typeGuid', 'guid']));
  return out;
}

function nodeV2(n: IgnitionNode, mounts: readonly string[]): IgnitionV2Node {
  let filesystem = 'root';
  let path = n.path;
  for (const mount of mounts) {
    if (mount.startsWith('/') && n.path.startsWith(`${mount}/`) && (filesystem === 'root' || mount.length > filesystem.length)) {
      filesystem = mount;
      path = n.path.slice(mount.length);
    }
  }
  const out: IgnitionV2Node = { filesystem, path };
  if (n.overwrite !== undefined) out.overwrite = n.overwrite;
  if (n.user) out.user = { ...n.user };
  if (n.group) out.group = { ...n.group };
  return out;
}

/** A spec 3 file becomes its contents entry and one appending entry per `append` item, as spec 2 appends. */
function filesV2(f: IgnitionFile, mounts: readonly string[]): IgnitionV2File[] {
  // Spec 2 overwrites by default and spec 3 does not: say what spec 3 meant.
  const node = { ...nodeV2(f, mounts), overwrite: f.overwrite ?? false };
  const mode = f.mode !== undefined ? { mode: f.mode } : {};
  const out: IgnitionV2File[] = [];
  if (f.contents || !f.append?.length) out.push({ ...node, ...mode, ...(f.contents ? { contents: contentsV2(f.contents) } : {}) });
  for (const a of f.append ?? []) out.push({ ...node, overwrite: false, ...mode, append: true, contents: contentsV2(a) });
  return out;
}

function contentsV2(r: IgnitionResource): NonNullable<IgnitionV2File['contents']> {
  const out: NonNullable<IgnitionV2File['contents']> = {};
  if (r.source !== undefined) out.source = r.source;
  if (r.compression) out.compression = r.compression;
  if (r.verification?.hash) out.verification = { hash: r.verification.hash };
  return out;
}

function pick(o: OpaqueEntry, keys: readonly string[]): OpaqueEntry {
  const out: OpaqueEntry = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = structuredClone(o[k]);
  return out;
}
