/**
 * Tables for custom resources and for kinds without a printer of their own.
 *
 * `crdTableConvertor` follows the apiextensions rules: Name first, then one column per
 * `additionalPrinterColumns` entry, filled from its JSONPath and converted by type
 * (integer, number, boolean, string — non-strings JSONPath-printed — and date, shown as an
 * age). A missing or mistyped value is an empty (null) cell. A version without printer
 * columns gets the implicit Age column (a date from `.metadata.creationTimestamp`); a
 * version with them gets no implicit Age.
 *
 * `createdAtTableConvertor` is kube-apiserver's own default (Name, Created At as an RFC 3339
 * time), which is what `kubectl get crd` shows. `defaultTableConvertor` (Name, Age) is what
 * kubectl shows for a server without tables; use it for anything else without a printer.
 */
import { formatTimestamp } from '../../api/time.ts';
import { ageColumn, column, nameColumn, text } from './columns.ts';
import { ageSince, humanDuration, parseTimestamp, zeroTime } from './human-duration.ts';
import { compileJsonPath, formatJsonPathValue } from './jsonpath.ts';
import type { PrinterColumn } from '../registry/resource.ts';
import type { ColumnDefinition, ColumnType, PrintedObject, TableConvertor } from './types.ts';

export type { PrinterColumn };

const creationTimestampDescription = 'How long ago the object was created (metadata.creationTimestamp).';

/** The column a version without printer columns gets. */
export const implicitAgeColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: creationTimestampDescription };

/** `metav1.Time` from a query-parameter string: empty → `<unknown>`, unparseable → `<invalid>`. */
function dateCell(value: string, now: number): string {
  if (value === '' || value === 'null') return '<unknown>';
  const t = parseTimestamp(value);
  if (t === undefined) return '<invalid>';
  return t === zeroTime ? '<unknown>' : humanDuration(now - t);
}

/** A JSONPath result converted for a column of `type`; null when it does not fit. */
export function printerCell(type: string, value: unknown, now: number): unknown {
  if (type === 'string') return formatJsonPathValue(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

const columnTypes: readonly string[] = ['string', 'integer', 'number', 'boolean', 'date'];

/** The table for a custom resource version with the given printer columns. */
export function crdTableConvertor(printerColumns: readonly PrinterColumn[] | undefined | null): TableConvertor {
  const source = printerColumns && printerColumns.length > 0 ? printerColumns : [implicitAgeColumn];
  const compiled = source.map((c) => {
    let evaluate: ((obj: unknown) => unknown[]) | undefined;
    try {
      evaluate = compileJsonPath(c.jsonPath);
    } catch {
      evaluate = undefined; // validation refuses bad paths; an old stored CRD just gets empty cells.
    }
    return { type: c.type, evaluate };
  });
  const columns: ColumnDefinition[] = [
    nameColumn,
    ...source.map((c) =>
      column(c.name, (columnTypes.includes(c.type) ? c.type : 'string') as ColumnType, c.description ?? '', { format: c.format ?? '', priority: c.priority ?? 0 }),
    ),
  ];
  return {
    columns,
    cells(obj, now) {
      const cells: unknown[] = [text(obj.metadata?.name)];
      for (const c of compiled) {
        const results = c.evaluate ? c.evaluate(obj) : [];
        // Only simple paths are allowed, so the first result is the value.
        cells.push(results.length === 0 ? null : printerCell(c.type, results[0], now));
      }
      return cells;
    },
  };
}

/** `time.Time.UTC().Format(time.RFC3339)`: seconds precision, `Z`. */
function rfc3339(timestamp: unknown): string {
  const t = parseTimestamp(timestamp) ?? zeroTime;
  return formatTimestamp(t);
}

export const createdAtTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Created At', 'date', 'When the object was created (metadata.creationTimestamp).')],
  cells: (obj: PrintedObject) => [text(obj.metadata?.name), rfc3339(obj.metadata?.creationTimestamp)],
};

export const defaultTableConvertor: TableConvertor = {
  columns: [nameColumn, ageColumn],
  cells: (obj: PrintedObject, now: number) => [text(obj.metadata?.name), ageSince(obj.metadata?.creationTimestamp, now)],
};
