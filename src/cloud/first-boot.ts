/**
 * Ignition's first boot, against a node root directory instead of a disk. The user data is
 * parsed, its references fetched and merged (`ignition-render.ts`), validated, then written
 * into the root with Ignition's rules by `noderoot/first-boot-writer.ts`, the layer the
 * machine-config daemon's updates share (directories, files, links, units, SSH keys; what a
 * directory cannot express is listed in the record as skipped).
 *
 * `etc/.ignition-result.json` records that it ran, as on a real machine, so a reboot does not
 * run it again. A failure leaves no record: the next boot tries again.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatProblem, IgnitionConfigError, parse, validateConfig, type IgnitionConfig } from '../api/ignition/index.ts';
import { writeFileAtomic } from '../noderoot/fs.ts';
import { writeFirstBootConfig } from '../noderoot/first-boot-writer.ts';
import { createLoopbackFetcher, type Fetcher } from './ignition-fetch.ts';
import { readResource, renderConfig, type RenderContext } from './ignition-render.ts';

export { IgnitionApplyError } from '../noderoot/first-boot-writer.ts';

export const resultFile = 'etc/.ignition-result.json';

export interface ApplyOptions {
  /** How http(s) sources are fetched; default: loopback-only with retries (`ignition-fetch.ts`). */
  readonly fetch?: Fetcher;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
}

export interface IgnitionResult {
  readonly provisioningDate: string;
  readonly userConfigProvided: boolean;
  /** URLs fetched while rendering and writing, in order. */
  readonly fetched: readonly string[];
  readonly warnings: readonly string[];
  /** Parts of the config a node root cannot express. */
  readonly skipped: readonly string[];
}

/** Renders `config` and writes it into `root`, then records the result. */
export async function applyIgnition(config: IgnitionConfig, root: string, options: ApplyOptions = {}): Promise<IgnitionResult> {
  const ctx: RenderContext = {
    fetch: options.fetch ?? createLoopbackFetcher(),
    signal: options.signal,
    certificateAuthorities: [],
    fetched: [],
    warnings: [],
  };
  const rendered = await renderConfig(config, ctx);
  // Two valid configs can merge into an invalid one; Ignition validates what it will write.
  const problems = validateConfig(rendered);
  if (problems.errors.length > 0) throw new IgnitionConfigError(problems.errors);
  const skipped = await writeFirstBootConfig(rendered, root, { read: (resource) => readResource(resource, ctx) });
  const result: IgnitionResult = {
    provisioningDate: (options.now?.() ?? new Date()).toISOString(),
    userConfigProvided: true,
    fetched: ctx.fetched,
    warnings: ctx.warnings,
    skipped,
  };
  await writeResult(root, result);
  return result;
}

/**
 * What booting does: nothing if Ignition already ran on this root; otherwise parse the user
 * data (none is fine: the record says no config was provided) and apply it.
 */
export async function runFirstBoot(userData: string | undefined, root: string, options: ApplyOptions = {}): Promise<{ ran: boolean; result?: IgnitionResult }> {
  if (await hasRun(root)) return { ran: false };
  if (userData === undefined || userData.trim() === '') {
    const result: IgnitionResult = { provisioningDate: (options.now?.() ?? new Date()).toISOString(), userConfigProvided: false, fetched: [], warnings: [], skipped: [] };
    await writeResult(root, result);
    return { ran: true, result };
  }
  const parsed = parse(userData);
  if (!parsed.ok) throw new IgnitionConfigError(parsed.errors);
  const result = await applyIgnition(parsed.config, root, options);
  return { ran: true, result: { ...result, warnings: [...parsed.warnings.map(formatProblem), ...result.warnings] } };
}

export async function hasRun(root: string): Promise<boolean> {
  return stat(join(root, resultFile)).then(
    () => true,
    () => false,
  );
}

export async function readResult(root: string): Promise<IgnitionResult | undefined> {
  try {
    return JSON.parse(await readFile(join(root, resultFile), 'utf8')) as IgnitionResult;
  } catch {
    return undefined;
  }
}

async function writeResult(root: string, result: IgnitionResult): Promise<void> {
  const path = join(root, resultFile);
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeFileAtomic(path, `${JSON.stringify(result, null, 2)}\n`, 0o600);
}
