/**
 * The server-side Table shapes (`meta.k8s.io/v1` Table) and the convertor interface every
 * printer implements. A convertor only knows its columns and how to fill one row's cells;
 * `table.ts` assembles rows, list metadata and the `includeObject` form of each row.
 */

export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

/** A `TableColumnDefinition`; `format` and `priority` are always present on the wire (`""`, `0`). */
export interface ColumnDefinition {
  readonly name: string;
  readonly type: ColumnType;
  /** `name` for the object-name column; otherwise what the type needs (CRDs may set any OpenAPI format). */
  readonly format: string;
  readonly description: string;
  /** 0: always shown; 1: shown by `kubectl get -o wide`. */
  readonly priority: number;
}

export type TableColumnDefinition = ColumnDefinition;

/** `TableRowCondition`: kube-apiserver marks finished pods `Completed`. */
export interface TableRowCondition {
  readonly type: 'Completed';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
  /** The object, its PartialObjectMetadata, or null, per `includeObject`. */
  object: unknown;
}

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';
  metadata: TableListMeta;
  columnDefinitions: ColumnDefinition[];
  rows: TableRow[];
}

// Objects on the wire are arbitrary JSON documents; printers narrow what they read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PrintedObject = Record<string, any>;

/**
 * How one resource prints: its columns, and one row's cells for an object at time `now`
 * (ms since the epoch; ages are rendered against it). `cells` returns one value per column.
 */
export interface TableConvertor {
  readonly columns: readonly ColumnDefinition[];
  cells(obj: PrintedObject, now: number): unknown[];
  /** Row conditions, for the resources that have them (pods). */
  conditions?(obj: PrintedObject): TableRowCondition[] | undefined;
}
