/**
 * The entry of a worker thread whose module sits beside the caller. Compiled (dist/, what
 * `shipyard up` and the components run) it is the `.js` module itself. Run from the TypeScript
 * sources (tests, or a stale build), a small bootstrap first registers tsx's loader in the new
 * thread, then imports the `.ts` module: a worker does not inherit the loader its process
 * registered, and in Node 20 an inherited `--import tsx` does not apply to a worker's entry.
 */
export function workerEntry(callerUrl: string, moduleBaseName: string): URL {
  if (!callerUrl.endsWith('.ts')) return new URL(`./${moduleBaseName}.js`, callerUrl);
  const api = import.meta.resolve('tsx/esm/api');
  const main = new URL(`./${moduleBaseName}.ts`, callerUrl).href;
  const code = `import { register } from ${JSON.stringify(api)};\nregister();\nawait import(${JSON.stringify(main)});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
