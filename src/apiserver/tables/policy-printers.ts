/**
 * Printers for the small cluster-coordination kinds: PodDisruptionBudgets (MIN AVAILABLE,
 * MAX UNAVAILABLE as given, `N/A` when unset, and ALLOWED DISRUPTIONS) and Leases (HOLDER).
 */
import { ageColumn, column, int, nameColumn, text } from './columns.ts';
import { ageSince } from './human-duration.ts';
import type { TableConvertor } from './types.ts';

/** An IntOrString as Go prints it (`2`, `50%`), or `N/A` when unset. */
function intOrString(value: unknown): string {
  if (typeof value === 'number') return String(Math.trunc(value));
  if (typeof value === 'string') return value;
  return 'N/A';
}

export const podDisruptionBudgetTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'How many selected pods must stay available.'),
    column('Max Unavailable', 'string', 'How many selected pods may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'How many pods may be evicted right now.'),
    ageColumn,
  ],
  cells: (pdb, now) => [text(pdb.metadata?.name), intOrString(pdb.spec?.minAvailable), intOrString(pdb.spec?.maxUnavailable), int(pdb.status?.disruptionsAllowed), ageSince(pdb.metadata?.creationTimestamp, now)],
};

export const leaseTableConvertor: TableConvertor = {
  columns: [nameColumn, column('Holder', 'string', 'Who holds the lease now.'), ageColumn],
  cells: (lease, now) => [text(lease.metadata?.name), text(lease.spec?.holderIdentity), ageSince(lease.metadata?.creationTimestamp, now)],
};
