/**
 * `shipyard render` as `shipyard up` runs it at cluster creation, as OpenShift's installer runs
 * the kube-apiserver operator's render on the bootstrap node: the cluster's facts go into
 * `<data dir>/bootstrap/install-config.yaml`, the assets into `<data dir>/bootstrap/assets/`.
 * Master-0 boots with the bootstrap pod and its config (bootstrap-ignition.ts); the install
 * creates the manifests before the CVO starts (install.ts), so the operator observes the same
 * facts the bootstrap server was started with.
 *
 * The install configuration carries no `sshKey`: the machine-config template controller reads
 * that key from the same ConfigMap, and the nodes booted from configs rendered without one
 * (machine-config.ts); with one, every node would roll at install.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { installConfigFile } from '../../operators/kube-apiserver/render/inputs.ts';
import { bootstrapConfigFileName, bootstrapPodFileName } from '../../operators/kube-apiserver/render/render.ts';
import { runRender } from '../../operators/kube-apiserver/render/write.ts';
import { builtinImage } from '../components.ts';
import type { AddressBlock } from './address-block.ts';

const bootstrapDir = (dataDir: string): string => join(dataDir, 'bootstrap');
const assetsDir = (dataDir: string): string => join(bootstrapDir(dataDir), 'assets');

export interface BootstrapApiServer {
  /** The bootstrap static pod. */
  readonly pod: Record<string, unknown>;
  /** Its config file's text. */
  readonly config: string;
}

/** The install configuration of a new cluster: its address block and where its store is. */
export function installConfigFor(o: { dataDir: string; apiUrl: string; block: AddressBlock }): string {
  return stringify({
    apiVersion: 'v1',
    metadata: { name: 'shipyard' },
    networking: {
      networkType: 'ShipyardLoopback',
      clusterNetwork: [{ cidr: o.block.podCIDR, hostPrefix: o.block.podHostPrefix }],
      serviceNetwork: [o.block.serviceCIDR],
    },
    platform: { shipyard: { apiServerURL: o.apiUrl, storeDir: join(o.dataDir, 'store') } },
  });
}

/** Renders the assets (again: a cluster being created has no other copy) and returns what master-0 boots with. */
export function renderBootstrap(o: { dataDir: string; apiUrl: string; block: AddressBlock; apiPort: number }): BootstrapApiServer {
  const input = bootstrapDir(o.dataDir);
  mkdirSync(input, { recursive: true });
  writeFileSync(join(input, installConfigFile), installConfigFor(o));
  const configFile = join(input, bootstrapConfigFileName);
  const { assets } = runRender({ assetInputDir: input, assetOutputDir: assetsDir(o.dataDir), configOutputFile: configFile, image: builtinImage('kube-apiserver'), securePort: o.apiPort });
  return { pod: assets.bootstrapManifests[bootstrapPodFileName] as Record<string, unknown>, config: readFileSync(configFile, 'utf8') };
}

/** The objects render wrote for the cluster, in file name order; none for a cluster created before render. */
export function bootstrapManifests(dataDir: string): KubernetesObject[] {
  const dir = join(assetsDir(dataDir), 'manifests');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as KubernetesObject);
}

