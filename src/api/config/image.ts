/**
 * Image (config.openshift.io/v1, singleton `cluster`): cluster-wide image registry policy and
 * where the internal registry is reachable. Only what operators read is declared: the registry
 * sources (allowed, blocked, insecure), externally known registry hostnames, and
 * `status.internalRegistryHostname`.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { group, includedInPayload, version } from './common.ts';

const registries = s.array(s.string({ minLength: 1, maxLength: 256 }), { listType: 'atomic', maxItems: 1024 });

export const registrySources = s.object(
  {
    insecureRegistries: s.describe(registries, 'Registries reached without TLS verification.'),
    blockedRegistries: s.describe(registries, 'Registries image pulls may not use; everything else is allowed.'),
    allowedRegistries: s.describe(registries, 'The only registries image pulls may use.'),
    containerRuntimeSearchRegistries: s.array(s.string(), { listType: 'set', minItems: 1, description: 'Registries searched for short image names.' }),
  },
  { rules: [{ rule: 'has(self.blockedRegistries) ? !has(self.allowedRegistries) : true', message: 'Only one of blockedRegistries or allowedRegistries may be set' }] },
);
export type RegistrySources = Infer<typeof registrySources>;

const hostnames = s.array(s.string(), { listType: 'atomic', description: 'Hostnames the internal registry is exposed at, outside the cluster.' });

export const imageSpec = s.object({
  allowedRegistriesForImport: s.array(s.object({ domainName: s.string(), insecure: s.boolean() }), { listType: 'atomic' }),
  externalRegistryHostnames: hostnames,
  additionalTrustedCA: s.object({ name: required(s.string({ description: 'A ConfigMap in openshift-config with extra CA bundles.' })) }),
  registrySources,
});
export type ImageSpec = Infer<typeof imageSpec>;

export const imageStatus = s.object({
  internalRegistryHostname: s.string({ description: 'host[:port] of the internal image registry, as pods reach it.' }),
  externalRegistryHostnames: hostnames,
});
export type ImageStatus = Infer<typeof imageStatus>;

export const Image = defineCustomResource({
  group,
  version,
  kind: 'Image',
  plural: 'images',
  scope: 'Cluster',
  description: 'Cluster-wide image registry configuration (singleton `cluster`).',
  annotations: includedInPayload,
  spec: imageSpec,
  status: imageStatus,
});
export type Image = ResourceOf<typeof Image>;
