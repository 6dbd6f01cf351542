/**
 * operator.openshift.io/v1: the operators' own CRs. Today the kube-apiserver operator's
 * KubeAPIServer (issue 17), declared once (schema → type, CRD manifest, printer columns), with
 * the names the operator's parts coordinate through and the schema pieces openshift/api shares
 * between operator kinds.
 */
import type { CustomResourceDefinitionManifest } from '../crd/define.ts';
import { KubeAPIServer } from './kube-apiserver.ts';

export * from './common.ts';
export * from './names.ts';
export * from './kube-apiserver.ts';

export const operatorKinds = [KubeAPIServer] as const;

/** Fresh copies of the group's CRDs, as the release payload ships them. */
export function operatorCRDs(): CustomResourceDefinitionManifest[] {
  return operatorKinds.map((k) => structuredClone(k.crd));
}
