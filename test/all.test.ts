/**
 * The single test entry: importing every test file into one process is ~25× faster than
 * one process per file on 2 cores (shared/reference/dependencies.md). Test files are found,
 * not listed, so a new `*.test.ts` beside its code runs without touching this file.
 * SHIPYARD_TEST_FILTER=<substring> narrows the run to matching paths.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findTests(path));
    else if (entry.name.endsWith('.test.ts') && path !== fileURLToPath(import.meta.url)) out.push(path);
  }
  return out.sort();
}

const filter = process.env.SHIPYARD_TEST_FILTER;
const files = [...findTests(join(root, 'src')), ...findTests(join(root, 'test'))].filter((f) => !filter || relative(root, f).includes(filter));
for (const file of files) await import(pathToFileURL(file).href);
