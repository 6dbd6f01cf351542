/**
 * ClusterVersion (config.openshift.io/v1): the singleton `version` through which an admin asks
 * the Cluster Version Operator for a release and reads what it applied. Field names, required
 * fields, list types and printer columns follow OpenShift's ClusterVersion so `oc`-style tooling
 * and the CVO's own logic carry over; the feature-gated fields (signature stores, accepted
 * risks, conditional update risks) and the update-service recommendations are left out.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { clusterOperatorConditions, group, includedInPayload, version } from './common.ts';

/** The only ClusterVersion the CVO reads. */
export const clusterVersionName = 'version';

export const clusterVersionConditionTypes = {
  available: 'Available',
  progressing: 'Progressing',
  failing: 'Failing',
  upgradeable: 'Upgradeable',
  releaseAccepted: 'ReleaseAccepted',
  retrievedUpdates: 'RetrievedUpdates',
  invalid: 'Invalid',
  implicitlyEnabledCapabilities: 'ImplicitlyEnabledCapabilities',
} as const;

const architecture = s.enum(['Multi', ''], { description: 'Multi for a heterogeneous-architecture release; empty for the current one.' });

export const capabilityNames = [
  'openshift-samples',
  'baremetal',
  'marketplace',
  'Console',
  'Insights',
  'Storage',
  'CSISnapshot',
  'NodeTuning',
  'MachineAPI',
  'Build',
  'DeploymentConfig',
  'ImageRegistry',
  'OperatorLifecycleManager',
  'CloudCredential',
  'Ingress',
  'CloudControllerManager',
  'OperatorLifecycleManagerV1',
] as const;
const capability = s.enum(capabilityNames);

export const capabilitySets = ['None', 'v4.11', 'v4.12', 'v4.13', 'v4.14', 'v4.15', 'v4.16', 'v4.17', 'v4.18', 'vCurrent'] as const;

export const update = s.object(
  {
    architecture,
    version: s.string({ description: 'A semantic version; with no image, the CVO looks it up among the available updates.' }),
    image: s.string({ description: 'The release image (pull spec) to move to.' }),
    force: s.boolean({ description: 'Apply even when verification or preconditions fail.' }),
  },
  {
    description: 'The release the cluster should run.',
    rules: [
      { rule: 'has(self.architecture) && has(self.image) ? (self.architecture == "" || self.image == "") : true', message: 'cannot set both Architecture and Image' },
      { rule: 'has(self.architecture) && self.architecture != "" ? self.version != "" : true', message: 'Version must be set if Architecture is set' },
    ],
  },
);
export type Update = Infer<typeof update>;

export const componentOverride = s.object({
  kind: required(s.string({ description: 'Kind of the manifest, e.g. Deployment.' })),
  group: required(s.string({ description: 'API group of the manifest; empty for the core group.' })),
  namespace: required(s.string({ description: 'Namespace of the manifest; ignored for cluster-scoped kinds.' })),
  name: required(s.string()),
  unmanaged: required(s.boolean({ description: 'Stop the CVO from creating, updating or deleting this object.' })),
});
export type ComponentOverride = Infer<typeof componentOverride>;

/** A Kubernetes API version standing alone (`v1`, `v1beta1`), as kube's version names go. */
const apiVersionName = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/**
 * How an override's `group` is read: an apiVersion written there (`apps/v1`) means its group
 * (`apps`), and a version alone (`v1`) the core group. OpenShift's CVO compares the field as
 * written, so the kube-apiserver operator's own instructions (`group: apps/v1`) match nothing and
 * the CVO keeps reverting the developer's Deployment without a word (issue 17, item 9).
 */
export function overrideGroup(group: string): string {
  if (apiVersionName.test(group)) return '';
  const slash = group.indexOf('/');
  if (slash > 0 && apiVersionName.test(group.slice(slash + 1))) return group.slice(0, slash);
  return group;
}

/** What the API server tells whoever writes a group `overrideGroup` reads differently (`Warning` headers). */
export function overrideGroupWarnings(overrides: readonly Readonly<Pick<ComponentOverride, 'group'>>[] | undefined): string[] {
  const warnings: string[] = [];
  (overrides ?? []).forEach((o, i) => {
    if (typeof o?.group !== 'string') return;
    const read = overrideGroup(o.group);
    if (read === o.group) return;
    const field = `spec.overrides[${i}].group`;
    warnings.push(read === '' ? `${field}: ${JSON.stringify(o.group)} is a version; the group is "" (the core group)` : `${field}: ${JSON.stringify(o.group)} names a group and a version; the group is ${JSON.stringify(read)}`);
  });
  return warnings;
}

export const release = s.object({
  architecture,
  version: required(s.string({ description: 'The semantic version of the release.' })),
  image: required(s.string({ description: 'The release image (pull spec).' })),
  url: s.string({ description: 'Where to read about the release.' }),
  channels: s.array(s.string(), { listType: 'set' }),
});
export type Release = Infer<typeof release>;

export const updateStates = ['Partial', 'Completed'] as const;
export type UpdateState = (typeof updateStates)[number];

export const updateHistory = s.object({
  state: required(s.stringOf<UpdateState>({ description: 'Partial while being applied (or abandoned), Completed once fully applied.' })),
  startedTime: required(s.time()),
  completionTime: required(s.nullable(s.time({ description: 'When the update completed or was superseded; null while in progress.' }))),
  version: s.string(),
  image: required(s.string()),
  verified: required(s.boolean({ description: 'Whether the release image was verified before applying it.' })),
  acceptedRisks: s.string(),
});
export type UpdateHistory = Infer<typeof updateHistory>;

export const clusterVersionSpec = s.object({
  clusterID: required(s.string({ description: 'A unique identifier of this cluster.' })),
  desiredUpdate: update,
  upstream: s.string({ description: 'The update service to ask for available updates.' }),
  channel: s.string({ description: 'The update channel, e.g. stable-4.18.' }),
  capabilities: s.object({
    baselineCapabilitySet: s.enum(capabilitySets),
    additionalEnabledCapabilities: s.array(capability, { listType: 'atomic' }),
  }),
  overrides: s.array(componentOverride, {
    listType: 'map',
    listMapKeys: ['kind', 'group', 'namespace', 'name'],
    description: 'Manifests of the release the CVO leaves alone.',
  }),
});
export type ClusterVersionSpec = Infer<typeof clusterVersionSpec>;

export const clusterVersionStatus = s.object({
  desired: required(s.describe(release, 'The release the CVO is applying or has applied.')),
  history: s.array(updateHistory, { listType: 'atomic', description: 'Updates, newest first, at most 100.' }),
  observedGeneration: required(s.integer({ format: 'int64', description: 'The generation of the spec the CVO last acted on.' })),
  versionHash: required(s.string({ description: 'A hash of the applied manifests, to detect a changed payload.' })),
  capabilities: s.object({
    enabledCapabilities: s.array(capability, { listType: 'atomic' }),
    knownCapabilities: s.array(capability, { listType: 'atomic' }),
  }),
  conditions: clusterOperatorConditions,
  availableUpdates: required(s.nullable(s.array(release, { listType: 'atomic', description: 'Releases the update service recommends.' }))),
});
export type ClusterVersionStatus = Infer<typeof clusterVersionStatus>;

export const ClusterVersion = defineCustomResource({
  group,
  version,
  kind: 'ClusterVersion',
  plural: 'clusterversions',
  scope: 'Cluster',
  description: 'The release the Cluster Version Operator applies, and its progress.',
  annotations: includedInPayload,
  spec: clusterVersionSpec,
  status: clusterVersionStatus,
  printerColumns: [
    { name: 'Version', type: 'string', jsonPath: '.status.history[?(@.state=="Completed")].version' },
    { name: 'Available', type: 'string', jsonPath: '.status.conditions[?(@.type=="Available")].status' },
    { name: 'Progressing', type: 'string', jsonPath: '.status.conditions[?(@.type=="Progressing")].status' },
    { name: 'Since', type: 'date', jsonPath: '.status.conditions[?(@.type=="Progressing")].lastTransitionTime' },
    { name: 'Status', type: 'string', jsonPath: '.status.conditions[?(@.type=="Progressing")].message' },
    // Beyond OpenShift's columns: `-o wide` names the release image, so a custom release shows.
    { name: 'Image', type: 'string', jsonPath: '.status.desired.image', priority: 1 },
  ],
});
export type ClusterVersion = ResourceOf<typeof ClusterVersion>;
