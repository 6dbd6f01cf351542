/** What every request handler needs: the store, the registry, and per-request parameters. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/tokens.ts';
import { errors } from '../errors.ts';
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

export function writeContext(scope: RequestScope, subresource?: 'status'): WriteContext {
  const q = scope.url.searchParams;
  const fv = q.get('fieldValidation');
  let fieldValidation: FieldValidation = 'Warn';
  if (fv === 'Strict' || fv === 'Ignore' || fv === 'Warn') fieldValidation = fv;
  else if (fv !== null && fv !== '') {
    throw errors.badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(fv)}: supported values: "Ignore", "Warn", "Strict"`, [{ reason: 'FieldValueNotSupported', field: 'fieldValidation', message: 'supported values: "Ignore", "Warn", "Strict"' }]);
  }
  const dryRun = q.getAll('dryRun');
  const badDryRun = dryRun.find((d) => d !== 'All');
  if (badDryRun !== undefined) {
    throw errors.badRequest(`dryRun: Unsupported value: ${JSON.stringify(badDryRun)}: supported values: "All"`, [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: 'supported values: "All"' }]);
  }
  const ua = scope.req.headers['user-agent'] ?? 'unknown';
  // As kube-apiserver: without fieldManager, the manager is the user agent's program name.
  const manager = q.get('fieldManager') || ua.split('/')[0]!.slice(0, 128) || 'unknown';
  return { manager, dryRun: dryRun.includes('All'), fieldValidation, warnings: scope.warnings, subresource };
}
