/**
 * Spec 2.2 → spec 3.2, the translation coreos/ign-converter performs (and the MCO runs on every
 * 2.x MachineConfig): `append` references become `merge`; files, directories and links must live
 * on the `root` filesystem and lose the field; a file without `overwrite` overwrites (the 2.x
 * default), and an appending file becomes one with `append[]` and `overwrite: false`; the
 * deprecated `enable` and `create` fold into `enabled` and the user's own fields. Unlike the
 * converter, networkd units are not refused: they become files under `/etc/systemd/network/`,
 * which is where networkd reads them.
 */
import { encodeDataUrl } from './data-url.ts';
import { join, type Report } from './problems.ts';
import type {
  IgnitionConfig,
  IgnitionDirectory,
  IgnitionFile,
  IgnitionLink,
  IgnitionResource,
  IgnitionUnit,
  IgnitionUser,
  IgnitionV2Config,
  IgnitionV2Node,
  IgnitionV2Reference,
  OpaqueEntry,
} from './types.ts';

export const translatedVersion = '3.2.0';

export function translateV2(cfg: IgnitionV2Config, report: Report): IgnitionConfig {
  const out: IgnitionConfig = { ignition: { version: translatedVersion } };
  const ign = cfg.ignition;
  if (ign.config?.append || ign.config?.replace) {
    out.ignition.config = {};
    if (ign.config.append) out.ignition.config.merge = ign.config.append.map(reference);
    if (ign.config.replace) out.ignition.config.replace = reference(ign.config.replace);
  }
  if (ign.security?.tls?.certificateAuthorities) {
    out.ignition.security = { tls: { certificateAuthorities: ign.security.tls.certificateAuthorities.map(reference) } };
  }
  if (ign.timeouts) out.ignition.timeouts = { ...ign.timeouts };

  const storage = translateStorage(cfg, report);
  if (storage) out.storage = storage;
  if (cfg.systemd?.units) out.systemd = { units: cfg.systemd.units.map(translateUnit) };
  if (cfg.passwd) {
    out.passwd = {};
    if (cfg.passwd.users) out.passwd.users = cfg.passwd.users.map(translateUser);
    if (cfg.passwd.groups) out.passwd.groups = cfg.passwd.groups.map((g) => ({ ...g }));
  }
  return out;
}

function reference(ref: IgnitionV2Reference): IgnitionResource {
  const r: IgnitionResource = { source: ref.source };
  if (ref.verification?.hash !== undefined) r.verification = { hash: ref.verification.hash };
  return r;
}

function translateStorage(cfg: IgnitionV2Config, report: Report): IgnitionConfig['storage'] {
  const s = cfg.storage;
  const networkd = cfg.networkd?.units ?? [];
  if (!s && networkd.length === 0) return undefined;
  const out: NonNullable<IgnitionConfig['storage']> = {};
  (s?.filesystems ?? []).forEach((fs: OpaqueEntry, i) => {
    if (fs.name !== 'root') {
      report.error(join(join('storage.filesystems', i), 'name'), `filesystem ${JSON.stringify(fs.name)} cannot be translated to spec 3: only "root" is supported`);
    }
  });
  const files: IgnitionFile[] = (s?.files ?? []).map((file, i) => {
    const at = join('storage.files', i);
    const f: IgnitionFile = { ...node(file, at, report) };
    // 2.x overwrote files unless told otherwise; spec 3 defaults to keeping them.
    f.overwrite = file.append ? false : (file.overwrite ?? true);
    // A 2.x file without a source is an empty file; spec 3 wants a source when overwriting.
    const contents: IgnitionResource = { source: file.contents?.source || 'data:,' };
    if (file.contents?.compression) contents.compression = file.contents.compression;
    if (file.contents?.verification?.hash !== undefined) contents.verification = { hash: file.contents.verification.hash };
    if (file.append) f.append = [contents];
    else f.contents = contents;
    if (file.mode !== undefined) f.mode = file.mode;
    return f;
  });
  networkd.forEach((unit) => {
    files.push({ path: `/etc/systemd/network/${unit.name}`, overwrite: true, mode: 0o644, contents: { source: encodeDataUrl(unit.contents ?? '') } });
  });
  if (files.length > 0) out.files = files;
  if (s?.directories) {
    out.directories = s.directories.map((d, i): IgnitionDirectory => {
      const dir: IgnitionDirectory = node(d, join('storage.directories', i), report);
      if (d.mode !== undefined) dir.mode = d.mode;
      return dir;
    });
  }
  if (s?.links) {
    out.links = s.links.map((l, i): IgnitionLink => {
      const link: IgnitionLink = node(l, join('storage.links', i), report);
      if (l.target !== undefined) link.target = l.target;
      if (l.hard !== undefined) link.hard = l.hard;
      return link;
    });
  }
  if (s?.disks) out.disks = s.disks;
  if (s?.raid) out.raid = s.raid;
  return out;
}

function node(n: IgnitionV2Node, at: string, report: Report): IgnitionFile & IgnitionDirectory & IgnitionLink {
  if (n.filesystem === undefined) report.error(join(at, 'filesystem'), 'is required in spec 2.x');
  else if (n.filesystem !== 'root') report.error(join(at, 'filesystem'), `only the "root" filesystem is supported (got ${JSON.stringify(n.filesystem)})`);
  const out: IgnitionFile = { path: n.path };
  if (n.overwrite !== undefined) out.overwrite = n.overwrite;
  if (n.user && (n.user.id !== undefined || n.user.name !== undefined)) out.user = { ...n.user };
  if (n.group && (n.group.id !== undefined || n.group.name !== undefined)) out.group = { ...n.group };
  return out;
}

function translateUnit(u: NonNullable<NonNullable<IgnitionV2Config['systemd']>['units']>[number]): IgnitionUnit {
  const out: IgnitionUnit = { name: u.name };
  // `enabled` wins over the deprecated `enable`, as ign-converter decides.
  if (u.enabled !== undefined) out.enabled = u.enabled;
  else if (u.enable) out.enabled = true;
  if (u.mask) out.mask = true;
  if (u.contents !== undefined) out.contents = u.contents;
  if (u.dropins) out.dropins = u.dropins.map((d) => ({ ...d }));
  return out;
}

function translateUser(u: NonNullable<NonNullable<IgnitionV2Config['passwd']>['users']>[number]): IgnitionUser {
  const { create, ...rest } = u;
  // The deprecated `create` block only fills in what the user entry itself leaves unset.
  return { ...(create ?? {}), ...rest };
}
