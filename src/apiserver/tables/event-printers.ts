/**
 * Printers for Events, in both APIs. kube-apiserver serves core/v1 and events.k8s.io/v1
 * Events from one storage with one printer, so both get the same columns: LAST SEEN, TYPE,
 * REASON, OBJECT (`pod/web-1`), MESSAGE, and with `-o wide` SUBOBJECT, SOURCE, FIRST SEEN,
 * COUNT and NAME. An events.k8s.io/v1 object is read through its core/v1 field names.
 */
import { column, int, text, wide } from './columns.ts';
import { ageSince, parseTimestamp, zeroTime } from './human-duration.ts';
import type { PrintedObject, TableConvertor } from './types.ts';

/** The core/v1 view of an event, whichever API it was written through. */
export function coreEventView(obj: PrintedObject): PrintedObject {
  const isEventsV1 = obj.apiVersion === 'events.k8s.io/v1' || (obj.involvedObject === undefined && (obj.regarding !== undefined || obj.note !== undefined));
  if (!isEventsV1) return obj;
  return {
    ...obj,
    involvedObject: obj.regarding ?? {},
    message: obj.note,
    source: obj.deprecatedSource ?? {},
    firstTimestamp: obj.deprecatedFirstTimestamp,
    lastTimestamp: obj.deprecatedLastTimestamp,
    count: obj.deprecatedCount,
    reportingComponent: obj.reportingController,
  };
}

/** The age of a set timestamp; undefined when it is unset, so the caller can fall back. */
function timestampAge(value: unknown, now: number): string | undefined {
  const t = parseTimestamp(value);
  return t === undefined || t === zeroTime ? undefined : ageSince(value, now);
}

/** `component, host`, falling back to the reporting controller and instance. */
function eventSource(event: PrintedObject): string {
  const component = text(event.source?.component) || text(event.reportingComponent);
  const instance = text(event.source?.host) || text(event.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

function eventCells(obj: PrintedObject, now: number): unknown[] {
  const event = coreEventView(obj);
  const firstSeen = timestampAge(event.firstTimestamp, now) ?? ageSince(event.eventTime, now);
  let lastSeen = timestampAge(event.lastTimestamp, now) ?? firstSeen;
  let count = int(event.count);
  if (event.series && typeof event.series === 'object') {
    lastSeen = ageSince(event.series.lastObservedTime, now);
    // The series does not count the singleton event that preceded it.
    count = int(event.series.count) + 1;
  } else if (count === 0) {
    count = 1;
  }
  const involved = event.involvedObject ?? {};
  const kind = text(involved.kind).toLowerCase();
  const target = text(involved.name) ? `${kind}/${involved.name}` : kind;
  return [lastSeen, text(event.type), text(event.reason), target, text(involved.fieldPath), eventSource(event), text(event.message).trim(), firstSeen, count, text(event.metadata?.name)];
}

const eventColumns = [
  column('Last Seen', 'string', 'How long ago the event was last observed.'),
  column('Type', 'string', 'Normal or Warning.'),
  column('Reason', 'string', 'A short, machine-readable reason for the event.'),
  column('Object', 'string', 'The object the event is about, as kind/name.'),
  wide('Subobject', 'string', 'The part of the object the event is about (a container, for instance).'),
  wide('Source', 'string', 'The component, and host, that reported the event.'),
  column('Message', 'string', 'What happened, for people.'),
  wide('First Seen', 'string', 'How long ago the event was first observed.'),
  wide('Count', 'string', 'How many times the event has been observed.'),
  column('Name', 'string', 'The name of the Event object.', { priority: 1, format: 'name' }),
];

export const eventTableConvertor: TableConvertor = { columns: eventColumns, cells: eventCells };

/** events.k8s.io/v1: the same table, read through the core/v1 field names. */
export const eventsV1TableConvertor: TableConvertor = { columns: eventColumns, cells: eventCells };
