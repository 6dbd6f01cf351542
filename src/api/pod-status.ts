/** Reading a pod's status the way Kubernetes' helpers do, for every component that needs it. */

interface PodLike {
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

/** The pod's `Ready` condition is True. */
export function isPodReady(pod: PodLike): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
