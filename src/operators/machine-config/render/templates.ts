/**
 * The template controller's MachineConfigs, rendered from the ControllerConfig for the two
 * built-in roles (custom pools build on the worker ones):
 *
 * - `00-<role>`: the cluster's CA bundle (`/etc/kubernetes/ca.crt`) and the pull secret
 *   (`/var/lib/kubelet/config.json`), when the operator has them;
 * - `01-<role>-kubelet`: the kubelet's configuration (`kubelet-conf.ts`) and its systemd unit,
 *   whose flags give the node its role labels and a master its taint (`kubelet-unit.ts`);
 * - `99-<role>-ssh`: user `core`'s authorized keys (written by openshift-install in OpenShift;
 *   here the template controller owns them too, from the key `shipyard up` was given).
 *
 * What they leave alone, on purpose: the kubelet's kubeconfig (`/var/lib/kubelet/kubeconfig`) is a
 * client certificate of that one node's identity, `system:node:<name>`; a pool-wide config would
 * hand every node the same key and let each act as any other, so it stays per node (issued at
 * boot, by the datacenter or the config server's bootstrap flow). The control-plane static pod
 * manifests belong to their operators, as in OpenShift. A file no MachineConfig names is never
 * touched by the daemon, so both keep working beside the managed ones.
 *
 * Each config carries the role label, the controller version annotation and, once the
 * ControllerConfig has a uid, an owner reference to it; the controller writes them back
 * whenever they differ, so a hand edit does not last.
 */
import { newestVersion, type IgnitionConfig, type IgnitionFile } from '../../../api/ignition/index.ts';
import { ControllerConfig, MachineConfig, machineConfigAnnotations, roleLabel } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { textFile } from './ignition-file.ts';
import { kubeletConfFile, kubeletConfiguration } from './kubelet-conf.ts';
import { kubeletUnit } from './kubelet-unit.ts';

export const templateRoles = ['master', 'worker'] as const;
export type TemplateRole = (typeof templateRoles)[number];

export interface TemplateInput {
  readonly controllerConfig: DeepReadonly<ControllerConfig>;
  /** Stamped on every config as `generated-by-controller-version`. */
  readonly controllerVersion: string;
  /** The `.dockerconfigjson` of the Secret `controllerConfig.spec.pullSecret` names. */
  readonly pullSecret?: string;
  /** The public keys user `core` accepts. */
  readonly sshAuthorizedKeys?: readonly string[];
}

/** The names the template controller owns, for every role: what it creates and puts back. */
export function templateConfigNames(role: TemplateRole): string[] {
  return [`00-${role}`, `01-${role}-kubelet`, `99-${role}-ssh`];
}

/** Every template config, both roles, in name order per role. */
export function renderTemplates(input: TemplateInput): MachineConfig[] {
  return templateRoles.flatMap((role) => renderRoleTemplates(role, input));
}

export function renderRoleTemplates(role: TemplateRole, input: TemplateInput): MachineConfig[] {
  const [base, kubelet, ssh] = templateConfigNames(role) as [string, string, string];
  const cc = input.controllerConfig.spec;
  const baseFiles: IgnitionFile[] = [];
  if (cc.rootCAData) baseFiles.push(textFile('/etc/kubernetes/ca.crt', Buffer.from(cc.rootCAData, 'base64').toString('utf8')));
  // The kubelet's image credentials: readable by root only, as OpenShift writes them.
  if (input.pullSecret !== undefined) baseFiles.push(textFile('/var/lib/kubelet/config.json', input.pullSecret, 0o600));
  const keys = input.sshAuthorizedKeys ?? [];
  return [
    machineConfig(base, role, input, baseFiles.length > 0 ? { storage: { files: baseFiles } } : {}),
    machineConfig(kubelet, role, input, { storage: { files: [kubeletConfFile(kubeletConfiguration(input.controllerConfig))] }, systemd: { units: [kubeletUnit(role)] } }),
    machineConfig(ssh, role, input, { passwd: { users: [{ name: 'core', ...(keys.length > 0 ? { sshAuthorizedKeys: [...keys] } : {}) }] } }),
  ];
}

function machineConfig(name: string, role: TemplateRole, input: TemplateInput, content: Omit<IgnitionConfig, 'ignition'>): MachineConfig {
  const metadata: NonNullable<MachineConfig['metadata']> = {
    name,
    labels: { [roleLabel]: role },
    annotations: { [machineConfigAnnotations.generatedByControllerVersion]: input.controllerVersion },
  };
  const owner = input.controllerConfig.metadata;
  if (owner?.uid) metadata.ownerReferences = [{ apiVersion: ControllerConfig.apiVersion, kind: ControllerConfig.kind, name: owner.name ?? '', uid: owner.uid, controller: true }];
  const config: IgnitionConfig = { ignition: { version: newestVersion }, ...content };
  return { apiVersion: MachineConfig.apiVersion, kind: MachineConfig.kind, metadata, spec: { config: config as unknown as Record<string, unknown> } };
}
