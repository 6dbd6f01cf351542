/**
 * Assembles a `meta.k8s.io` Table from a convertor and a list of objects: one row per
 * object, with `row.object` as `includeObject` asks — `Metadata` (the default) a
 * PartialObjectMetadata, which kubectl reads for the NAMESPACE column, `--show-labels` and
 * `-L`; `Object` the object itself (for `--sort-by`); `None` null.
 */
import { errors } from '../errors.ts';
import type { ColumnDefinition, PrintedObject, Table, TableConvertor, TableListMeta, TableRow } from './types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface ToTableOptions {
  /** The clock ages are rendered against, in ms since the epoch. */
  readonly now: number;
  /** The `includeObject` query parameter; unset means `Metadata`. Any other value is a 400. */
  readonly includeObject?: string | null;
  /** The list's `resourceVersion`, `continue` and `remainingItemCount` (other keys are ignored). */
  readonly listMeta?: TableListMeta | Readonly<Record<string, unknown>>;
  /** `v1` (the default) or `v1beta1`, as the client's Accept header asked. */
  readonly version?: 'v1' | 'v1beta1';
  /** Leave out the column definitions (later watch events need them only once). */
  readonly noHeaders?: boolean;
}

/** Checks an `includeObject` query parameter, defaulting it to `Metadata`. */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === null || value === undefined || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw errors.badRequest(`unrecognized includeObject value: ${JSON.stringify(value)}`);
}

function rowObject(obj: PrintedObject, include: IncludeObject, apiVersion: string): unknown {
  if (include === 'None') return null;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
}

export function toTable(convertor: TableConvertor, objects: readonly PrintedObject[], options: ToTableOptions): Table {
  const include = parseIncludeObject(options.includeObject);
  const apiVersion = options.version === 'v1beta1' ? 'meta.k8s.io/v1beta1' : 'meta.k8s.io/v1';
  const rows = objects.map((obj): TableRow => {
    const row: TableRow = { cells: convertor.cells(obj, options.now), object: rowObject(obj, include, apiVersion) };
    const conditions = convertor.conditions?.(obj);
    if (conditions && conditions.length > 0) row.conditions = conditions;
    return row;
  });
  const meta = (options.listMeta ?? {}) as Readonly<Record<string, unknown>>;
  const metadata: TableListMeta = {};
  if (typeof meta.resourceVersion === 'string') metadata.resourceVersion = meta.resourceVersion;
  if (typeof meta.continue === 'string' && meta.continue !== '') metadata.continue = meta.continue;
  if (typeof meta.remainingItemCount === 'number') metadata.remainingItemCount = meta.remainingItemCount;
  const columnDefinitions: ColumnDefinition[] = options.noHeaders ? [] : convertor.columns.map((c) => ({ ...c }));
  return { kind: 'Table', apiVersion, metadata, columnDefinitions, rows };
}
