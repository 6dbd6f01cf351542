/** What every request handler needs: the store, the registry, and per-request parameters. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/tokens.ts';
import { errors, type ApiError } from '../errors.ts';
import type { ResourceRequest } from '../http/request-info.ts';
import type { OutputFormat } from '../http/respond.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { FieldValidation, ObjectStore, WriteContext } from '../registry/store.ts';
import type { WatchServerOptions } from '../watch.ts';
import type { TokenIssuer } from './token-request.ts';

/** Where `pods/log` reads container logs from (the kubelet's log files, once nodes exist). */
export interface LogSource {
  open(pod: KubeObject, container: string, opts: { previous: boolean; tailLines?: number; follow: boolean; timestamps: boolean; signal: AbortSignal }): Promise<AsyncIterable<Buffer | string> | undefined>;
}

export interface ServerContext {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly watch: WatchServerOptions;
  readonly logs?: LogSource;
  /** Signs `serviceaccounts/token` requests; without it that subresource answers 500. */
  readonly tokenIssuer?: TokenIssuer;
  /** Renders objects for `Accept: ...;as=Table`. */
  toTable(def: ResourceDefinition, objects: KubeObject[], includeObject: string | null, listMeta: Record<string, unknown>, version: string): unknown;
}

export interface RequestScope {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly info: ResourceRequest;
  readonly def: ResourceDefinition;
  readonly user: UserInfo | undefined;
  readonly format: OutputFormat;
  readonly warnings: string[];
}

/** The options object kube-apiserver decodes each write verb's parameters into; its name is in the 422 a bad value gets. */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

function optionsKindOf(verb: string): OptionsKind {
  if (verb === 'create') return 'CreateOptions';
  if (verb === 'update') return 'UpdateOptions';
  if (verb === 'patch') return 'PatchOptions';
  return 'DeleteOptions';
}

/** Go's `%#v` of a []string, which is how kube-apiserver 1.32 prints a bad dryRun list. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** What kube-apiserver's JSON decoder says about a `dryRun` that is not a list of strings. */
function notStrings(kind: OptionsKind, got: string, want: string): ApiError {
  return errors.badRequest(`json: cannot unmarshal ${got} into Go struct field ${kind}.dryRun of type ${want}`, [{ reason: 'FieldValueTypeInvalid', field: 'dryRun', message: 'must be a list of strings' }]);
}

/**
 * Whether a request is a dry run. kubectl puts `dryRun` in the query of creates, updates and
 * patches, and in the DeleteOptions body of deletes and evictions; either place counts. Only
 * "All" is a valid value, as kube-apiserver's ValidateDryRun says (a 422 naming the options kind).
 */
export function parseDryRun(values: readonly unknown[], kind: OptionsKind): boolean {
  const notString = values.find((v) => typeof v !== 'string');
  if (notString !== undefined) throw notStrings(kind, notString === null ? 'null' : typeof notString, 'string');
  const strings = values as string[];
  if (strings.some((v) => v !== 'All')) {
    throw errors.invalid(kind, 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', message: `dryRun: Unsupported value: ${goStringSlice(strings)}: supported values: "All"` }]);
  }
  return strings.length > 0;
}

/** The `dryRun` list of a DeleteOptions-shaped body (absent or null: none). */
export function dryRunInBody(body: unknown, kind: OptionsKind = 'DeleteOptions'): string[] {
  const v = (body as { dryRun?: unknown } | null | undefined)?.dryRun;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw notStrings(kind, typeof v, '[]string');
  return v as string[];
}

/**
 * The write context of a request. `bodyDryRun` is the `dryRun` of a DeleteOptions body (deletes,
 * deletecollection): a dry run asked for in either place is one.
 */
export function writeContext(scope: RequestScope, subresource?: 'status' | 'approval', opts: { bodyDryRun?: readonly unknown[] } = {}): WriteContext {
  const q = scope.url.searchParams;
  const fv = q.get('fieldValidation');
  let fieldValidation: FieldValidation = 'Warn';
  if (fv === 'Strict' || fv === 'Ignore' || fv === 'Warn') fieldValidation = fv;
  else if (fv !== null && fv !== '') {
    throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Warn", "Strict"`, [{ reason: 'FieldValueNotSupported', field: 'fieldValidation', message: 'supported values: "Ignore", "Warn", "Strict"' }]);
  }
  const kind = optionsKindOf(scope.info.verb);
  const inQuery = parseDryRun(q.getAll('dryRun'), kind);
  const inBody = parseDryRun(opts.bodyDryRun ?? [], kind);
  const dryRun = inQuery || inBody;
  const ua = scope.req.headers['user-agent'] ?? 'unknown';
  // As kube-apiserver: without fieldManager, the manager is the user agent's program name.
  const manager = q.get('fieldManager') || ua.split('/')[0]!.slice(0, 128) || 'unknown';
  return { manager, dryRun, fieldValidation, warnings: scope.warnings, subresource, user: scope.user };
}
