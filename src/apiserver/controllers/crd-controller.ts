/**
 * Serves what CustomResourceDefinitions define: on every CRD change the served versions
 * are (re)registered and the CRD's status gets `NamesAccepted` and `Established`, with its
 * accepted names and stored versions. A deleted CRD first has its custom resources
 * deleted (finalizer `customresourcecleanup.apiextensions.k8s.io`), then stops being served.
 */
import { isDeepStrictEqual } from 'node:util';
import { noRefs } from '../../api/schema.ts';
import { isNotFound } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition, Strategy } from '../registry/resource.ts';
import { withKindValidator } from '../registry/kind-validators.ts';
import { nowTimestamp, type ObjectStore } from '../registry/store.ts';
import { selectableFieldAccessors } from '../selectors/field-selector.ts';
import type { StoreEventSource } from './event-source.ts';
import { KeyedQueue } from './queue.ts';

export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';
const manager = 'apiextensions-controller';

const customResourceStrategy: Strategy = { tracksGeneration: true, allowUnconditionalUpdate: false };

/** The resource definitions a CRD serves, one per version (unserved versions included, marked). */
export function definitionsOf(crd: KubeObject): ResourceDefinition[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const storage = (spec.versions ?? []).find((v: KubeObject) => v.storage)?.name ?? spec.versions?.[0]?.name;
  return (spec.versions ?? []).map((v: KubeObject): ResourceDefinition => {
    const scale = v.subresources?.scale;
    return {
      group: spec.group,
      version: v.name,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      singular: names.singular ?? String(names.kind).toLowerCase(),
      namespaced: spec.scope !== 'Cluster',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      storagePrefix: `${spec.group}/${names.plural}`,
      storageVersion: `${spec.group}/${storage}`,
      subresources: {
        status: v.subresources?.status !== undefined,
        scale: scale ? { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, labelSelectorPath: scale.labelSelectorPath } : undefined,
      },
      strategy: withKindValidator(customResourceStrategy, spec.group, names.kind),
      fieldAccessors: selectableFieldAccessors((v.selectableFields ?? []).map((f: KubeObject) => f.jsonPath)),
      schema: v.schema?.openAPIV3Schema ? { root: v.schema.openAPIV3Schema, resolve: noRefs } : undefined,
      strategicMerge: false,
      served: v.served !== false,
      crd: { name: crd.metadata.name, uid: crd.metadata.uid },
      printerColumns: v.additionalPrinterColumns,
      structural: true,
    };
  });
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, old: KubeObject[] | undefined): KubeObject {
  const prev = (old ?? []).find((c) => c.type === type);
  return { type, status, reason, message, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : nowTimestamp() };
}

export class CrdController {
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
  ) {
    this.queue = new KeyedQueue((name) => this.sync(name), { onError, concurrency: 2, baseDelayMs: 50 });
  }

  private get crdDef(): ResourceDefinition {
    return this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  }

  /** Registers every stored CRD before the server takes requests, then follows changes. */
  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('apiextensions.k8s.io/customresourcedefinitions', (ev) => this.queue.add(ev.object.metadata.name));
    for (const crd of (await this.store.list(this.crdDef, undefined)).items) await this.sync(crd.metadata.name);
  }

  stop(): void {
    this.queue.stop();
  }

  private conflictingNames(crd: KubeObject): string | undefined {
    const group = crd.spec?.group;
    const names = crd.spec?.names ?? {};
    for (const d of this.registry.all()) {
      if (d.group !== group || d.crd?.name === crd.metadata.name) continue;
      if (d.resource === names.plural) return `"${names.plural}" is already in use`;
      if (d.kind === names.kind) return `"${names.kind}" is already in use`;
      if (names.shortNames?.some((s: string) => d.shortNames.includes(s))) return `one of the short names ${JSON.stringify(names.shortNames)} is already in use`;
    }
    return undefined;
  }

  private async sync(name: string): Promise<void> {
    let crd: KubeObject;
    try {
      crd = await this.store.get(this.crdDef, undefined, name);
    } catch (e) {
      if (isNotFound(e)) {
        this.registry.replaceCrd(name, []);
        return;
      }
      throw e;
    }
    if (crd.metadata.deletionTimestamp) return this.cleanUp(crd);
    const conflict = this.conflictingNames(crd);
    if (!conflict) this.registry.replaceCrd(name, definitionsOf(crd));
    const old = crd.status?.conditions as KubeObject[] | undefined;
    const conditions = conflict
      ? [condition('NamesAccepted', 'False', 'MultipleNamesNotAllowed', conflict, old), condition('Established', 'False', 'NotAccepted', 'not all names are accepted', old)]
      : [condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', old), condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted', old)];
    const storage = (crd.spec.versions ?? []).find((v: KubeObject) => v.storage)?.name;
    const storedVersions = [...new Set([...(crd.status?.storedVersions ?? []), ...(storage ? [storage] : [])])];
    const status = { conditions, acceptedNames: conflict ? crd.status?.acceptedNames ?? { plural: '', kind: '' } : { ...crd.spec.names }, storedVersions };
    if (!isDeepStrictEqual(status, crd.status)) {
      await this.store.update(this.crdDef, undefined, name, { ...crd, status }, { manager, subresource: 'status' });
    }
  }

  private async cleanUp(crd: KubeObject): Promise<void> {
    const defs = definitionsOf(crd);
    const def = defs.find((d) => `${d.group}/${d.version}` === d.storageVersion) ?? defs[0];
    if (def) {
      const items = (await this.store.list(def, undefined)).items;
      for (const obj of items) {
        if (obj.metadata.deletionTimestamp) continue;
        await this.store.delete(def, obj.metadata.namespace, obj.metadata.name, { propagationPolicy: 'Background' }, { manager }).catch((e) => {
          if (!isNotFound(e)) throw e;
        });
      }
      if (items.length > 0) {
        this.queue.addAfter(crd.metadata.name, 200);
        return;
      }
    }
    this.registry.replaceCrd(crd.metadata.name, []);
    await this.store.removeFinalizer(this.crdDef, undefined, crd.metadata.name, crdCleanupFinalizer, manager);
  }
}
