/**
 * Building blocks shared by the printers: column definitions with the wire defaults filled
 * in (`format: ""`, `priority: 0`), the Name and Age columns every resource has, and small
 * formatters kubectl's printers use everywhere (container names and images joined by commas).
 */
import type { ColumnDefinition, ColumnType, PrintedObject } from './types.ts';

export function column(name: string, type: ColumnType, description: string, options: { priority?: number; format?: string } = {}): ColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** Shown only with `kubectl get -o wide`. */
export function wide(name: string, type: ColumnType, description: string): ColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

export const nameColumn = column('Name', 'string', 'The name of the object, unique within its namespace (or the cluster) for this resource.', { format: 'name' });

/** Built-in printers render Age themselves, so it is a string column there. */
export const ageColumn = column('Age', 'string', 'How long ago the object was created (metadata.creationTimestamp).');

export const containersColumn = wide('Containers', 'string', 'Names of each container in the pod template.');
export const imagesColumn = wide('Images', 'string', 'Images referenced by each container in the pod template.');

/** `layoutContainerCells`: container names and images, each joined by commas. */
export function containerCells(containers: unknown): [names: string, images: string] {
  const list = Array.isArray(containers) ? (containers as PrintedObject[]) : [];
  return [list.map((c) => String(c?.name ?? '')).join(','), list.map((c) => String(c?.image ?? '')).join(',')];
}

/** An int32 field that Go would print as 0 when unset. */
export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** A string field that Go would print as `""` when unset. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The number of keys of a map field (`len(obj.Data)`). */
export function size(value: unknown): number {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 0;
}
