/**
 * ControllerConfig (machineconfiguration.openshift.io/v1, singleton `machine-config-controller`):
 * what the operator tells the machine-config-controller about the cluster — CA bundles,
 * images, the cluster DNS IP, proxy, network and the Infrastructure and DNS objects — from
 * which the template controller renders the `00-<role>`/`01-<role>-kubelet` MachineConfigs.
 * Its status says whether the template controller has consumed the current spec.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s, type Schema } from '../crd/schema-builder.ts';
import { includedInPayload } from '../config/common.ts';
import { infrastructureSpec, infrastructureStatus, platformTypes } from '../config/infrastructure.ts';
import { categories, group, objectReference, version, type ConditionStatus } from './common.ts';

/** The one ControllerConfig the operator writes and the controllers read. */
export const controllerConfigName = 'machine-config-controller';

export const controllerConfigConditionTypes = {
  templateControllerRunning: 'TemplateControllerRunning',
  templateControllerCompleted: 'TemplateControllerCompleted',
  templateControllerFailing: 'TemplateControllerFailing',
} as const;

export const ipFamilies = ['IPv4', 'IPv6', 'DualStack', 'DualStackIPv6Primary'] as const;
export type IPFamilies = (typeof ipFamilies)[number];

const bytes = (description: string) => s.string({ format: 'byte', description });

/** An embedded Kubernetes object, as ControllerConfig carries the cluster's Infrastructure and DNS. */
function embedded<Spec, Status>(spec: Schema<Spec>, status: Schema<Status>, description: string) {
  return s.nullable(
    s.object(
      { apiVersion: s.string(), kind: s.string(), metadata: s.object({}), spec: required(spec), status },
      { embeddedResource: true, description },
    ),
  );
}

const dnsZone = s.object({
  id: s.string({ description: 'The zone\'s identifier at the cloud provider.' }),
  tags: s.map(s.string(), { description: 'Tags that identify the zone at the cloud provider.' }),
});

/** config.openshift.io DNSSpec, as the ControllerConfig embeds it. */
export const dnsSpec = s.object({
  baseDomain: s.string({ description: 'The cluster\'s base domain; records are <name>.<cluster>.<baseDomain>.' }),
  publicZone: dnsZone,
  privateZone: dnsZone,
  platform: s.object(
    {
      type: required(
        s.enum(platformTypes, {
          description: 'The platform whose DNS settings follow.',
          rules: [{ rule: "self in ['','AWS']", message: "allowed values are '' and 'AWS'" }],
        }),
      ),
      aws: s.object({
        privateZoneIAMRole: s.string({
          rules: [
            {
              rule: "matches(self, '^arn:(aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role/.*$')",
              message: 'privateZoneIAMRole must be a valid AWS IAM role ARN in the format: arn:<partition>:iam::<account-id>:role/<role-name>',
            },
          ],
        }),
      }),
    },
    { rules: [{ rule: "has(self.type) && self.type == 'AWS' ?  has(self.aws) : !has(self.aws)", message: 'aws configuration is required when platform is AWS, and forbidden otherwise' }] },
  ),
});

const mtu = s.object({ from: s.integer({ format: 'int32', minimum: 0 }), to: s.integer({ format: 'int32', minimum: 0 }) });

const registryBundle = s.object({ file: required(s.string()), data: required(bytes('The bundle\'s PEM data.')) });

export const controllerConfigSpec = s.object({
  clusterDNSIP: required(s.string({ description: 'The cluster DNS Service\'s IP, written into the kubelet configuration.' })),
  cloudProviderConfig: required(s.string({ description: 'The cloud provider configuration.' })),
  platform: s.string({ description: 'Deprecated: read infra.status.platformStatus.type.' }),
  etcdDiscoveryDomain: s.string({ description: 'Deprecated.' }),
  kubeAPIServerServingCAData: required(bytes('The CA bundle kubelets trust for the API server.')),
  rootCAData: required(bytes('The cluster\'s root CA.')),
  cloudProviderCAData: required(s.nullable(bytes('The CA bundle of the cloud provider\'s API.'))),
  additionalTrustBundle: required(s.nullable(bytes('Additional CAs every node trusts.'))),
  imageRegistryBundleUserData: s.array(registryBundle, { listType: 'atomic' }),
  imageRegistryBundleData: s.array(registryBundle, { listType: 'atomic' }),
  pullSecret: s.describe(objectReference, 'The Secret with the pull secret every node uses.'),
  internalRegistryPullSecret: s.nullable(bytes('The pull secret of the internal image registry.')),
  images: required(s.map(s.string(), { description: 'Images the templates refer to, by key.' })),
  baseOSContainerImage: required(s.string({ description: 'The OS image of the release.' })),
  baseOSExtensionsContainerImage: s.string({ description: 'The extensions image matching baseOSContainerImage.' }),
  osImageURL: s.string({ description: 'Deprecated: the OS image of older releases.' }),
  releaseImage: required(s.string({ description: 'The release image this configuration comes from.' })),
  proxy: required(
    s.nullable(
      s.object({
        httpProxy: s.string(),
        httpsProxy: s.string(),
        noProxy: s.string(),
      }),
    ),
  ),
  infra: required(embedded(infrastructureSpec, infrastructureStatus, 'The cluster\'s Infrastructure object.')),
  dns: required(embedded(dnsSpec, s.object({}), 'The cluster\'s DNS object.')),
  ipFamilies: required(s.stringOf<IPFamilies>({ description: 'IPv4, IPv6, DualStack or DualStackIPv6Primary.' })),
  networkType: s.string({ description: 'Deprecated: the cluster network plugin.' }),
  network: required(
    s.nullable(
      s.object({
        mtuMigration: required(s.nullable(s.object({ network: mtu, machine: mtu }, { description: 'An MTU migration in progress.' }))),
      }),
    ),
  ),
});
export type ControllerConfigSpec = Infer<typeof controllerConfigSpec>;

export const controllerConfigStatusCondition = s.object({
  type: required(s.string({ description: 'TemplateControllerRunning, TemplateControllerCompleted or TemplateControllerFailing.' })),
  status: required(s.stringOf<ConditionStatus>({ description: 'True, False or Unknown.' })),
  lastTransitionTime: required(s.nullable(s.time())),
  reason: s.string(),
  message: s.string(),
});
export type ControllerConfigStatusCondition = Infer<typeof controllerConfigStatusCondition>;

export const controllerCertificate = s.object({
  subject: required(s.string()),
  signer: required(s.string()),
  notBefore: s.time(),
  notAfter: s.time(),
  bundleFile: required(s.string({ description: 'The bundle the certificate came from.' })),
});
export type ControllerCertificate = Infer<typeof controllerCertificate>;

export const controllerConfigStatus = s.object({
  observedGeneration: s.integer({ format: 'int64', description: 'The generation of the spec the template controller last rendered.' }),
  conditions: s.array(controllerConfigStatusCondition, { listType: 'map', listMapKeys: ['type'] }),
  controllerCertificates: s.array(controllerCertificate, { listType: 'atomic', description: 'The certificates in the spec\'s CA bundles.' }),
});
export type ControllerConfigStatus = Infer<typeof controllerConfigStatus>;

export const ControllerConfig = defineCustomResource({
  group,
  version,
  kind: 'ControllerConfig',
  plural: 'controllerconfigs',
  categories,
  scope: 'Cluster',
  description: 'The cluster configuration the machine-config-controller renders node configurations from.',
  annotations: includedInPayload,
  spec: controllerConfigSpec,
  status: controllerConfigStatus,
});
export type ControllerConfig = ResourceOf<typeof ControllerConfig>;
