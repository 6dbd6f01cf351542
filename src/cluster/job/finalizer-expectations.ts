/**
 * Which pods' tracking finalizers a Job's last pass removed and the cache does not yet show
 * removed (kube's uidTrackingExpectations). Until the cache catches up, those pods are taken as
 * counted already, so a quick second pass neither counts them again nor patches them again.
 */
export class FinalizerExpectations {
  private readonly byJob = new Map<string, Set<string>>();

  expectRemovals(jobKey: string, uids: Iterable<string>): void {
    let set = this.byJob.get(jobKey);
    if (!set) this.byJob.set(jobKey, (set = new Set()));
    for (const uid of uids) set.add(uid);
  }

  removalObserved(jobKey: string, uid: string): void {
    const set = this.byJob.get(jobKey);
    if (!set) return;
    set.delete(uid);
    if (set.size === 0) this.byJob.delete(jobKey);
  }

  expected(jobKey: string): ReadonlySet<string> {
    return new Set(this.byJob.get(jobKey) ?? []);
  }

  forget(jobKey: string): void {
    this.byJob.delete(jobKey);
  }
}
