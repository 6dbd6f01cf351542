/**
 * What systemd would run for a service of a node root: the unit file under
 * `etc/systemd/system`, its drop-ins (`<unit>.d/*.conf`, in name order), and the command line
 * of its `ExecStart=` as systemd splits and expands it. The kubelet reads its own unit this way
 * (kubelet-unit.ts), as the flags a real kubelet gets come from `kubelet.service`.
 *
 * The syntax followed is systemd.syntax(7) and systemd.service(5): `[Section]` headers,
 * `Key=value` lines, `#`/`;` comments (also between continued lines), a trailing backslash
 * continuing a line (replaced by a space), an empty assignment resetting a list setting (so a
 * drop-in replaces `ExecStart=` by first emptying it), `-@:+!` prefixes on the command, words
 * split on whitespace with single or double quotes and C escapes, `%%` for `%`, and
 * environment variables from `Environment=` and `EnvironmentFile=` (a file of the node root):
 * `${NAME}` within a word, `$NAME` as a word of its own (split at whitespace), `$$` for `$`.
 * No other specifiers: a unit that needs them is not one this reader serves.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';

export const unitDir = '/etc/systemd/system';

export class UnitSyntaxError extends Error {}

interface Assignment {
  readonly section: string;
  readonly key: string;
  readonly value: string;
}

/** The assignments of a unit file, in order; `where` names it in errors. */
export function parseUnitText(text: string, where: string): Assignment[] {
  const out: Assignment[] = [];
  let section = '';
  let pending: { text: string; line: number } | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const comment = line.startsWith('#') || line.startsWith(';');
    if (pending) {
      // systemd skips comment lines inside a continued line rather than ending it there.
      if (comment) continue;
      const more = line.endsWith('\\');
      pending.text += ' ' + (more ? line.slice(0, -1) : line);
      if (more && i < lines.length - 1) continue;
      out.push(assignment(section, pending.text, where, pending.line));
      pending = undefined;
      continue;
    }
    if (line === '' || comment) continue;
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) throw new UnitSyntaxError(`${where}:${i + 1}: invalid section header ${JSON.stringify(line)}`);
      section = line.slice(1, -1);
      continue;
    }
    if (line.endsWith('\\') && i < lines.length - 1) {
      pending = { text: line.slice(0, -1), line: i + 1 };
      continue;
    }
    out.push(assignment(section, line, where, i + 1));
  }
  return out;
}

function assignment(section: string, text: string, where: string, line: number): Assignment {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UnitSyntaxError(`${where}:${line}: missing '=' in ${JSON.stringify(text.slice(0, 80))}`);
  if (section === '') throw new UnitSyntaxError(`${where}:${line}: assignment outside of a section`);
  return { section, key: text.slice(0, eq).trim(), value: text.slice(eq + 1).trim() };
}

const escapes: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', s: ' ', '\\': '\\', '"': '"', "'": "'", ' ': ' ' };

/**
 * Splits a command line or an `Environment=` value into words as systemd does: whitespace
 * separates, quotes (anywhere in a word) group, backslash escapes; an unterminated quote is an
 * error, as systemd refuses the line.
 */
export function splitWords(value: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\') {
      const next = value[i + 1];
      if (next === undefined) throw new UnitSyntaxError(`trailing backslash in ${JSON.stringify(value)}`);
      i++;
      if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) {
        word += String.fromCharCode(parseInt(value.slice(i + 1, i + 3), 16));
        i += 2;
      } else word += escapes[next] ?? next;
      inWord = true;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
      continue;
    }
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    word += c;
    inWord = true;
  }
  if (quote) throw new UnitSyntaxError(`unbalanced quotes in ${JSON.stringify(value)}`);
  if (inWord) words.push(word);
  return words;
}

/** `KEY=value` lines of an environment file: comments, blank lines, optional quotes around the value. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const v = m[2]!;
    env[m[1]!] = /^(["']).*\1$/.test(v) && v.length >= 2 ? v.slice(1, -1) : v;
  }
  return env;
}

/** Expands `$NAME` (a word of its own: split at whitespace), `${NAME}` (anywhere, one word) and `$$`. */
export function expandWords(words: readonly string[], env: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const w of words) {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(w);
    if (whole) {
      out.push(...(env[whole[1]!] ?? '').split(/\s+/).filter(Boolean));
      continue;
    }
    out.push(w.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string | undefined) => (name === undefined ? '$' : (env[name] ?? ''))));
  }
  return out;
}

export interface ServiceCommand {
  /** The command line of the one `ExecStart=` in effect, split and expanded. */
  readonly argv: readonly string[];
  /** The files it came from (node paths): the unit, then the drop-ins that set anything. */
  readonly files: readonly string[];
}

export type UnitLookup = { readonly state: 'found'; readonly command: ServiceCommand } | { readonly state: 'missing' | 'masked'; readonly path: string };

/** A file of the node root, following a symbolic link as the node would (its target is a node path). */
function readInRoot(root: string, nodePath: string): string | undefined {
  let host = join(root, nodePath);
  for (let hops = 0; hops < 8; hops++) {
    let st;
    try {
      st = lstatSync(host);
    } catch {
      return undefined;
    }
    if (!st.isSymbolicLink()) return readFileSync(host, 'utf8');
    const target = readlinkSync(host);
    nodePath = isAbsolute(target) ? target : posix.join(posix.dirname(nodePath), target);
    if (nodePath === '/dev/null') return undefined;
    host = join(root, nodePath);
  }
  throw new UnitSyntaxError(`${nodePath}: too many levels of symbolic links`);
}

function isMasked(root: string, nodePath: string): boolean {
  try {
    return lstatSync(join(root, nodePath)).isSymbolicLink() && readlinkSync(join(root, nodePath)) === '/dev/null';
  } catch {
    return false;
  }
}

/**
 * The `ExecStart=` command of service `name` in the node root `root`. Throws `UnitSyntaxError`
 * for what systemd would refuse to load (bad syntax, more than one command, none).
 */
export function serviceCommand(root: string, name: string): UnitLookup {
  const path = `${unitDir}/${name}`;
  if (isMasked(root, path)) return { state: 'masked', path };
  const main = readInRoot(root, path);
  if (main === undefined) return { state: 'missing', path };
  const files = [path];
  const assignments = parseUnitText(main, path);
  const dropinDir = `${unitDir}/${name}.d`;
  let dropins: string[] = [];
  try {
    dropins = readdirSync(join(root, dropinDir)).filter((f) => f.endsWith('.conf')).sort();
  } catch {
    // No drop-ins.
  }
  for (const d of dropins) {
    const text = readInRoot(root, `${dropinDir}/${d}`);
    if (text === undefined) continue;
    files.push(`${dropinDir}/${d}`);
    assignments.push(...parseUnitText(text, `${dropinDir}/${d}`));
  }
  let exec: string[] = [];
  let environment: string[] = [];
  let environmentFiles: string[] = [];
  for (const a of assignments) {
    if (a.section !== 'Service') continue;
    if (a.key === 'ExecStart') exec = a.value === '' ? [] : [...exec, a.value];
    else if (a.key === 'Environment') environment = a.value === '' ? [] : [...environment, a.value];
    else if (a.key === 'EnvironmentFile') environmentFiles = a.value === '' ? [] : [...environmentFiles, a.value];
  }
  if (exec.length === 0) throw new UnitSyntaxError(`${path}: service has no ExecStart= setting`);
  if (exec.length > 1) throw new UnitSyntaxError(`${path}: service has more than one ExecStart= setting, which is only allowed for Type=oneshot services`);
  const env: Record<string, string> = {};
  // systemd reads the environment files after Environment=, and they win.
  for (const value of environment) {
    for (const w of splitWords(value)) {
      const eq = w.indexOf('=');
      if (eq > 0) env[w.slice(0, eq)] = w.slice(eq + 1);
    }
  }
  for (const entry of environmentFiles) {
    const optional = entry.startsWith('-');
    const file = optional ? entry.slice(1) : entry;
    const text = readInRoot(root, file);
    if (text === undefined) {
      if (optional) continue;
      throw new UnitSyntaxError(`${path}: EnvironmentFile ${file} does not exist`);
    }
    Object.assign(env, parseEnvironmentFile(text));
  }
  let command = exec[0]!;
  const prefix = /^[-@:+!]*/.exec(command)![0];
  command = command.slice(prefix.length);
  const words = splitWords(command.replace(/%%/g, '%'));
  // `:` asks systemd not to expand variables.
  const argv = prefix.includes(':') ? words : expandWords(words, env);
  return { state: 'found', command: { argv, files } };
}
