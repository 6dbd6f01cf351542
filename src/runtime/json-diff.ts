/**
 * A unified diff of two JSON values, for messages people read: an operator's Event that says
 * what it changed in a config (`ObservedConfigChanged "Writing updated observed config: …"`,
 * which upstream prints with apimachinery's ObjectDiff). Both sides are printed with sorted
 * keys, two spaces of indent, and compared line by line (longest common subsequence), so a
 * changed value shows as one `-` and one `+` line with a little context around it.
 */

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortedKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

function lines(value: unknown): string[] {
  return (JSON.stringify(sortedKeys(value), null, 2) ?? 'null').split('\n');
}

type Op = { kind: ' ' | '-' | '+'; text: string; a: number; b: number };

/** Beyond this many cells of the LCS table the sides are shown as replaced whole: still correct, just less precise. */
const MAX_CELLS = 4_000_000;

function edits(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [...a.map((text, i): Op => ({ kind: '-', text, a: i, b: 0 })), ...b.map((text, j): Op => ({ kind: '+', text, a: n, b: j }))];
  }
  // lcs[i][j]: the common subsequence length of a[i..] and b[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', text: a[i]!, a: i++, b: j++ });
    // Deletions before insertions, as diff -u prints a changed line.
    else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) ops.push({ kind: '-', text: a[i]!, a: i++, b: j });
    else ops.push({ kind: '+', text: b[j]!, a: i, b: j++ });
  }
  return ops;
}

/**
 * The unified diff from `before` to `after` (`@@ -1,4 +1,5 @@` hunks, `context` lines around
 * each change, default 2); empty when they print the same.
 */
export function jsonDiff(before: unknown, after: unknown, opts: { context?: number } = {}): string {
  const context = opts.context ?? 2;
  const ops = edits(lines(before), lines(after));
  const changed = ops.map((op, k) => (op.kind === ' ' ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return '';
  // Group changes whose context windows touch into one hunk.
  const hunks: Array<[number, number]> = [];
  for (const k of changed) {
    const start = Math.max(0, k - context);
    const end = Math.min(ops.length - 1, k + context);
    const last = hunks[hunks.length - 1];
    if (last && start <= last[1] + 1) last[1] = end;
    else hunks.push([start, end]);
  }
  const out: string[] = [];
  for (const [start, end] of hunks) {
    const slice = ops.slice(start, end + 1);
    const aCount = slice.filter((o) => o.kind !== '+').length;
    const bCount = slice.filter((o) => o.kind !== '-').length;
    const aStart = slice[0]!.a + (aCount ? 1 : 0);
    const bStart = slice[0]!.b + (bCount ? 1 : 0);
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of slice) out.push(`${o.kind}${o.text}`);
  }
  return out.join('\n');
}
