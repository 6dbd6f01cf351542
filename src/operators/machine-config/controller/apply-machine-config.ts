/**
 * Apply-if-changed for the MachineConfigs the controllers generate (the template configs and
 * `99-<pool>-generated-kubelet`), as library-go's ApplyMachineConfig does for the MCO: the spec
 * is the controller's, whole; the required labels, annotations and owner references are set
 * over the object's (others a user adds stay). Nothing is written when the object already says
 * all that, so a steady controller costs the API nothing; a stale cache costs one 409, retried
 * by the queue.
 */
import { MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import type { ApiClient } from '../../../runtime/client.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';

export interface ApplyResult {
  readonly object: MachineConfig;
  /** created, updated, or unchanged */
  readonly action: 'created' | 'updated' | 'unchanged';
}

/** The object `existing` becomes with `required` applied; undefined when nothing would change. */
export function mergeRequired(existing: DeepReadonly<MachineConfig>, required: MachineConfig): MachineConfig | undefined {
  const merged = structuredClone(existing) as MachineConfig;
  const meta = (merged.metadata ??= {});
  const want = required.metadata ?? {};
  if (want.labels) meta.labels = { ...meta.labels, ...want.labels };
  if (want.annotations) meta.annotations = { ...meta.annotations, ...want.annotations };
  if (want.ownerReferences) meta.ownerReferences = structuredClone(want.ownerReferences);
  merged.spec = structuredClone(required.spec);
  const same =
    canonicalJson(merged.spec) === canonicalJson(existing.spec) &&
    canonicalJson(meta.labels) === canonicalJson(existing.metadata?.labels) &&
    canonicalJson(meta.annotations) === canonicalJson(existing.metadata?.annotations) &&
    canonicalJson(meta.ownerReferences) === canonicalJson(existing.metadata?.ownerReferences);
  return same ? undefined : merged;
}

/** Creates `required`, or updates `existing` (as cached) to it; a 409 is the caller's to retry. */
export async function applyMachineConfig(client: ApiClient, existing: DeepReadonly<MachineConfig> | undefined, required: MachineConfig): Promise<ApplyResult> {
  if (!existing) return { object: await client.create<MachineConfig>(resources.machineConfigs, required), action: 'created' };
  const merged = mergeRequired(existing, required);
  if (!merged) return { object: existing as MachineConfig, action: 'unchanged' };
  merged.apiVersion = MachineConfig.apiVersion;
  merged.kind = MachineConfig.kind;
  return { object: await client.update<MachineConfig>(resources.machineConfigs, merged), action: 'updated' };
}
