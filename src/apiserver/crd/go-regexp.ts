/**
 * CRD schemas carry `pattern`s written for Go's RE2, which kube-apiserver compiles with
 * `regexp.Compile`. This module turns an RE2 pattern into an equivalent JavaScript RegExp:
 * leading flag groups (`(?i)`), named groups (`(?P<n>…)`), `\A`/`\z`, POSIX classes and
 * escaped punctuation, which `u`-mode JavaScript refuses. Perl features RE2 lacks
 * (look-around, back references) are refused, as Go refuses them, so a schema we accept
 * is one kube-apiserver accepts too.
 */

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Characters JavaScript lets `u`-mode patterns escape outside a class. */
const jsSyntax = new Set('^$\\.*+?()[]{}|/'.split(''));
/** Inside a class `u` mode also accepts `\-`. */
const jsClassSyntax = new Set([...jsSyntax, '-']);
const escapeLetters = new Set('dDwWsSbBpPnrtfvx0'.split(''));

export class GoRegExpError extends Error {}

/** Translates an RE2 pattern to JavaScript source and flags; throws `GoRegExpError` where Go would not compile it. */
export function translateGoRegExp(pattern: string): { source: string; flags: string } {
  let flags = 'u';
  let rest = pattern;
  // Flags that apply to the whole pattern: at its start, or right after a leading `^` (`^(?i)...`).
  const leading = /^(\^?)\(\?([imsU]+)\)/.exec(rest);
  if (leading) {
    for (const f of leading[2]!) {
      if (f === 'U') throw new GoRegExpError('error parsing regexp: ungreedy flag (?U) is not supported here');
      if (!flags.includes(f)) flags += f;
    }
    rest = leading[1] + rest.slice(leading[0].length);
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '\\') {
      const n = rest[i + 1];
      if (n === undefined) throw new GoRegExpError('error parsing regexp: trailing backslash at end of expression: ``');
      i++;
      if (n === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if (n === 'z' && !inClass) out += '(?![\\s\\S])';
      else if (n === 'a') out += '\\x07';
      else if ((n === 'x' || n === 'p' || n === 'P') && rest[i + 1] === '{') {
        const end = rest.indexOf('}', i);
        if (end < 0) throw new GoRegExpError(`error parsing regexp: invalid escape sequence: \`\\${n}${rest.slice(i + 1)}\``);
        const body = rest.slice(i + 2, end);
        // Go names scripts bare (`\p{Greek}`); JavaScript wants `Script=Greek`. One- and two-letter names are categories.
        const name = n !== 'x' && body.replace(/^\^/, '').length > 2 ? `Script=${body.replace(/^\^/, '')}` : body.replace(/^\^/, '');
        const negate = body.startsWith('^');
        out += n === 'x' ? `\\u{${body}}` : `\\${negate === (n === 'p') ? 'P' : 'p'}{${name}}`;
        i = end;
      } else if ((n === 'p' || n === 'P') && rest[i + 1] !== undefined) {
        out += `\\${n}{${rest[i + 1]}}`;
        i++;
      } else if (/[1-9]/.test(n)) throw new GoRegExpError(`error parsing regexp: invalid escape sequence: \`\\${n}\``);
      else if (/[A-Za-z0-9]/.test(n)) {
        if (!escapeLetters.has(n)) throw new GoRegExpError(`error parsing regexp: invalid escape sequence: \`\\${n}\``);
        out += `\\${n}`;
      } else if ((inClass ? jsClassSyntax : jsSyntax).has(n)) out += `\\${n}`;
      else out += n === ' ' ? ' ' : n;
      continue;
    }
    if (inClass) {
      if (c === '[' && rest[i + 1] === ':') {
        const end = rest.indexOf(':]', i + 2);
        const name = end > 0 ? rest.slice(i + 2, end) : '';
        const negated = name.startsWith('^');
        const cls = posixClasses[negated ? name.slice(1) : name];
        if (cls === undefined || negated) throw new GoRegExpError(`error parsing regexp: invalid character class range: \`[:${name}:]\``);
        out += cls;
        i = end + 1;
        continue;
      }
      if (c === '[') out += '\\[';
      else out += c;
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (rest[i + 1] === '^') {
        out += '^';
        i++;
      }
      // A `]` right after `[` or `[^` is a literal in RE2.
      if (rest[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '{' || c === '}') {
      // RE2 reads a brace that does not form a repeat as a literal; `u`-mode JavaScript refuses it.
      const repeat = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(rest.slice(i)) : null;
      if (!repeat) {
        out += `\\${c}`;
        continue;
      }
      if (Number(repeat[1]) > 1000 || Number(repeat[3] || 0) > 1000) throw new GoRegExpError(`error parsing regexp: invalid repeat count: \`${repeat[0]}\``);
      out += repeat[0];
      i += repeat[0].length - 1;
      continue;
    }
    if (c === '(' && rest[i + 1] === '?') {
      const tail = rest.slice(i + 2);
      if (tail.startsWith('P<')) {
        out += '(?<';
        i += 3;
        continue;
      }
      if (tail.startsWith(':')) {
        out += '(?:';
        i += 2;
        continue;
      }
      throw new GoRegExpError(`error parsing regexp: invalid or unsupported Perl syntax: \`(?${tail.slice(0, 1)}\``);
    }
    out += c;
  }
  if (inClass) throw new GoRegExpError(`error parsing regexp: missing closing ]: \`${rest.slice(rest.lastIndexOf('['))}\``);
  return { source: out, flags };
}

const cache = new Map<string, RegExp>();

/** Compiles an RE2 pattern; throws with a Go-like message when it is not valid RE2. */
export function compileGoRegExp(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const { source, flags } = translateGoRegExp(pattern);
  let rx: RegExp;
  try {
    rx = new RegExp(source, flags);
  } catch (err) {
    throw new GoRegExpError(`error parsing regexp: ${(err as Error).message}`);
  }
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, rx);
  return rx;
}

/** The compile error of a pattern, or undefined when it compiles. */
export function goRegExpError(pattern: string): string | undefined {
  try {
    compileGoRegExp(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
