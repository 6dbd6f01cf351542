/**
 * The three Lease calls leader election makes, over the raw-JSON ApiClient, with the call shapes
 * of client-node's CoordinationV1Api: that API's module loads every generated model (tens of
 * MiB in each component process), for three requests.
 */
import type { V1Lease } from '@kubernetes/client-node';
import { ApiClient } from './client.ts';
import type { KubeAccess } from './kubeconfig.ts';

/** metav1.MicroTime on the wire: RFC 3339 with six fractional digits (a JavaScript Date has three). */
export class MicroTime extends Date {
  override toISOString(): string {
    return super.toISOString().replace(/Z$/, '000Z');
  }
}

export interface CallOptions {
  signal?: AbortSignal;
}

const leases = (namespace: string): string => `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

export class LeaseClient {
  private readonly client: ApiClient;

  constructor(kubeConfig: KubeAccess) {
    this.client = new ApiClient(kubeConfig, { userAgent: 'leader-election' });
  }

  readNamespacedLease(p: { namespace: string; name: string }, o: CallOptions = {}): Promise<V1Lease> {
    return this.client.request<V1Lease>('GET', `${leases(p.namespace)}/${encodeURIComponent(p.name)}`, { signal: o.signal });
  }

  createNamespacedLease(p: { namespace: string; body: V1Lease }, o: CallOptions = {}): Promise<V1Lease> {
    return this.client.request<V1Lease>('POST', leases(p.namespace), { body: p.body, signal: o.signal });
  }

  replaceNamespacedLease(p: { namespace: string; name: string; body: V1Lease }, o: CallOptions = {}): Promise<V1Lease> {
    return this.client.request<V1Lease>('PUT', `${leases(p.namespace)}/${encodeURIComponent(p.name)}`, { body: p.body, signal: o.signal });
  }
}
