/**
 * The template controller: owns `00-<role>`, `01-<role>-kubelet` and `99-<role>-ssh` for the
 * master and worker roles, rendered (render/templates.ts) from the ControllerConfig
 * `machine-config-controller`, the pull secret it names and the cluster's SSH key, and puts each
 * back when it is edited or deleted. One key, the ControllerConfig's name; an event on any owned
 * MachineConfig maps to it. When every config matches, the ControllerConfig's status says so
 * (`TemplateControllerCompleted` at its generation), which is what the render controller waits
 * for, so a pool is never rendered from half of a new set of templates.
 *
 * The pull secret and the SSH key are read by name (the role may read those two objects and
 * nothing else of their namespaces, so there is no watch on them) and read again every
 * `resyncMs`. The SSH key is the `sshKey` of the install configuration in ConfigMap
 * `kube-system/cluster-config-v1`, where OpenShift's installer records it: the template
 * controller owns `99-<role>-ssh` here, so that is where a key is changed.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { formatTimestamp } from '../../../api/time.ts';
import {
  controllerConfigConditionTypes as ccTypes,
  controllerConfigName,
  type ControllerConfig,
  type ControllerConfigStatus,
  type ControllerConfigStatusCondition,
  type MachineConfig,
} from '../../../api/machineconfiguration/index.ts';
import { errorText, isNotFound, type ApiClient } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { renderTemplates, templateConfigNames, templateRoles } from '../render/templates.ts';
import { applyMachineConfig } from './apply-machine-config.ts';

const NAME = 'template';

/** Where OpenShift's installer records the install configuration, SSH key included. */
export const installConfigMap = { namespace: 'kube-system', name: 'cluster-config-v1', key: 'install-config' } as const;

export interface TemplateControllerOptions {
  readonly controllerVersion: string;
  /** How often the pull secret and SSH key are read again; default 60 s. */
  readonly resyncMs?: number;
}

const ownedNames = new Set(templateRoles.flatMap((r) => templateConfigNames(r)));

export function createTemplateController(ctx: ControllerContext, o: TemplateControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const controllerConfigs = ctx.informers.informer<ControllerConfig>(resources.controllerConfigs);
  const machineConfigs = ctx.informers.informer<MachineConfig>(resources.machineConfigs);
  const resyncMs = o.resyncMs ?? 60_000;

  const reconcile = async (key: string) => {
    const cc = controllerConfigs.store.get(key);
    if (!cc || cc.metadata?.deletionTimestamp) return;
    let configs: MachineConfig[];
    try {
      const [pullSecret, sshAuthorizedKeys] = await Promise.all([readPullSecret(ctx.client, cc), readSshKeys(ctx.client)]);
      configs = renderTemplates({ controllerConfig: cc, controllerVersion: o.controllerVersion, pullSecret, sshAuthorizedKeys });
      for (const required of configs) {
        const name = required.metadata!.name!;
        const { action } = await applyMachineConfig(ctx.client, machineConfigs.store.get(name), required);
        if (action !== 'unchanged') logger.info({ machineConfig: name, action }, action === 'created' ? 'created template MachineConfig' : 'put template MachineConfig back');
      }
    } catch (err) {
      await writeStatus(cc, { failing: `Error syncing templates: ${errorText(err)}` });
      throw err;
    }
    await writeStatus(cc, {});
    return { requeueAfterMs: resyncMs };
  };

  const writeStatus = (cc: DeepReadonly<ControllerConfig>, outcome: { failing?: string }) =>
    updateStatus<ControllerConfigStatus>(ctx.client, statusTargetOf(resources.controllerConfigs, cc), (status, object) => {
      const now = formatTimestamp(ctx.clock.wallNow());
      const generation = object.metadata?.generation ?? 0;
      let conditions = status.conditions ?? [];
      if (outcome.failing !== undefined) {
        conditions = setCondition(conditions, ccTypes.templateControllerFailing, 'True', outcome.failing, now);
        return { ...status, conditions };
      }
      conditions = setCondition(conditions, ccTypes.templateControllerCompleted, 'True', `sync completed towards (${generation}) generation using controller version ${o.controllerVersion}`, now);
      conditions = setCondition(conditions, ccTypes.templateControllerRunning, 'False', '', now);
      conditions = setCondition(conditions, ccTypes.templateControllerFailing, 'False', '', now);
      return { ...status, conditions, observedGeneration: generation };
    });

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ key: r.key, err: errorText(r.error) }, 'template sync failed'),
  });
  controller.watch(controllerConfigs, (cc) => cc.metadata?.name === controllerConfigName);
  controller.watchMapped(machineConfigs, (mc) => (ownedNames.has(mc.metadata?.name ?? '') ? [controllerConfigName] : []));
  return controller;
}

/** Whether the template controller has rendered the ControllerConfig's current generation. */
export function templatesCompleted(cc: DeepReadonly<ControllerConfig>): boolean {
  const completed = cc.status?.conditions?.find((c) => c.type === ccTypes.templateControllerCompleted);
  return completed?.status === 'True' && cc.status?.observedGeneration === cc.metadata?.generation;
}

function setCondition(conditions: ControllerConfigStatusCondition[], type: string, status: 'True' | 'False', message: string, now: string): ControllerConfigStatusCondition[] {
  const i = conditions.findIndex((c) => c.type === type);
  const current = i >= 0 ? conditions[i] : undefined;
  if (current && current.status === status && (current.message ?? '') === message) return conditions;
  const next: ControllerConfigStatusCondition = { type, status, lastTransitionTime: current?.status === status ? current.lastTransitionTime : now, reason: '', message };
  return i >= 0 ? conditions.map((c, j) => (j === i ? next : c)) : [...conditions, next];
}

/** The `.dockerconfigjson` of the Secret the ControllerConfig names; none named, none written. */
async function readPullSecret(client: ApiClient, cc: DeepReadonly<ControllerConfig>): Promise<string | undefined> {
  const ref = cc.spec.pullSecret;
  if (!ref?.name) return undefined;
  const secret = await client.get<V1Secret>(resources.secrets, ref.namespace, ref.name).catch((err: unknown) => {
    throw new Error(`could not read the pull secret ${ref.namespace ?? ''}/${ref.name}: ${errorText(err)}`);
  });
  const data = secret.data?.['.dockerconfigjson'];
  if (data === undefined) throw new Error(`the pull secret ${ref.namespace ?? ''}/${ref.name} has no .dockerconfigjson`);
  return Buffer.from(data, 'base64').toString('utf8');
}

/** The public keys of the install configuration's `sshKey`, one a line; none when it has none. */
async function readSshKeys(client: ApiClient): Promise<string[]> {
  let data: Record<string, string> | undefined;
  try {
    data = (await client.get<V1ConfigMap>(resources.configMaps, installConfigMap.namespace, installConfigMap.name)).data;
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
  return sshKeysOf(data?.[installConfigMap.key]);
}

export function sshKeysOf(installConfig: string | undefined): string[] {
  if (!installConfig) return [];
  let parsed: unknown;
  try {
    parsed = parseYaml(installConfig);
  } catch (err) {
    throw new Error(`${installConfigMap.namespace}/${installConfigMap.name}: ${installConfigMap.key} is not YAML: ${(err as Error).message}`);
  }
  const key = (parsed as { sshKey?: unknown } | null)?.sshKey;
  if (typeof key !== 'string') return [];
  return key.split('\n').map((k) => k.trim()).filter((k) => k !== '');
}
