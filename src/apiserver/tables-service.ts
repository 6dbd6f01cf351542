/**
 * Renders objects as a server-side Table (`Accept: application/json;as=Table;...`): the
 * built-in printers for built-in resources, `additionalPrinterColumns` for custom resources,
 * and Name/Age for anything else.
 */
import type { KubeObject, ResourceDefinition } from './registry/resource.ts';
import { builtinTableConvertor, crdTableConvertor } from './tables/registry.ts';
import { toTable } from './tables/table.ts';
import type { TableConvertor } from './tables/types.ts';
import { withClusterOperatorMessage } from './tables/cluster-operator-message.ts';

const crdConvertors = new WeakMap<readonly object[], TableConvertor>();

function convertorFor(def: ResourceDefinition): TableConvertor {
  if (def.crd) {
    const columns = def.printerColumns ?? [];
    let c = crdConvertors.get(columns);
    if (!c) {
      c = crdTableConvertor(columns);
      if (def.group === 'config.openshift.io' && def.resource === 'clusteroperators') c = withClusterOperatorMessage(c);
      crdConvertors.set(columns, c);
    }
    return c;
  }
  return builtinTableConvertor(def.group, def.resource);
}

export function renderTable(def: ResourceDefinition, objects: KubeObject[], includeObject: string | null, listMeta: Record<string, unknown>, version: string): unknown {
  return toTable(convertorFor(def), objects, { now: Date.now(), includeObject, listMeta, version: version === 'v1beta1' ? 'v1beta1' : 'v1' });
}
