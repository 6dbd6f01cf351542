/**
 * `npm run bench [-- <name>...]`: runs the named benchmarks (all when none is named).
 * Each prints its figures and, last, the machine-independent ratio it is judged by.
 */
const benches: Record<string, () => Promise<void>> = {
  apiserver: async () => (await import('./apiserver.ts')).run(),
  nodes: async () => (await import('./nodes.ts')).run(),
  rollout: async () => (await import('./rollout.ts')).run(),
  machines: async () => (await import('./machines.ts')).run(),
  footprint: async () => (await import('./footprint.ts')).run(),
  replicas: async () => (await import('./replicas.ts')).run(),
};

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = names.filter((n) => !benches[n]);
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(benches).join(', ')}\n`);
  process.exit(2);
}
for (const name of names.length ? names : Object.keys(benches)) {
  process.stdout.write(`== ${name}\n`);
  await benches[name]!();
}
process.exit(0);
