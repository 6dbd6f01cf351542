/**
 * config.openshift.io/v1: the kinds the Cluster Version Operator and the operators it installs
 * read and write, each declared once (schema → type, CRD manifest, printer columns), with the
 * condition and history helpers that go with them.
 */
import type { CustomResourceDefinitionManifest } from '../crd/define.ts';
import { ClusterOperator } from './cluster-operator.ts';
import { ClusterVersion } from './cluster-version.ts';
import { FeatureGate } from './feature-gate.ts';
import { Image } from './image.ts';
import { Infrastructure } from './infrastructure.ts';
import { Network } from './network.ts';

export * from './common.ts';
export * from './cluster-version.ts';
export * from './cluster-operator.ts';
export * from './infrastructure.ts';
export * from './network.ts';
export * from './image.ts';
export * from './feature-gate.ts';
export * from './conditions.ts';
export * from './history.ts';

export const configKinds = [ClusterVersion, ClusterOperator, Infrastructure, Network, Image, FeatureGate] as const;

/** Fresh copies of every CRD of the group, ClusterVersion and ClusterOperator first. */
export function configCRDs(): CustomResourceDefinitionManifest[] {
  return configKinds.map((k) => structuredClone(k.crd));
}
