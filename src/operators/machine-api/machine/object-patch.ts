/**
 * The part of what a provider reports that lives outside a Machine's status: `spec.providerID`
 * and the labels and annotations it sets (instance type, region, zone, instance state), as one
 * JSON merge patch of only what differs, so a steady Machine costs no write. Labels and
 * annotations are merged into the Machine's own, never replacing them.
 */
import type { Machine } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { MachineUpdate } from '../providers/provider.ts';

export interface MachinePatch {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { providerID: string };
}

function changed(current: Readonly<Record<string, string>> | undefined, wanted: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(wanted ?? {})) if (current?.[k] !== v) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** The merge patch that records `update` on the Machine, or undefined when it already does. */
export function machinePatch(machine: DeepReadonly<Machine>, update: Pick<MachineUpdate, 'providerID' | 'labels' | 'annotations'>): MachinePatch | undefined {
  const labels = changed(machine.metadata?.labels, update.labels);
  const annotations = changed(machine.metadata?.annotations, update.annotations);
  const providerID = update.providerID && update.providerID !== machine.spec?.providerID ? update.providerID : undefined;
  if (!labels && !annotations && !providerID) return undefined;
  const patch: MachinePatch = {};
  if (labels || annotations) patch.metadata = { ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
  if (providerID) patch.spec = { providerID };
  return patch;
}
