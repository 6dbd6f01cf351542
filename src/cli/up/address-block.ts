/**
 * Each datacenter gets an address block of its own when it is created (recorded in
 * `cluster.json`), so two clusters can run side by side on one machine (issue 13). Block k:
 *
 *   127.0.k.1            the load balancer (--api-port) and the cloud API (--cloud-port)
 *   127.(1+k).0.0/16     node InternalIPs
 *   127.(64+k).0.0/16    Service ClusterIPs; the first, 127.(64+k).0.1, is `default/kubernetes`
 *   127.(128+16k).0.0/12 pod IPs, a /24 per node (4,096 nodes)
 *
 * Block 0 is the plan ARCHITECTURE.md describes ("Addresses"). A cluster created before blocks
 * existed has none recorded and keeps what it was created with: block 0's addresses, pods from
 * 127.128.0.0/9. All of it is loopback (127.0.0.0/8), as every address the datacenter uses.
 */

export interface AddressBlock {
  /** Undefined for a cluster created before address blocks. */
  readonly index: number | undefined;
  /** Where the load balancer and the cloud API listen. */
  readonly host: string;
  readonly nodeCIDR: string;
  readonly serviceCIDR: string;
  /** The `kubernetes` Service's ClusterIP: the Service range's first address. */
  readonly kubernetesIP: string;
  readonly podCIDR: string;
  /** Each node's podCIDR prefix length. */
  readonly podHostPrefix: number;
}

/** As many as the pod range holds /12s (127.128.0.0/9). */
export const BLOCK_COUNT = 8;

export function addressBlock(index: number | undefined): AddressBlock {
  const k = index ?? 0;
  if (!Number.isInteger(k) || k < 0 || k >= BLOCK_COUNT) throw new Error(`address block ${String(index)} is not one of 0-${BLOCK_COUNT - 1}`);
  return {
    index,
    host: `127.0.${k}.1`,
    nodeCIDR: `127.${1 + k}.0.0/16`,
    serviceCIDR: `127.${64 + k}.0.0/16`,
    kubernetesIP: `127.${64 + k}.0.1`,
    podCIDR: index === undefined ? '127.128.0.0/9' : `127.${128 + 16 * k}.0.0/12`,
    podHostPrefix: 24,
  };
}

/** The first block whose addresses `free` finds unused; an error naming what holds block 0's otherwise. */
export async function chooseAddressBlock(free: (block: AddressBlock) => Promise<boolean>, whenNoneFree: () => Promise<never>): Promise<AddressBlock> {
  for (let k = 0; k < BLOCK_COUNT; k++) {
    const block = addressBlock(k);
    if (await free(block)) return block;
  }
  return whenNoneFree();
}
