/**
 * Test support for this folder (src/ may not import test/): the objects the render tests build
 * on — a ControllerConfig, pools, MachineConfigs writing files — and the seed's
 * `99-kubeinit-extra-config-worker`, read from its YAML as kubectl reads it (YAML 1.1, so
 * `mode: 0755` is octal).
 */
import { parse } from 'yaml';
import { decodeDataUrl, type IgnitionConfig } from '../../../api/ignition/index.ts';
import { roleLabel, type ControllerConfig, type MachineConfig, type MachineConfigPool, type MachineConfigSpec } from '../../../api/machineconfiguration/index.ts';

export const controllerVersion = 'v0.1.0-test';

export function controllerConfig(spec: Partial<ControllerConfig['spec']> = {}, annotations: Record<string, string> = {}): ControllerConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller', uid: 'cc-uid', annotations: { 'machineconfiguration.openshift.io/release-image-version': '4.99.0', ...annotations } },
    spec: {
      clusterDNSIP: '127.64.0.10',
      cloudProviderConfig: '',
      kubeAPIServerServingCAData: '',
      rootCAData: '',
      cloudProviderCAData: null,
      additionalTrustBundle: null,
      images: {},
      baseOSContainerImage: 'shipyard.local/rhcos:4.99.0',
      releaseImage: 'shipyard.local/release:4.99.0',
      proxy: null,
      infra: null,
      dns: null,
      ipFamilies: 'IPv4',
      network: null,
      ...spec,
    },
  };
}

/** A pool selecting configs by role, as `master` and `worker` do; a custom pool also takes the worker's. */
export function pool(name: string, opts: { uid?: string; roles?: string[] } = {}): MachineConfigPool {
  const roles = opts.roles ?? [name];
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name, labels: { [`pools.operator.machineconfiguration.openshift.io/${name}`]: '' }, ...(opts.uid ? { uid: opts.uid } : {}) },
    spec: {
      machineConfigSelector: roles.length === 1 ? { matchLabels: { [roleLabel]: roles[0]! } } : { matchExpressions: [{ key: roleLabel, operator: 'In', values: roles }] },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    },
  };
}

export function machineConfig(name: string, role: string, spec: MachineConfigSpec = {}, annotations?: Record<string, string>): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { [roleLabel]: role }, ...(annotations ? { annotations } : {}) },
    spec,
  };
}

/** A spec 3.2 config writing text files. */
export function filesConfig(files: Record<string, string>, version = '3.2.0'): Record<string, unknown> {
  return {
    ignition: { version },
    storage: { files: Object.entries(files).map(([path, text]) => ({ path, contents: { source: `data:,${encodeURIComponent(text)}` } })) },
  };
}

/** The seed's MachineConfig, verbatim (shared/seeds/001: a review of the MachineConfig operator). */
export const seedMachineConfigYaml = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  creationTimestamp: null
  labels:
    machineconfiguration.openshift.io/role: worker
  name: 99-kubeinit-extra-config-worker
spec:
  osImageURL: ''
  config:
    ignition:
      config:
        replace:
          verification: {}
      security:
        tls: {}
      timeouts: {}
      version: 2.2.0
    networkd: {}
    passwd: {}
    storage:
      files:
      - contents:
          source: data:text/plain;charset=utf-8;base64,IyEvdXNyL2Jpbi9iYXNoCnNldCAteAptYWluKCkgewpzdWRvIHJwbS1vc3RyZWUgaW5zdGFsbCBwb2xpY3ljb3JldXRpbHMtcHl0aG9uLXV0aWxzCnN1ZG8gc2VkIC1pICdzL2VuZm9yY2luZy9kaXNhYmxlZC9nJyAvZXRjL3NlbGludXgvY29uZmlnIC9ldGMvc2VsaW51eC9jb25maWcKfQptYWluCg==
          verification: {}
        filesystem: root
        mode: 0755
        path: /usr/local/bin/kubeinit_kubevirt_extra_config_script
`;

export function seedMachineConfig(): MachineConfig {
  const mc = parse(seedMachineConfigYaml, { version: '1.1' }) as MachineConfig;
  // kubectl sends JSON: the null timestamp is dropped by the server's decoding.
  delete mc.metadata!.creationTimestamp;
  return mc;
}

/** The file at `path` in a rendered config: its decoded text and mode. */
export function renderedFile(mc: MachineConfig, path: string): { text: string; mode: number | undefined; overwrite: boolean | undefined } | undefined {
  const config = mc.spec.config as unknown as IgnitionConfig;
  const file = config.storage?.files?.find((f) => f.path === path);
  if (!file) return undefined;
  const decoded = decodeDataUrl(file.contents?.source ?? '');
  if (!decoded.ok) throw new Error(`${path}: ${decoded.message}`);
  return { text: decoded.data.toString('utf8'), mode: file.mode, overwrite: file.overwrite };
}
