/**
 * What the OpenShift installer does for `shipyard up`, once the control plane answers:
 * 1. builds the release payloads into `<data-dir>/releases/<version>/` and makes each a
 *    release image in the local image store (`shipyard.local/release:<version>`): its program is
 *    the cluster-version-operator, and it carries its payload at `/release-manifests`, as an
 *    OpenShift release image does. The default release is installed; a second, test release
 *    is built beside it so an update can be tried (`oc adm upgrade --to-image` equivalent:
 *    `kubectl patch clusterversion version --type merge -p '{"spec":{"desiredUpdate":{...}}}'`).
 * 2. bootstraps the CVO as bootkube does: the CRDs the payload ships, the cluster configuration
 *    singletons (Infrastructure, Network, Image, FeatureGate `cluster`), what the nodes booted
 *    from for the machine-config operator to find (machine-config.ts), the ClusterVersion
 *    `version`, and the CVO's own namespace and Deployment. From then on the CVO installs the
 *    rest and keeps all of it, itself included, as the payload says.
 * Re-running it on a resumed cluster changes nothing that exists.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { configCRDs } from '../../api/config/index.ts';
import type { CustomResourceDefinitionManifest } from '../../api/crd/define.ts';
import { machineAPICRDs } from '../../api/machine/index.ts';
import { machineConfigurationCRDs } from '../../api/machineconfiguration/index.ts';
import { operatorCRDs } from '../../api/operator/index.ts';
import type { ImageStore } from '../../node/images.ts';
import type { ApiClient } from '../../runtime/client.ts';
import { discoverResources } from '../../runtime/discovery.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import { buildPayload } from '../../release/build.ts';
import type { LoadedPayload } from '../../release/payload.ts';
import { renderManifestObject } from '../../operators/cluster-version/payload.ts';
import { builtinImage, builtinImageOptions, componentNames, SHIPYARD_VERSION } from '../components.ts';
import { createMachineConfigObjects, type MachineConfigBootstrap } from './machine-config.ts';
import { createMachineApiObjects, type MachineApiInstall } from './machine-api.ts';

export const RELEASE_REPOSITORY = 'shipyard.local/release';
/** The release `shipyard up` installs, and the one built beside it to update to. */
export const DEFAULT_RELEASE_VERSION = SHIPYARD_VERSION;
export const TEST_RELEASE_VERSION = bumpPatch(SHIPYARD_VERSION);

function bumpPatch(version: string): string {
  const [major, minor, patch] = version.split('.').map(Number);
  return `${major}.${minor}.${(patch ?? 0) + 1}`;
}

export const releaseImage = (version: string): string => `${RELEASE_REPOSITORY}:${version}`;

const manifestSource = fileURLToPath(new URL('../../release/payload/', import.meta.url));

export interface ReleaseBuildOptions {
  readonly dataDir: string;
  readonly images: ImageStore;
  /** Fixed into the CVO's Deployment (`--reconcile-interval`); empty: the CVO's 2–4 minutes. */
  readonly reconcileInterval?: string;
}

/**
 * The payload source for this cluster: the checked-in manifests, the CRDs generated from the
 * API's schema sources (one declaration per kind, never a hand-kept copy), and the reconcile
 * interval fixed into the CVO's arguments.
 */
function stageSource(dataDir: string, from: string, reconcileInterval: string): string {
  const staged = join(dataDir, 'releases', `.source-${process.pid}`);
  rmSync(staged, { recursive: true, force: true });
  cpSync(from, staged, { recursive: true });
  const manifests = join(staged, 'manifests');
  for (const file of readdirSync(manifests)) {
    const path = join(manifests, file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('{{.ReconcileInterval}}', reconcileInterval));
  }
  for (const crd of [...configCRDs(), ...machineConfigurationCRDs(), ...machineAPICRDs(), ...operatorCRDs()]) {
    const file = join(manifests, crdFileName(crd));
    if (!existsSync(file)) writeFileSync(file, stringify(crd));
  }
  return staged;
}

/**
 * Builds one release payload and registers its release image; returns the image reference.
 * `source` (a directory with `manifests/` and `image-references`) defaults to Shipyard's own.
 */
export function buildRelease(o: ReleaseBuildOptions & { version: string; previous: readonly string[]; source?: string }): string {
  const out = join(o.dataDir, 'releases', o.version, 'release-manifests');
  const ref = releaseImage(o.version);
  const componentImages = Object.fromEntries(componentNames().map((n) => [n, builtinImage(n)]));
  const source = stageSource(o.dataDir, o.source ?? manifestSource, o.reconcileInterval ?? '');
  try {
    buildPayload({ source, out, version: o.version, previous: o.previous, images: componentImages, releaseImage: ref });
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
  o.images.import(ref, { ...builtinImageOptions('cluster-version-operator'), content: { '/release-manifests': out } });
  return ref;
}

/**
 * CRDs of ClusterVersion and ClusterOperator belong to the CVO (run level 00), the config ones to
 * the config operator (03), the machineconfiguration ones to the machine-config operator (80, the
 * file names OpenShift's payload gives them), the Machine API's to the machine-api-operator (30;
 * the legacy healthchecking.openshift.io MachineHealthCheck shares its plural, so its file
 * names the group too), KubeAPIServer to the kube-apiserver operator (20, the name its
 * repository ships it under).
 */
function crdFileName(crd: CustomResourceDefinitionManifest): string {
  const plural = crd.spec.names.plural;
  if (plural === 'clusterversions' || plural === 'clusteroperators') return `0000_00_cluster-version-operator_01_${plural}.crd.yaml`;
  if (crd.spec.group === 'machineconfiguration.openshift.io') return `0000_80_machine-config_01_${plural}.crd.yaml`;
  if (crd.spec.group === 'machine.openshift.io') return `0000_30_machine-api-operator_01_${plural}.crd.yaml`;
  if (plural === 'kubeapiservers') return '0000_20_kube-apiserver-operator_01_config.crd.yaml';
  if (crd.spec.group === 'healthchecking.openshift.io') return `0000_30_machine-api-operator_01_${plural}.${crd.spec.group}.crd.yaml`;
  return `0000_03_config-operator_01_${plural}.crd.yaml`;
}

export function buildReleases(o: ReleaseBuildOptions): { defaultImage: string; testImage: string } {
  const defaultImage = buildRelease({ ...o, version: DEFAULT_RELEASE_VERSION, previous: [] });
  const testImage = buildRelease({ ...o, version: TEST_RELEASE_VERSION, previous: [DEFAULT_RELEASE_VERSION] });
  return { defaultImage, testImage };
}

export interface InstallConfig {
  /** The admin kubeconfig's URL: Infrastructure's apiServerURL. */
  readonly apiServerURL: string;
  readonly clusterNetworkCIDR: string;
  readonly hostPrefix: number;
  readonly serviceNetworkCIDR: string;
  readonly masters: number;
  /** What the nodes booted from, created for the machine-config operator and controller to find. */
  readonly machineConfig?: { readonly boot: MachineConfigBootstrap; readonly pkiDir: string };
  /**
   * The nodes as Machines on the Shipyard platform, and the Secrets the machine controllers
   * read; without it the platform is `None` and the Machine API operator runs in NoOp mode.
   */
  readonly machineAPI?: MachineApiInstall;
  /** What `shipyard render` wrote for the cluster to hold (the operand's namespace, host-etcd, cluster-config-v1), created first. */
  readonly bootstrapManifests?: readonly KubernetesObject[];
}

async function waitFor(what: string, check: () => Promise<boolean>, signal: AbortSignal, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`bootstrap: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const config = (resource: string, kind: string): ResourceRef => ({ group: 'config.openshift.io', version: 'v1', resource, kind, namespaced: false });

/** Bootstraps the CVO from `payload` unless the cluster already has a ClusterVersion. */
export async function bootstrapClusterVersion(client: ApiClient, payload: LoadedPayload, install: InstallConfig, signal: AbortSignal): Promise<'bootstrapped' | 'exists'> {
  const cvRef = resources.clusterVersions;
  const crdRef = resources.customResourceDefinitions;
  const existing = await client.get(cvRef, undefined, 'version').then(() => true, () => false);
  if (existing) return 'exists';
  const render = (m: LoadedPayload['manifests'][number]): KubernetesObject => renderManifestObject(m.object, { ReleaseImage: payload.release.image }) as KubernetesObject;
  // Render's manifests first, as bootkube creates them: the bootstrap API server's mirror pod
  // waits for its namespace, and the kube-apiserver operator observes host-etcd and
  // cluster-config-v1 from its first sync.
  if (install.bootstrapManifests?.length) {
    const served = await discoverResources(client);
    for (const m of install.bootstrapManifests) {
      const ref = served.byKind(m.apiVersion!, m.kind!);
      if (!ref) throw new Error(`bootstrap: ${m.kind} ${m.metadata?.name}: kind ${m.apiVersion} ${m.kind} is not served`);
      await client.createIfMissing(ref, structuredClone(m));
    }
  }
  // The payload's CRDs first (bootkube applies the installer's copies of them).
  const crds = payload.manifests.filter((m) => m.kind === 'CustomResourceDefinition');
  for (const m of crds) await client.createIfMissing(crdRef, render(m));
  await waitFor('the payload CRDs to be Established', async () => {
    for (const m of crds) {
      const crd = await client.get<KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }>(crdRef, undefined, m.name);
      if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return false;
    }
    const served = await discoverResources(client);
    return !!served.byKind('config.openshift.io/v1', 'ClusterVersion') && !!served.byKind('config.openshift.io/v1', 'Infrastructure');
  }, signal);

  const singleton = async (resource: string, kind: string, spec: object, status: object): Promise<void> => {
    const ref = config(resource, kind);
    // Network has no status subresource (as in OpenShift): its status is written with the object.
    const statusSubresource = kind !== 'Network';
    const body = { apiVersion: 'config.openshift.io/v1', kind, metadata: { name: 'cluster' }, spec, ...(statusSubresource ? {} : { status }) } as KubernetesObject;
    const created = await client.createIfMissing(ref, body);
    if (created && statusSubresource && Object.keys(status).length) await client.updateStatus(ref, { ...created, status } as KubernetesObject);
  };
  const infraName = install.machineAPI?.infraName ?? `shipyard-${randomUUID().slice(0, 5)}`;
  const topology = install.masters >= 3 ? 'HighlyAvailable' : 'SingleReplica';
  const platform = install.machineAPI ? 'Shipyard' : 'None';
  await singleton('infrastructures', 'Infrastructure', { platformSpec: { type: platform } }, {
    infrastructureName: infraName,
    platform,
    platformStatus: { type: platform },
    apiServerURL: install.apiServerURL,
    apiServerInternalURI: install.apiServerURL,
    controlPlaneTopology: topology,
    infrastructureTopology: topology,
    etcdDiscoveryDomain: '',
    cpuPartitioning: 'None',
  });
  await singleton('networks', 'Network', { clusterNetwork: [{ cidr: install.clusterNetworkCIDR, hostPrefix: install.hostPrefix }], serviceNetwork: [install.serviceNetworkCIDR], networkType: 'ShipyardLoopback' }, {
    clusterNetwork: [{ cidr: install.clusterNetworkCIDR, hostPrefix: install.hostPrefix }],
    serviceNetwork: [install.serviceNetworkCIDR],
    networkType: 'ShipyardLoopback',
  });
  await singleton('images', 'Image', {}, { internalRegistryHostname: 'shipyard.local' });
  await singleton('featuregates', 'FeatureGate', { featureSet: '' }, {});
  if (install.machineConfig) await createMachineConfigObjects(client, { ...install.machineConfig, payload });
  if (install.machineAPI) await createMachineApiObjects(client, payload, install.machineAPI);

  // The CVO's own manifests (run level 00), rendered for this release.
  for (const m of payload.manifests.filter((x) => x.component === 'cluster-version-operator' && x.kind !== 'CustomResourceDefinition')) {
    const ref = (await discoverResources(client)).byKind(m.apiVersion, m.kind);
    if (!ref) throw new Error(`bootstrap: ${m.file}: kind ${m.apiVersion} ${m.kind} is not served`);
    await client.createIfMissing(ref, render(m));
  }
  await client.createIfMissing(cvRef, {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: randomUUID(), channel: `stable-${DEFAULT_RELEASE_VERSION.split('.').slice(0, 2).join('.')}` },
  } as KubernetesObject);
  return 'bootstrapped';
}
