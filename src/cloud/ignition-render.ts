/**
 * Turning a user-data config into the config a node gets: reading resources (loopback http(s)
 * here; `data:` URLs, gzip and hashes in `noderoot/resource.ts`) and resolving
 * `ignition.config.replace` / `.merge` references the way Ignition's engine does — a
 * replacement is rendered in place of the config, merged configs are each rendered and merged
 * on top, in order. CAs named by any config on the way are trusted for every later fetch.
 */
import {
  configReferences,
  formatProblem,
  IgnitionConfigError,
  merge,
  newestVersion,
  parse,
  type IgnitionConfig,
  type IgnitionResource,
} from '../api/ignition/index.ts';
import { describeSource, readResource as readResourceBytes } from '../noderoot/resource.ts';
import type { Fetcher } from './ignition-fetch.ts';
import { assertLoopbackUrl } from '../cloudclient/loopback.ts';

/** Ignition asks for the newest spec it reads, and takes anything else as a fallback. */
export const configAcceptHeader = `application/vnd.coreos.ignition+json;version=${newestVersion}, */*;q=0.1`;

const maxReferenceDepth = 10;

export interface RenderContext {
  readonly fetch: Fetcher;
  readonly signal?: AbortSignal;
  /** PEM bundles trusted so far; grows as configs name CAs. */
  readonly certificateAuthorities: Buffer[];
  /** Every URL fetched, in order, for the first-boot record. */
  readonly fetched: string[];
  readonly warnings: string[];
  /** From the config's `ignition.timeouts.httpTotal`, if set. */
  timeoutMs?: number;
}

export async function readResource(resource: IgnitionResource, ctx: RenderContext, extraHeaders: Record<string, string> = {}): Promise<Buffer> {
  return readResourceBytes(resource, async (r) => {
    const source = r.source ?? '';
    assertLoopbackUrl(source);
    const headers: Record<string, string> = { ...extraHeaders };
    for (const h of r.httpHeaders ?? []) if (typeof h.value === 'string') headers[h.name] = h.value;
    ctx.fetched.push(source);
    return ctx.fetch({ url: source, headers, certificateAuthorities: ctx.certificateAuthorities, timeoutMs: ctx.timeoutMs, signal: ctx.signal });
  });
}

/** Resolves every reference; the result has no `ignition.config` left to follow. */
export async function renderConfig(config: IgnitionConfig, ctx: RenderContext, depth = 0): Promise<IgnitionConfig> {
  await trustCAs(config, ctx);
  const httpTotal = config.ignition.timeouts?.httpTotal;
  if (httpTotal && httpTotal > 0) ctx.timeoutMs = httpTotal * 1000;
  const refs = configReferences(config);
  if (!refs.replace && refs.merge.length === 0) return config;
  if (depth >= maxReferenceDepth) throw new Error(`config references nest deeper than ${maxReferenceDepth} levels`);
  if (refs.replace) return renderConfig(await fetchConfig(refs.replace, ctx), ctx, depth + 1);
  let result: IgnitionConfig = withoutReferences(config);
  for (const ref of refs.merge) result = merge(result, withoutReferences(await renderConfig(await fetchConfig(ref, ctx), ctx, depth + 1)));
  return result;
}

async function trustCAs(config: IgnitionConfig, ctx: RenderContext): Promise<void> {
  for (const ca of config.ignition.security?.tls?.certificateAuthorities ?? []) {
    ctx.certificateAuthorities.push(await readResource(ca, ctx));
  }
}

async function fetchConfig(ref: IgnitionResource, ctx: RenderContext): Promise<IgnitionConfig> {
  const text = (await readResource(ref, ctx, { Accept: configAcceptHeader })).toString('utf8');
  const parsed = parse(text);
  const where = describeSource(ref.source ?? '');
  if (!parsed.ok) throw new IgnitionConfigError(parsed.errors.map((p) => ({ path: p.path, message: `${p.message} (in config from ${where})` })));
  for (const w of parsed.warnings) ctx.warnings.push(`${where}: ${formatProblem(w)}`);
  return parsed.config;
}

function withoutReferences(config: IgnitionConfig): IgnitionConfig {
  const copy = structuredClone(config);
  delete copy.ignition.config;
  return copy;
}
