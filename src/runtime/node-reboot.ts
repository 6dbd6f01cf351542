/**
 * A node-local reboot request: how a pod that has its node's root as a hostPath volume (the
 * machine-config daemon) reboots its node from inside the cluster, as `systemctl reboot` does
 * on a real host. `shipyard node reboot` reaches the kubelet through the datacenter's control
 * socket, which no pod can reach; this file under the node root, which the pod can, is the
 * request instead (issue 15, item 3).
 *
 * The pod writes `run/shipyard/reboot-requested` holding the reason. The node's kubelet looks
 * for it periodically (so it is level-triggered: a request written while nobody looked is seen
 * at the next look), reboots the node, and removes it when the node boots again, as a real
 * host's `/run` is empty after every boot: that boot satisfies every request written before
 * it, including one written while the node was going down, and a request written after it asks
 * for another reboot. The writer and the kubelet share this module so they agree on the path
 * and the format.
 */
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../api/files.ts';

/** The request's place, relative to the node root. */
export const REBOOT_REQUEST_FILE = 'run/shipyard/reboot-requested';

/** Longer reasons are cut: the reason ends up in an Event's message and in log lines. */
const MAX_REASON = 1024;

export interface RebootRequest {
  readonly reason: string;
  /** When it was written (the file's mtime). */
  readonly requestedAt: Date;
}

export function rebootRequestPath(nodeRoot: string): string {
  return join(nodeRoot, REBOOT_REQUEST_FILE);
}

const cleanReason = (reason: string): string => reason.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON) || 'reboot requested';

/**
 * Asks the node's kubelet to reboot the node. Written to a temporary file and renamed, so the
 * kubelet never reads half a request; writing again before the reboot changes only the reason.
 */
export function requestNodeReboot(nodeRoot: string, reason: string): void {
  const path = rebootRequestPath(nodeRoot);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, cleanReason(reason) + '\n');
}

/** The pending request, or undefined when there is none. */
export function readRebootRequest(nodeRoot: string): RebootRequest | undefined {
  const path = rebootRequestPath(nodeRoot);
  // Asked every second by every kubelet of a node host (thousands in the nodes benchmark):
  // the usual answer, "none", must not cost an exception.
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  try {
    return { reason: cleanReason(readFileSync(path, 'utf8')), requestedAt: stat.mtime };
  } catch (err) {
    // Cleared by a boot between the two reads.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Removes the request, at boot: that boot has satisfied it. */
export function clearRebootRequest(nodeRoot: string): void {
  rmSync(rebootRequestPath(nodeRoot), { force: true });
}
