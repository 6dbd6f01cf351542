/**
 * The system namespaces. `default`, `kube-system` and `kube-public` may not be deleted (kube's
 * NamespaceLifecycle admission plugin refuses it with a 403), and all four, `kube-node-lease`
 * included, are created at start and created again whenever one is found missing, as kube's
 * system namespaces controller does: the namespace controller (namespace-controller.ts) runs
 * `ensureSystemNamespaces` when one is deleted and every minute.
 */
import { errors, isAlreadyExists } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';

export const systemNamespaces: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The namespaces kube-apiserver refuses to delete (kube-node-lease is not among them). */
export const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** Throws kube's 403 when `name` is a namespace that may not be deleted. */
export function admitNamespaceDelete(def: Pick<ResourceDefinition, 'group' | 'resource'>, name: string): void {
  if (def.group === '' && def.resource === 'namespaces' && immortalNamespaces.has(name)) {
    throw errors.forbidden(def, name, 'this namespace may not be deleted');
  }
}

/** Creates whichever system namespaces are missing; returns their names. */
export async function ensureSystemNamespaces(store: ObjectStore, registry: ResourceRegistry): Promise<string[]> {
  const def = registry.lookup('', 'v1', 'namespaces')!;
  const created: string[] = [];
  for (const name of systemNamespaces) {
    if (await store.getRaw(def, undefined, name)) continue;
    try {
      await store.create(def, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { manager: 'kube-apiserver' });
      created.push(name);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  return created;
}
