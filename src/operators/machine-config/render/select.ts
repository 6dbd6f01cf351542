/**
 * Which MachineConfigs a pool is made of: those whose labels its `spec.machineConfigSelector`
 * matches. The MCO's two guards are kept: a missing selector selects nothing (a pool being
 * created half-way must not swallow every config), and `{}` selects nothing either but says so
 * with a `SelectingAll` warning, since it is always a mistake — it would put the masters' static
 * configuration on workers and the reverse.
 */
import { compileLabelSelector, formatLabelSelector, isEmptySelector } from '../../../api/label-selector.ts';
import type { MachineConfig, MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export interface PoolWarning {
  readonly reason: string;
  readonly message: string;
}

export type Selection =
  | { readonly ok: true; readonly configs: readonly DeepReadonly<MachineConfig>[]; readonly warning?: PoolWarning }
  | { readonly ok: false; readonly error: string };

export const selectingAllWarning: PoolWarning = {
  reason: 'SelectingAll',
  message: 'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.',
};

export function selectMachineConfigs(pool: DeepReadonly<MachineConfigPool>, configs: readonly DeepReadonly<MachineConfig>[]): Selection {
  const selector = pool.spec?.machineConfigSelector;
  if (isEmptySelector(selector)) return { ok: true, configs: [], warning: selectingAllWarning };
  const compiled = compileLabelSelector(selector, 'spec.machineConfigSelector');
  if (compiled.error !== undefined) return { ok: false, error: `invalid machineConfigSelector: ${compiled.error}` };
  return { ok: true, configs: configs.filter((mc) => compiled.matches(mc.metadata?.labels)) };
}

/** The selector as the MCO's "no MachineConfigs found matching selector …" names it. */
export function describeSelector(pool: DeepReadonly<MachineConfigPool>): string {
  return formatLabelSelector(pool.spec?.machineConfigSelector);
}
