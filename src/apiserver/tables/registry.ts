/**
 * Which printer each built-in resource uses. Keys are `<group>/<resource>`, with the core
 * group empty: `/pods`, `apps/deployments`, `events.k8s.io/events`. Printers do not depend
 * on the version, as in kube-apiserver. Resources not listed here fall back to
 * `defaultTableConvertor` (Name, Age); custom resources use `crdTableConvertor`.
 */
import { deploymentTableConvertor, daemonSetTableConvertor, replicaSetTableConvertor } from './apps-printers.ts';
import { cronJobTableConvertor, jobTableConvertor } from './batch-printers.ts';
import { certificateSigningRequestTableConvertor } from './certificates-printers.ts';
import {
  configMapTableConvertor,
  endpointsTableConvertor,
  namespaceTableConvertor,
  nodeTableConvertor,
  secretTableConvertor,
  serviceAccountTableConvertor,
  serviceTableConvertor,
} from './core-printers.ts';
import { createdAtTableConvertor, defaultTableConvertor } from './crd-columns.ts';
import { eventTableConvertor, eventsV1TableConvertor } from './event-printers.ts';
import { podTableConvertor } from './pod-printer.ts';
import { bindingTableConvertor } from './rbac-printers.ts';
import { leaseTableConvertor, podDisruptionBudgetTableConvertor } from './policy-printers.ts';
import type { TableConvertor } from './types.ts';

export { crdTableConvertor, createdAtTableConvertor, defaultTableConvertor } from './crd-columns.ts';

/** The registry key of a resource: `<group>/<resource>`, `/<resource>` for the core group. */
export function tableKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

export const builtinTableConvertors: Readonly<Record<string, TableConvertor>> = {
  '/pods': podTableConvertor,
  '/nodes': nodeTableConvertor,
  '/namespaces': namespaceTableConvertor,
  '/configmaps': configMapTableConvertor,
  '/secrets': secretTableConvertor,
  '/services': serviceTableConvertor,
  '/endpoints': endpointsTableConvertor,
  '/events': eventTableConvertor,
  '/serviceaccounts': serviceAccountTableConvertor,
  'events.k8s.io/events': eventsV1TableConvertor,
  'apps/deployments': deploymentTableConvertor,
  'apps/replicasets': replicaSetTableConvertor,
  'apps/daemonsets': daemonSetTableConvertor,
  'batch/jobs': jobTableConvertor,
  'batch/cronjobs': cronJobTableConvertor,
  'policy/poddisruptionbudgets': podDisruptionBudgetTableConvertor,
  'coordination.k8s.io/leases': leaseTableConvertor,
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequestTableConvertor,
  'apiextensions.k8s.io/customresourcedefinitions': createdAtTableConvertor,
  'rbac.authorization.k8s.io/roles': createdAtTableConvertor,
  'rbac.authorization.k8s.io/clusterroles': createdAtTableConvertor,
  'rbac.authorization.k8s.io/rolebindings': bindingTableConvertor,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingTableConvertor,
};

/** The printer for a built-in resource, or the default (Name, Age). */
export function builtinTableConvertor(group: string, resource: string): TableConvertor {
  return builtinTableConvertors[tableKey(group, resource)] ?? defaultTableConvertor;
}
