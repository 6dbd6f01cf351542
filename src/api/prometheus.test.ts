import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Counter, Registry } from './prometheus.ts';

const run = promisify(execFile);
const src = fileURLToPath(new URL('../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('prom-client without its index', () => {
  it('counts and renders the text format', async () => {
    const registry = new Registry();
    const c = new Counter({ name: 'shipyard_things_total', help: 'Things.', labelNames: ['kind'], registers: [registry] });
    c.inc({ kind: 'a' }, 2);
    assert.match(await registry.metrics(), /^shipyard_things_total\{kind="a"\} 2$/m);
  });

  it('leaves the Pushgateway, and node\'s zlib with it, unloaded', async () => {
    // A fresh process: what this one has loaded says nothing.
    const program = `
      await import(${JSON.stringify(new URL('./prometheus.ts', import.meta.url).href)});
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => m === 'NativeModule zlib')));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program]);
    assert.deepEqual(JSON.parse(stdout), []);
  });

  it('no source file imports prom-client\'s index but this module', () => {
    const offenders = sources(src)
      .filter((f) => !f.endsWith('api/prometheus.ts'))
      .filter((f) => /^import(?! type)[^;]*from 'prom-client'/m.test(readFileSync(f, 'utf8')))
      .map((f) => relative(src, f));
    assert.deepEqual(offenders, []);
  });
});
