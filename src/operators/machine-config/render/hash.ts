/**
 * The name of a rendered config: `rendered-<pool>-<32 hex>`, the hex an MD5 of the merged spec,
 * so equal content always gets the same name and the pool's target changes only when the
 * content does (a re-render after a no-op edit creates nothing and rolls nothing out). The MCO
 * hashes a fixed salt and the spec's YAML with sorted keys; here the spec's canonical JSON
 * (sorted keys, absent-equivalent empties dropped) is hashed, which gives the same guarantees —
 * the key order an object arrived in, or an empty list versus none, never changes a name. The
 * pool's name is not hashed, as in the MCO: two pools of equal content share a suffix.
 */
import { createHash } from 'node:crypto';
import type { MachineConfigSpec } from '../../../api/machineconfiguration/index.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export function renderedConfigName(pool: string, spec: DeepReadonly<MachineConfigSpec>): string {
  // MD5 names content here, it guards no secret (the MCO's choice, kept for its 32-hex names).
  return `rendered-${pool}-${createHash('md5').update(canonicalJson(spec)).digest('hex')}`;
}

