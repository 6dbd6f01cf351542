/**
 * Printers for RBAC bindings, as kube's: NAME, ROLE (`ClusterRole/view`), AGE, and with
 * `-o wide` the USERS, GROUPS and SERVICEACCOUNTS (`namespace/name`) they bind. Roles and
 * ClusterRoles print NAME and CREATED AT, which is `createdAtTableConvertor`.
 */
import { ageColumn, column, nameColumn, text, wide } from './columns.ts';
import { ageSince } from './human-duration.ts';
import type { TableConvertor } from './types.ts';

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** kube's rbac.SubjectsStrings: the names of each kind of subject, joined as kubectl shows them. */
function subjectsOf(subjects: unknown): [users: string, groups: string, serviceAccounts: string] {
  const list: Subject[] = Array.isArray(subjects) ? subjects : [];
  const named = (kind: string) => list.filter((s) => s?.kind === kind);
  return [
    named('User').map((s) => text(s.name)).join(', '),
    named('Group').map((s) => text(s.name)).join(', '),
    named('ServiceAccount').map((s) => (s.namespace ? `${s.namespace}/${text(s.name)}` : text(s.name))).join(', '),
  ];
}

export const bindingTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    column('Role', 'string', 'The role the binding grants (roleRef), as Kind/name.'),
    ageColumn,
    wide('Users', 'string', 'Users in the roleBinding'),
    wide('Groups', 'string', 'Groups in the roleBinding'),
    wide('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding'),
  ],
  cells: (binding, now) => [text(binding.metadata?.name), `${text(binding.roleRef?.kind)}/${text(binding.roleRef?.name)}`, ageSince(binding.metadata?.creationTimestamp, now), ...subjectsOf(binding.subjects)],
};
