/**
 * Semantic checks of a spec 3 config, the ones Ignition makes before it touches a disk
 * (coreos/ignition `config/v3_N/types` `Validate` methods), with Shipyard's own wording:
 * absolute and clean paths, no duplicate path across files, directories and links, modes in
 * range, unit and drop-in names with valid suffixes, sources that parse and use a supported
 * scheme, hashes of the right form, no entry beneath a link the config itself creates. Names
 * that would become path segments (units, drop-ins, users) may not contain `/`, so a config can
 * never address a file outside the directory it means.
 */
import { join, Report, type ConfigProblem } from './problems.ts';
import { checkSource } from './source.ts';
import type { IgnitionConfig, IgnitionNode, IgnitionOwner, IgnitionResource, IgnitionUnit } from './types.ts';
import { parseVersion } from './version.ts';

const unitSuffixes = ['.service', '.socket', '.device', '.mount', '.automount', '.swap', '.target', '.path', '.timer', '.snapshot', '.slice', '.scope'];
const hashLengths: Record<string, { hexLength: number; sinceMinor: number }> = {
  sha512: { hexLength: 128, sinceMinor: 0 },
  sha256: { hexLength: 64, sinceMinor: 2 },
};

export interface ValidationResult {
  readonly errors: ConfigProblem[];
  readonly warnings: ConfigProblem[];
}

export function validateConfig(config: IgnitionConfig): ValidationResult {
  const report = new Report();
  validateInto(config, report);
  return { errors: report.errors, warnings: report.warnings };
}

export function validateInto(config: IgnitionConfig, report: Report): void {
  const version = parseVersion(config.ignition?.version ?? '');
  const minor = version?.major === 3 ? version.minor : 4;
  const refs = config.ignition.config;
  refs?.merge?.forEach((r, i) => resource(r, join('ignition.config.merge', i), { required: true, minor }, report));
  if (refs?.replace) resource(refs.replace, 'ignition.config.replace', { required: false, minor }, report);
  config.ignition.security?.tls?.certificateAuthorities?.forEach((r, i) =>
    resource(r, join('ignition.security.tls.certificateAuthorities', i), { required: true, minor }, report),
  );
  storage(config, minor, report);
  units(config, report);
  passwd(config, report);
}

function resource(r: IgnitionResource, at: string, opts: { required: boolean; minor: number }, report: Report): void {
  const source = r.source;
  if (!source) {
    if (opts.required) report.error(join(at, 'source'), 'is required');
  } else {
    const check = checkSource(source);
    if (!check.ok) report.error(join(at, 'source'), check.message);
    else if (r.httpHeaders?.length && check.scheme === 'data') report.error(join(at, 'httpHeaders'), 'HTTP headers need an http or https source');
  }
  if (r.compression !== undefined && r.compression !== '' && r.compression !== 'gzip') {
    report.error(join(at, 'compression'), `invalid compression method ${JSON.stringify(r.compression)} (supported: "gzip" or none)`);
  }
  const hash = r.verification?.hash;
  if (hash !== undefined) {
    const hashAt = join(join(at, 'verification'), 'hash');
    if (!source) report.error(hashAt, 'source must be specified if verification is specified');
    const dash = hash.indexOf('-');
    const fn = dash < 0 ? undefined : hashLengths[hash.slice(0, dash)];
    if (dash < 0) report.error(hashAt, 'malformed hash specifier: expected "<function>-<hex digest>"');
    else if (!fn || fn.sinceMinor > opts.minor) report.error(hashAt, `unrecognized hash function ${JSON.stringify(hash.slice(0, dash))}`);
    else if (!new RegExp(`^[0-9a-fA-F]{${fn.hexLength}}$`).test(hash.slice(dash + 1))) report.error(hashAt, `incorrect size for hash sum: expected ${fn.hexLength} hex digits`);
  }
  const seen = new Set<string>();
  r.httpHeaders?.forEach((h, i) => {
    const hAt = join(join(at, 'httpHeaders'), i);
    if (!h.name) report.error(join(hAt, 'name'), "HTTP header name can't be empty");
    else if (seen.has(h.name.toLowerCase())) report.error(hAt, `duplicate HTTP header ${JSON.stringify(h.name)}`);
    seen.add(h.name.toLowerCase());
  });
}

function path(p: string | undefined, at: string, report: Report): p is string {
  const message = pathProblem(p);
  if (message) report.error(join(at, 'path'), message);
  return !message;
}

function pathProblem(p: string | undefined): string | undefined {
  if (!p) return 'is required';
  if (!p.startsWith('/')) return `must be absolute (got ${JSON.stringify(p)})`;
  if (cleanPath(p) !== p) return `must be fully simplified (${JSON.stringify(cleanPath(p))}, not ${JSON.stringify(p)})`;
  return undefined;
}

/** POSIX path.Clean for absolute paths: no `//`, `.`, `..` or trailing `/`. */
export function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

function owner(o: IgnitionOwner | undefined, at: string, report: Report): void {
  if (o && o.id !== undefined && o.name) report.error(at, 'cannot set both id and name');
}

function mode(m: number | undefined, at: string, report: Report): void {
  if (m === undefined) return;
  const octal = m >= 0 ? ` (0${m.toString(8)})` : '';
  if (m < 0 || m > 0o7777) report.error(join(at, 'mode'), `illegal file mode ${m}${octal}: must be between 0 and 07777 octal`);
  else if (m & 0o7000) report.warn(join(at, 'mode'), 'setuid/setgid/sticky bits are not supported before spec 3.6.0');
}

function storage(config: IgnitionConfig, minor: number, report: Report): void {
  const s = config.storage;
  if (!s) return;
  const byPath = new Map<string, string>();
  const linkPaths = (s.links ?? []).map((l) => l.path).filter((p): p is string => !!p);
  const unitPaths = systemdPaths(config);
  const entry = (n: IgnitionNode, at: string, isLink: boolean): void => {
    owner(n.user, join(at, 'user'), report);
    owner(n.group, join(at, 'group'), report);
    if (!path(n.path, at, report)) return;
    const previous = byPath.get(n.path);
    if (previous) report.error(at, `duplicate path ${JSON.stringify(n.path)} (also ${previous})`);
    else byPath.set(n.path, at);
    const under = linkPaths.find((l) => n.path.startsWith(`${l}/`));
    if (under) report.error(at, `${isLink ? 'link' : 'path'} ${JSON.stringify(n.path)} is beneath link ${JSON.stringify(under)} created by this config`);
    if (unitPaths.has(n.path)) report.error(join(at, 'path'), `conflicts with systemd unit or drop-in ${JSON.stringify(n.path)}`);
  };
  // Directories first, as Ignition walks them, so a file duplicating a directory is the one blamed.
  s.directories?.forEach((d, i) => {
    const at = join('storage.directories', i);
    entry(d, at, false);
    mode(d.mode, at, report);
  });
  s.files?.forEach((file, i) => {
    const at = join('storage.files', i);
    entry(file, at, false);
    mode(file.mode, at, report);
    if (file.contents) resource(file.contents, join(at, 'contents'), { required: false, minor }, report);
    file.append?.forEach((r, j) => resource(r, join(join(at, 'append'), j), { required: false, minor }, report));
    if (file.overwrite === true && !file.contents?.source) report.error(join(at, 'overwrite'), 'must be false if contents.source is unspecified');
  });
  const directories = new Set((s.directories ?? []).map((d) => d.path));
  s.links?.forEach((l, i) => {
    const at = join('storage.links', i);
    entry(l, at, true);
    if (!l.target) {
      report.error(join(at, 'target'), 'is required');
      return;
    }
    if (!l.hard) return;
    const target = l.target.startsWith('/') ? cleanPath(l.target) : cleanPath(`${l.path}/${l.target}`);
    if (directories.has(target)) report.error(at, `hard link target ${JSON.stringify(target)} is a directory`);
    if (l.user || l.group) report.warn(at, 'user/group are ignored for hard links');
  });
}

function systemdPaths(config: IgnitionConfig): Set<string> {
  const out = new Set<string>();
  for (const u of config.systemd?.units ?? []) {
    if (u.contents) out.add(`/etc/systemd/system/${u.name}`);
    for (const d of u.dropins ?? []) if (d.contents) out.add(`/etc/systemd/system/${u.name}.d/${d.name}`);
  }
  return out;
}

function segmentName(name: string | undefined, at: string, report: Report): name is string {
  let message: string | undefined;
  if (!name) message = 'is required';
  else if (name.includes('/') || name === '.' || name === '..') message = `${JSON.stringify(name)} must be a single path segment (no "/")`;
  if (message) report.error(join(at, 'name'), message);
  return !message;
}

function units(config: IgnitionConfig, report: Report): void {
  const seen = new Set<string>();
  config.systemd?.units?.forEach((u, i) => {
    const at = join('systemd.units', i);
    if (segmentName(u.name, at, report)) {
      if (!unitSuffixes.some((s) => u.name.endsWith(s) && u.name.length > s.length)) {
        report.error(join(at, 'name'), `invalid systemd unit extension in ${JSON.stringify(u.name)} (must end in one of ${unitSuffixes.join(', ')})`);
      }
      if (seen.has(u.name)) report.error(at, `duplicate unit ${JSON.stringify(u.name)}`);
      seen.add(u.name);
    }
    const sections = unitContents(u.contents, join(at, 'contents'), report);
    if (u.enabled && u.contents && sections && !sections.has('Install')) {
      report.warn(join(at, 'contents'), `unit ${JSON.stringify(u.name)} is enabled, but has no [Install] section so enable does nothing`);
    }
    dropins(u, at, report);
  });
}

function dropins(u: IgnitionUnit, at: string, report: Report): void {
  const seen = new Set<string>();
  u.dropins?.forEach((d, j) => {
    const dAt = join(join(at, 'dropins'), j);
    if (segmentName(d.name, dAt, report)) {
      if (!d.name.endsWith('.conf')) report.error(join(dAt, 'name'), `invalid systemd drop-in extension in ${JSON.stringify(d.name)} (must end in .conf)`);
      if (seen.has(d.name)) report.error(dAt, `duplicate drop-in ${JSON.stringify(d.name)}`);
      seen.add(d.name);
    }
    unitContents(d.contents, join(dAt, 'contents'), report);
  });
}

/** systemd's unit syntax, loosely: section headers, `key=value` lines, comments, continuations. */
export function unitContents(contents: string | undefined, at: string, report: Report): Set<string> | undefined {
  if (contents === undefined) return new Set();
  const sections = new Set<string>();
  let section: string | undefined;
  let continued = false;
  const lines = contents.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    const wasContinued = continued;
    continued = line.endsWith('\\');
    if (wasContinued || line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    let problem: string | undefined;
    if (line.startsWith('[')) {
      if (!line.endsWith(']') || line.length < 3) problem = 'malformed section header';
      else sections.add((section = line.slice(1, -1)));
    } else if (!section) problem = 'property outside of any [Section]';
    else if (!line.includes('=')) problem = 'expected "key=value"';
    if (problem) {
      report.error(at, `invalid unit content: line ${n + 1}: ${problem}`);
      return undefined;
    }
  }
  return sections;
}

function passwd(config: IgnitionConfig, report: Report): void {
  const users = new Set<string>();
  config.passwd?.users?.forEach((u, i) => {
    const at = join('passwd.users', i);
    if (!segmentName(u.name, at, report)) return;
    if (users.has(u.name)) report.error(at, `duplicate user ${JSON.stringify(u.name)}`);
    users.add(u.name);
    if (u.homeDir !== undefined && !u.homeDir.startsWith('/')) report.error(join(at, 'homeDir'), `must be absolute (got ${JSON.stringify(u.homeDir)})`);
  });
  const groups = new Set<string>();
  config.passwd?.groups?.forEach((g, i) => {
    const at = join('passwd.groups', i);
    if (!g.name) {
      report.error(join(at, 'name'), 'is required');
      return;
    }
    if (groups.has(g.name)) report.error(at, `duplicate group ${JSON.stringify(g.name)}`);
    groups.add(g.name);
  });
}
