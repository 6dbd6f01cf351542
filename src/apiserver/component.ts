/**
 * The kube-apiserver component: what the `kube-apiserver` static pod on a master runs, as a
 * process or inline. Flags follow kube-apiserver's names where one exists; `--config` is the
 * KubeAPIServerConfig the operator renders, and the flags given beside it win over it
 * (config-file.ts says how the two meet).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { containerPath } from '../api/container-path.ts';
import { apiServerArgumentSpecs } from '../api/kubecontrolplane/arguments.ts';
import { parseKubeAPIServerConfig, resolveApiServerOptions, StartupError, type Arguments, type FileAccess } from './config-file.ts';
import { startApiServer } from './server.ts';

/** Structurally the runtime's ComponentContext (apiserver/ may not import runtime/). */
interface ComponentContext {
  readonly signal: AbortSignal;
  readonly args: readonly string[];
  /** Where container paths live on this host; undefined in a real container. */
  readonly rootfs?: string;
}

type FlagOptions = Record<string, { type: 'string'; multiple?: boolean }>;

/** Every flag `apiServerArguments` may set, and those only the command line has. */
function flagOptions(): FlagOptions {
  const out: FlagOptions = {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    'shutdown-watch-termination-grace-period': { type: 'string' },
  };
  for (const [name, spec] of Object.entries(apiServerArgumentSpecs)) out[name] = spec.arity === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
  return out;
}

/** The flags given, as `apiServerArguments` holds them; a flag given twice keeps its last value. */
export function parseFlags(args: readonly string[]): { config?: string; flags: Arguments } {
  let values: Record<string, string | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options: flagOptions(), strict: true, allowPositionals: false }) as { values: Record<string, string | string[] | undefined> });
  } catch (err) {
    throw new StartupError(`kube-apiserver: ${(err as Error).message}`);
  }
  const flags: Arguments = {};
  for (const [name, value] of Object.entries(values)) {
    if (name === 'config' || value === undefined) continue;
    flags[name] = Array.isArray(value) ? value : [value];
  }
  return { config: values.config as string | undefined, flags };
}

export async function start(ctx: ComponentContext): Promise<void> {
  const { config: configFile, flags } = parseFlags(ctx.args);
  const files: FileAccess = {
    hostPath: (p) => {
      try {
        return containerPath(p, ctx.rootfs);
      } catch (err) {
        throw new StartupError(`kube-apiserver: ${(err as Error).message}`);
      }
    },
    read: (p) => readFileSync(p, 'utf8'),
  };
  let config;
  if (configFile !== undefined) {
    let text: string;
    try {
      text = files.read(files.hostPath(configFile));
    } catch (err) {
      throw new StartupError(`kube-apiserver: --config=${configFile}: ${(err as Error).message}`);
    }
    config = parseKubeAPIServerConfig(configFile, text);
  }
  const options = resolveApiServerOptions({ file: configFile, config, flags }, files);
  const server = await startApiServer(options);
  if (!ctx.signal.aborted) await new Promise<void>((done) => ctx.signal.addEventListener('abort', () => done(), { once: true }));
  // SIGTERM, as kube-apiserver: not ready at once, then the delay, then drain (shutdown.ts).
  await server.shutdown();
}
