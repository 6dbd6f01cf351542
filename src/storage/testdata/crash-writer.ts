/**
 * Child process for crash.test.ts: opens the store at argv[2] and creates keys from four
 * concurrent loops (so group commit batches them) until killed, printing each key on stdout
 * only after its create resolved. Stdout to a pipe is synchronous on Linux, so a printed key
 * is one the parent may hold us to.
 */
import { openSqliteBackend } from '../sqlite.ts';

const path = process.argv[2];
if (!path) throw new Error('usage: crash-writer <database path>');
const backend = await openSqliteBackend({ path });
let next = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (;;) {
      const i = next++;
      const key = `/crash/${i}`;
      const result = await backend.create(key, `value-${i}`);
      if (!result.ok) throw new Error(`create ${key} failed`);
      process.stdout.write(`${key}\n`);
    }
  }),
);
