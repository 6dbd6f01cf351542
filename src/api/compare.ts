/**
 * Strings in Go's order (`sort.Strings`, `a < b` on strings): by code unit, not by locale. It is
 * what Kubernetes sorts names, resources and addresses by, so lists come out as upstream's do,
 * and unlike `localeCompare` it never loads ICU's collation data (~2 MiB in each process that
 * sorts this way).
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
