/**
 * Child process for crash.test.ts: opens the store at argv[2] (with the durability argv[3],
 * default the backend's) and creates keys from four
 * concurrent loops (so group commit batches them) until killed, printing each key on stdout
 * only after its create resolved. Stdout to a pipe is synchronous on Linux, so a printed key
 * is one the parent may hold us to.
 */
import { isStoreDurability, openSqliteBackend } from '../sqlite.ts';

const [path, durability] = process.argv.slice(2);
if (!path || (durability !== undefined && !isStoreDurability(durability))) throw new Error('usage: crash-writer <database path> [fsync|process-crash-only]');
const backend = await openSqliteBackend({ path, durability });
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
