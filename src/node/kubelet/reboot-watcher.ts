/**
 * The kubelet's side of node-local reboot requests (runtime/node-reboot.ts): each look at the
 * node root (`check`, run periodically by the kubelet while it runs) starts a reboot when a
 * request is there and none is under way; `booted` (called as the node boots) removes the
 * request, since that boot satisfied it. Between the two, however often it is looked at or
 * written again, a request causes one reboot: not lost (the file stays until a boot follows
 * it) and not doubled (a look during the reboot finds one under way, and the boot clears it).
 */
import { clearRebootRequest, readRebootRequest } from '../../runtime/node-reboot.ts';

export interface RebootWatcherOptions {
  /** The node's `/`. */
  readonly nodeRoot: string;
  /** Reboots the node; resolves once it is back (or stays down because it was stopped meanwhile). */
  readonly reboot: (reason: string) => Promise<void>;
  /** A reboot that failed; the request stays, so the next look tries again. */
  readonly onError: (err: unknown) => void;
}

export class RebootWatcher {
  private readonly o: RebootWatcherOptions;
  private underWay: Promise<void> | undefined;

  constructor(o: RebootWatcherOptions) {
    this.o = o;
  }

  /** One look: starts a reboot for a pending request unless one is under way. */
  check(): void {
    if (this.underWay) return;
    const request = readRebootRequest(this.o.nodeRoot);
    if (!request) return;
    this.underWay = this.o
      .reboot(request.reason)
      .catch((err: unknown) => this.o.onError(err))
      .finally(() => {
        this.underWay = undefined;
      });
  }

  /** The node is booting: every request written before now is satisfied. */
  booted(): void {
    clearRebootRequest(this.o.nodeRoot);
  }
}
