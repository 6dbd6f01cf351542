/**
 * The operator's events in two namespaces (issue 17, item 7): every event about an object of
 * the operator namespace (the operator's Deployment, as upstream records them) is written
 * there and again in the namespace's early name, `openshift-cluster-kube-apiserver-operator`,
 * because the seed's debugging command still reads that one and must tell the same story.
 * Events about anything else (an installer pod, a cluster-scoped object) are written once.
 */
import type { EventSink, EventSubject } from '../../../runtime/context.ts';

export interface MirroredEventsOptions {
  /** Events about objects of this namespace are mirrored. */
  readonly from: string;
  /** Where the copy goes. */
  readonly to: string;
}

export function mirroredEvents(sink: EventSink, o: MirroredEventsOptions): EventSink {
  return {
    event(obj, type, reason, message) {
      sink.event(obj, type, reason, message);
      if (obj.metadata?.namespace !== o.from || o.from === o.to) return;
      // No object of that name lives there: the copy names it without a uid, as a reference by name.
      const copy: EventSubject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name, namespace: o.to } };
      sink.event(copy, type, reason, message);
    },
  };
}
