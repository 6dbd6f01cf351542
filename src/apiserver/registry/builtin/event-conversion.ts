/**
 * events.k8s.io/v1 and core/v1 Events are two views of one stored object, as in
 * kube-apiserver: `regarding` is `involvedObject`, `note` is `message`, and the
 * `deprecated*` fields are the core fields of the same name.
 */
import type { KubeObject } from '../resource.ts';

const renames: Array<[events: string, core: string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const shared = ['metadata', 'reason', 'type', 'eventTime', 'series', 'action', 'related', 'reportingInstance'];

export function eventsV1ToCoreEvent(obj: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'v1', kind: 'Event' };
  for (const f of shared) if (obj[f] !== undefined) out[f] = obj[f];
  for (const [ev, core] of renames) if (obj[ev] !== undefined) out[core] = obj[ev];
  if (obj.series && typeof obj.series === 'object') out.count = obj.series.count;
  return out;
}

export function coreEventToEventsV1(obj: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
  for (const f of shared) if (obj[f] !== undefined) out[f] = obj[f];
  for (const [ev, core] of renames) if (obj[core] !== undefined) out[ev] = obj[core];
  return out;
}
