/**
 * KubeletConfig (machineconfiguration.openshift.io/v1): kubelet settings for the pools its
 * `machineConfigPoolSelector` picks. `kubeletConfig` is an upstream KubeletConfiguration kept
 * as sent; the kubelet-config controller refuses the fields users may not set and merges the
 * rest into the pool's kubelet configuration as a generated MachineConfig, reporting the
 * outcome in `status.conditions`.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { includedInPayload } from '../config/common.ts';
import { categories, group, labelSelector, optionalFieldCondition, version } from './common.ts';

export const kubeletConfigConditionTypes = {
  accepted: 'Accepted',
  /** Legacy: what the controller reported before `Accepted`. */
  success: 'Success',
  failure: 'Failure',
} as const;

export const tlsProfileTypes = ['Old', 'Intermediate', 'Modern', 'Custom'] as const;
export const tlsProtocolVersions = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;

/** config.openshift.io's TLSSecurityProfile: a named profile, or `custom` ciphers and minimum version. */
export const tlsSecurityProfile = s.object({
  type: s.enum(tlsProfileTypes, { description: 'The profile: Old, Intermediate, Modern or Custom.' }),
  old: s.nullable(s.object({})),
  intermediate: s.nullable(s.object({})),
  modern: s.nullable(s.object({})),
  custom: s.nullable(
    s.object({
      ciphers: s.array(s.string(), { listType: 'atomic', description: 'Cipher suites, in OpenSSL names.' }),
      minTLSVersion: s.enum(tlsProtocolVersions),
    }),
  ),
});
export type TLSSecurityProfile = Infer<typeof tlsSecurityProfile>;

export const kubeletConfigSpec = s.object({
  logLevel: s.integer({ format: 'int32', minimum: 0, maximum: 10, description: 'The kubelet\'s log verbosity.' }),
  autoSizingReserved: s.boolean({ description: 'Size the system reservation from the node\'s capacity.' }),
  machineConfigPoolSelector: labelSelector('Which MachineConfigPools this configuration applies to; none when unset.'),
  kubeletConfig: s.unknownObject({ description: 'Fields of an upstream KubeletConfiguration (kubelet.config.k8s.io/v1beta1).' }),
  tlsSecurityProfile: s.describe(tlsSecurityProfile, 'The TLS settings of the kubelet\'s server.'),
});
export type KubeletConfigSpec = Infer<typeof kubeletConfigSpec>;

export const kubeletConfigCondition = optionalFieldCondition;
export type KubeletConfigCondition = Infer<typeof kubeletConfigCondition>;

export const kubeletConfigStatus = s.object({
  observedGeneration: s.integer({ format: 'int64', description: 'The generation of the spec the controller last acted on.' }),
  conditions: s.array(kubeletConfigCondition, { listType: 'atomic' }),
});
export type KubeletConfigStatus = Infer<typeof kubeletConfigStatus>;

export const KubeletConfig = defineCustomResource({
  group,
  version,
  kind: 'KubeletConfig',
  plural: 'kubeletconfigs',
  categories,
  scope: 'Cluster',
  description: 'Kubelet settings for the machines of the selected pools.',
  annotations: includedInPayload,
  spec: kubeletConfigSpec,
  status: kubeletConfigStatus,
});
export type KubeletConfig = ResourceOf<typeof KubeletConfig>;
