/**
 * Shared informers: one list+watch per (resource, namespace, selectors) however many
 * controllers read it, as client-go's SharedInformerFactory does. A controller-manager runs a
 * dozen controllers over the same pods; a watch each would multiply the server's fan-out and
 * the process's memory by a dozen.
 */
import { setMaxListeners } from 'node:events';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApiClient } from './client.ts';
import { createInformer, stripManagedFields, type Informer } from './informer.ts';
import { StringInterner } from './intern.ts';
import { collectionPath, type ResourceRef } from './resources.ts';

export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface InformerFactoryOptions {
  client: ApiClient;
  signal: AbortSignal;
  onError?: (resource: string, err: unknown) => void;
  backoff?: { initialMs?: number; maxMs?: number };
  /** Page size of the initial list and of relists. */
  pageSize?: number;
  /** Applied to every object before it is cached; by default managedFields are dropped and strings shared. */
  transform?: <T extends KubernetesObject>(obj: T) => T;
}

/** What a metadata informer holds: kind and apiVersion are `PartialObjectMetadata` and `meta.k8s.io/v1`. */
export interface PartialObjectMetadata extends KubernetesObject {
  metadata: NonNullable<KubernetesObject['metadata']>;
}

const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

function informerId(ref: ResourceRef, scope: InformerScope, metadataOnly: boolean): string {
  return `${metadataOnly ? 'metadata:' : ''}${collectionPath(ref, scope.namespace)}?l=${scope.labelSelector ?? ''}&f=${scope.fieldSelector ?? ''}`;
}

export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubernetesObject>>();
  private readonly options: InformerFactoryOptions;
  /** One table for every informer: a node name or an image is shared across kinds too. */
  private readonly strings = new StringInterner();
  private readonly transform: <T extends KubernetesObject>(obj: T) => T;

  constructor(options: InformerFactoryOptions) {
    this.options = options;
    this.transform = options.transform ?? (<T extends KubernetesObject>(obj: T): T => this.strings.internAll(stripManagedFields(obj)));
    // Every informer (a garbage collector watches every resource) listens for this one signal.
    setMaxListeners(0, options.signal);
  }

  /** The shared informer for `ref` in `scope`, started on first request. */
  informer<T extends KubernetesObject>(ref: ResourceRef, scope: InformerScope = {}): Informer<T> {
    return this.get<T>(ref, scope, false);
  }

  /**
   * A shared informer that holds only each object's metadata (PartialObjectMetadata), as
   * client-go's metadata informers do: for a controller that reads nothing else, such as the
   * garbage collector, it spares the server's encoding and this process's memory the rest.
   */
  metadataInformer(ref: ResourceRef, scope: InformerScope = {}): Informer<PartialObjectMetadata> {
    return this.get<PartialObjectMetadata>(ref, scope, true);
  }

  /** The full-object informer for `ref` in `scope` if one was started, without starting one. */
  existing<T extends KubernetesObject>(ref: ResourceRef, scope: InformerScope = {}): Informer<T> | undefined {
    return this.informers.get(informerId(ref, scope, false)) as Informer<T> | undefined;
  }

  private get<T extends KubernetesObject>(ref: ResourceRef, scope: InformerScope, metadataOnly: boolean): Informer<T> {
    const id = informerId(ref, scope, metadataOnly);
    const existing = this.informers.get(id);
    if (existing) return existing as unknown as Informer<T>;
    const { client, signal } = this.options;
    const informer = createInformer<T>({
      kubeConfig: client.kubeConfig,
      path: collectionPath(ref, scope.namespace),
      list: (sel) =>
        client.listAll<T>(ref, scope.namespace, { ...sel, pageSize: this.options.pageSize ?? 1000, signal, accept: metadataOnly ? METADATA_LIST : undefined }),
      labelSelector: scope.labelSelector,
      fieldSelector: scope.fieldSelector,
      signal,
      onError: (err) => this.options.onError?.(ref.resource, err),
      backoff: this.options.backoff,
      transform: this.transform,
      watchAccept: metadataOnly ? METADATA_WATCH : undefined,
    });
    this.informers.set(id, informer as unknown as Informer<KubernetesObject>);
    return informer;
  }

  /** Resolves once every informer created so far has synced. */
  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  /** Resolves once every informer has stopped (after the signal aborts). */
  async done(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.done));
  }
}
