/**
 * Shared informers: one list+watch per (resource, namespace, selectors) however many
 * controllers read it, as client-go's SharedInformerFactory does. A controller-manager runs a
 * dozen controllers over the same pods; a watch each would multiply the server's fan-out and
 * the process's memory by a dozen.
 */
import { setMaxListeners } from 'node:events';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApiClient } from './client.ts';
import { createInformer, type Informer } from './informer.ts';
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
}

export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubernetesObject>>();
  private readonly options: InformerFactoryOptions;

  constructor(options: InformerFactoryOptions) {
    this.options = options;
    // Every informer (a garbage collector watches every resource) listens for this one signal.
    setMaxListeners(0, options.signal);
  }

  /** The shared informer for `ref` in `scope`, started on first request. */
  informer<T extends KubernetesObject>(ref: ResourceRef, scope: InformerScope = {}): Informer<T> {
    const path = collectionPath(ref, scope.namespace);
    const id = `${path}?l=${scope.labelSelector ?? ''}&f=${scope.fieldSelector ?? ''}`;
    const existing = this.informers.get(id);
    if (existing) return existing as unknown as Informer<T>;
    const { client, signal } = this.options;
    const informer = createInformer<T>({
      kubeConfig: client.kubeConfig,
      path,
      list: (sel) => client.listAll<T>(ref, scope.namespace, { ...sel, pageSize: this.options.pageSize ?? 1000, signal }),
      labelSelector: scope.labelSelector,
      fieldSelector: scope.fieldSelector,
      signal,
      onError: (err) => this.options.onError?.(ref.resource, err),
      backoff: this.options.backoff,
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
