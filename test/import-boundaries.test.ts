/**
 * Keeps ARCHITECTURE.md's import boundaries true: each folder of src/ reaches only the
 * folders below it, operators never import each other, and nothing imports cli/ or test/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Folder → the src/ folders it may import from (besides itself). */
const allowed: Record<string, readonly string[]> = {
  api: [],
  // Only the worker-thread entry helper, shared with node/ (api/worker-entry.ts).
  storage: ['api'],
  apiserver: ['api', 'storage'],
  runtime: ['api'],
  cluster: ['runtime', 'api'],
  node: ['runtime', 'api'],
  // The CVO reads payloads; release/ is the payload format, not an operator. The machine-config
  // daemon writes node roots with the same code as first boot (noderoot/).
  // The Machine API provider drives the cloud through its client (cloudclient/), never cloud/.
  operators: ['runtime', 'api', 'release', 'noderoot', 'cloudclient'],
  cloud: ['api', 'noderoot', 'cloudclient'],
  cloudclient: ['api'],
  noderoot: ['api'],
  release: ['api'],
  cli: ['*'],
};

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)) {
    specs.push(m[1] ?? m[2] ?? m[3]!);
  }
  return specs;
}

/** `operators/machine-api/x.ts` → ['operators', 'machine-api']. */
function area(path: string): [string, string | undefined] {
  const parts = relative(src, path).split('/');
  return [parts[0]!, parts.length > 2 ? parts[1] : undefined];
}

describe('import boundaries (ARCHITECTURE.md)', () => {
  const violations: string[] = [];
  for (const file of files(src)) {
    const [top, sub] = area(file);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const rel = relative(root, target);
      if (rel.startsWith('test/') || rel.startsWith('..')) {
        violations.push(`${relative(root, file)} imports ${spec} (outside src/)`);
        continue;
      }
      const [ttop, tsub] = area(target);
      // The kubelet core decides what runs; which runtime runs it is injected (ARCHITECTURE.md).
      if (relative(src, file).startsWith('node/kubelet/') && relative(src, target).startsWith('node/runtimes/')) {
        violations.push(`${relative(root, file)}: the kubelet core imports a concrete runtime (${spec})`);
      }
      // Controller folders coordinate through API objects, never through each other's code.
      if (top === 'cluster' && ttop === 'cluster' && sub && tsub && sub !== tsub && !file.endsWith('.test.ts')) {
        const shared = ['workload-common'];
        if (!shared.includes(tsub)) violations.push(`${relative(root, file)}: controller ${sub} imports controller ${tsub}`);
      }
      if (ttop === 'cli' && top !== 'cli') violations.push(`${relative(root, file)} imports cli/ (${spec})`);
      if (ttop === top) {
        if (top === 'operators' && sub && tsub && sub !== tsub) violations.push(`${relative(root, file)}: operator ${sub} imports operator ${tsub}`);
        continue;
      }
      const ok = allowed[top];
      assert.ok(ok, `src/${top}/ is not in the boundary table; add it (ARCHITECTURE.md, "Import boundaries")`);
      if (!ok.includes('*') && !ok.includes(ttop)) violations.push(`${relative(root, file)} (${top}/) imports ${ttop}/ via ${spec}; allowed: ${ok.join(', ') || 'nothing'}`);
    }
  }

  it('every import stays within the allowed layers', () => {
    assert.deepEqual(violations, []);
  });

  it('checks the files it is meant to check', () => {
    const all = files(src);
    assert.ok(all.length > 10, `expected to scan the source tree, found ${all.length} files`);
    assert.ok(all.some((f) => importsOf(f).some((s) => s.startsWith('.'))), 'expected relative imports to be found');
  });
});
