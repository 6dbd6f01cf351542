/**
 * One renewal of a node's Lease in `kube-node-lease`, as kube's node lease controller writes it:
 * holderIdentity and leaseDurationSeconds from the kubelet, renewTime now, and the Node as owner
 * so that deleting the Node garbage-collects its Lease.
 */
import { formatMicroTime } from '../../api/time.ts';
import { isNotFound, type ApiClient } from '../../runtime/client.ts';

/** What the kubelet wants renewed for its node. */
export interface NodeLease {
  readonly nodeName: string;
  /** The Node's uid, once known: the Lease is written with the Node as its owner. */
  readonly nodeUid?: string;
  readonly durationSeconds: number;
  /** How long after one renewal ends the next starts. */
  readonly renewMs: number;
  /**
   * The kubelet's own kubeconfig, serialised, so that its Lease is renewed as
   * `system:node:<name>` (the Node authorizer lets a node touch only its own Lease); the
   * renewer's own identity when absent.
   */
  readonly credentials?: string;
}

const LEASE = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true } as const;
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * Renews (or creates) the Lease. `ownerWritten` is the Node uid a previous renewal already wrote
 * as owner: the owner reference is sent only when it changes. Resolves with the owner uid the
 * Lease now carries.
 */
export async function renewNodeLease(client: ApiClient, lease: NodeLease, ownerWritten: string | undefined): Promise<string | undefined> {
  const spec = { holderIdentity: lease.nodeName, leaseDurationSeconds: lease.durationSeconds, renewTime: formatMicroTime() };
  const uid = lease.nodeUid;
  const owner = uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: lease.nodeName, uid }] } : undefined;
  try {
    const patch = ownerWritten === uid || !owner ? { spec } : { metadata: owner, spec };
    await client.patch(LEASE, NODE_LEASE_NAMESPACE, lease.nodeName, patch, { type: 'merge' });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create(LEASE, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: lease.nodeName, namespace: NODE_LEASE_NAMESPACE, ...(owner ?? {}) }, spec });
  }
  return uid ?? ownerWritten;
}
