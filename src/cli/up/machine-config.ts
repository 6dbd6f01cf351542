/**
 * The Machine Config Operator's part of the install, as OpenShift's installer and bootstrap node
 * do it (`machine-config-operator bootstrap`):
 *
 * 1. Before any node boots, render what the controller would: the ControllerConfig the operator
 *    will write (the same function, from the same root CA, Service network and release images),
 *    the template MachineConfigs, and each pool's rendered config (`renderBootstrap`). Each node
 *    boots from its pool's rendered Ignition, plus `node-annotations.json` naming that config as
 *    current and desired (state Done), so the daemon's first sync changes nothing.
 * 2. Once the API server answers, create what the controller must find: the templates, the
 *    rendered configs, and the pools with `spec.configuration` and `status.configuration` at
 *    them; the operator's namespace, the root CA it reads (`kube-system/root-ca`) and the signer
 *    it issues its operands' serving certificates from: a CA below the cluster CA that may sign
 *    serving certificates only (serving-certs.ts). The cluster CA's key never leaves `pki/`.
 *
 * Everything is created only when missing, so a retried install changes nothing that exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { encodeDataUrl, parseObject, type IgnitionConfig, type IgnitionFile } from '../../api/ignition/index.ts';
import { type ControllerConfig, type MachineConfig, type MachineConfigPool, servedNodeFiles } from '../../api/machineconfiguration/index.ts';
import { controllerConfigFor } from '../../operators/machine-config/operator/controller-config.ts';
import { parseImagesJson, type OperatorImages } from '../../operators/machine-config/operator/images.ts';
import { IMAGES_CONFIGMAP, MCO_NAMESPACE, ROOT_CA_CONFIGMAP, secretNames } from '../../operators/machine-config/operator/names.ts';
import { builtinPools } from '../../operators/machine-config/operator/operands.ts';
import { issueSigner, signerSecret } from '../../operators/machine-config/operator/serving-certs.ts';
import { renderBootstrap } from '../../operators/machine-config/render/render.ts';
import { renderTemplates } from '../../operators/machine-config/render/templates.ts';
import { initialNodeAnnotations } from '../../operators/machine-config/server/served-config.ts';
import type { ApiClient } from '../../runtime/client.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import type { LoadedPayload } from '../../release/payload.ts';

export interface MachineConfigBootstrap {
  readonly controllerConfig: ControllerConfig;
  /** `00-<role>`, `01-<role>-kubelet`, `99-<role>-ssh`. */
  readonly templates: readonly MachineConfig[];
  readonly renderedConfigs: readonly MachineConfig[];
  /** `master` and `worker`, each with spec and status configuration at its rendered config. */
  readonly pools: readonly MachineConfigPool[];
}

/** The operand images the release lists (its `machine-config-operator-images` ConfigMap). */
export function releaseImages(payload: LoadedPayload): OperatorImages {
  const m = payload.manifests.find((x) => x.kind === 'ConfigMap' && x.namespace === MCO_NAMESPACE && x.name === IMAGES_CONFIGMAP);
  const text = (m?.object.data as Record<string, unknown> | undefined)?.['images.json'];
  if (typeof text !== 'string') throw new Error(`the release ${payload.release.version} has no ConfigMap ${MCO_NAMESPACE}/${IMAGES_CONFIGMAP} with images.json`);
  return parseImagesJson(text, `${m!.file}: images.json`);
}

export function renderMachineConfigBootstrap(o: { payload: LoadedPayload; rootCAPem: string; serviceCIDR: string }): MachineConfigBootstrap {
  const version = o.payload.release.version;
  const controllerConfig = controllerConfigFor({ serviceNetwork: [o.serviceCIDR], rootCAPem: o.rootCAPem, images: releaseImages(o.payload), releaseImage: o.payload.release.image, operatorVersion: version });
  // No pull secret and no SSH key: the install has none, and the template controller reads the
  // same absence (no pullSecret named, no kube-system/cluster-config-v1), so it renders the same.
  const templates = renderTemplates({ controllerConfig, controllerVersion: version });
  const { pools, renderedConfigs } = renderBootstrap(builtinPools(), templates, controllerConfig, { controllerVersion: version });
  return { controllerConfig, templates, renderedConfigs, pools };
}

/** The rendered config a node of `pool` boots from. */
export function renderedConfigFor(boot: MachineConfigBootstrap, pool: string): MachineConfig {
  const name = boot.pools.find((p) => p.metadata?.name === pool)?.spec?.configuration?.name;
  const mc = boot.renderedConfigs.find((m) => m.metadata?.name === name);
  if (!mc) throw new Error(`no rendered config for pool ${pool}`);
  return mc;
}

/**
 * The first-boot Ignition of a node of `pool`: its rendered config, the daemon's first
 * annotations, and whatever else that node alone gets (a master's static pods). The extra files
 * are named by no MachineConfig, so the daemon never touches them.
 */
export function nodeIgnition(boot: MachineConfigBootstrap, pool: string, extraFiles: readonly IgnitionFile[] = []): string {
  const mc = renderedConfigFor(boot, pool);
  const parsed = parseObject(mc.spec.config ?? {});
  if (!parsed.ok) throw new Error(`${mc.metadata?.name}: ${JSON.stringify(parsed.errors)}`);
  const annotations: IgnitionFile = { path: servedNodeFiles.initialNodeAnnotations, overwrite: true, mode: 0o644, contents: { source: encodeDataUrl(JSON.stringify(initialNodeAnnotations(mc.metadata!.name!))) } };
  const config: IgnitionConfig = { ...parsed.config, storage: { ...parsed.config.storage, files: [...(parsed.config.storage?.files ?? []), annotations, ...extraFiles] } };
  return JSON.stringify(config);
}

async function exists(client: ApiClient, ref: ResourceRef, namespace: string | undefined, name: string): Promise<boolean> {
  return (await client.getIfExists(ref, namespace, name)) !== undefined;
}

/** Step 2: the objects the operator and the controller start from. Needs the payload's CRDs served. */
export async function createMachineConfigObjects(client: ApiClient, o: { boot: MachineConfigBootstrap; payload: LoadedPayload; pkiDir: string }): Promise<void> {
  const namespace = o.payload.manifests.find((m) => m.kind === 'Namespace' && m.name === MCO_NAMESPACE);
  if (!namespace) throw new Error(`the release ${o.payload.release.version} has no Namespace ${MCO_NAMESPACE}`);
  await client.createIfMissing(resources.namespaces, structuredClone(namespace.object) as KubernetesObject);
  const root = { certPem: readFileSync(join(o.pkiDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(o.pkiDir, 'ca.key'), 'utf8') };
  await client.createIfMissing(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP.name, namespace: ROOT_CA_CONFIGMAP.namespace }, data: { [ROOT_CA_CONFIGMAP.key]: root.certPem } } as KubernetesObject);
  if (!(await exists(client, resources.secrets, MCO_NAMESPACE, secretNames.signer))) {
    await client.createIfMissing(resources.secrets, signerSecret(await issueSigner(root, Date.now())) as KubernetesObject);
  }
  for (const mc of [...o.boot.templates, ...o.boot.renderedConfigs]) await client.createIfMissing(resources.machineConfigs, structuredClone(mc));
  for (const pool of o.boot.pools) {
    const { status, ...body } = structuredClone(pool);
    const created = (await client.createIfMissing(resources.machineConfigPools, body as KubernetesObject)) as MachineConfigPool | undefined;
    // The pool starts where its nodes boot: its last completed configuration is the rendered one.
    if (created) await client.updateStatus(resources.machineConfigPools, { ...created, status } as MachineConfigPool);
  }
}
