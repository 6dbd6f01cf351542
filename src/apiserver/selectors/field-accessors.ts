/**
 * The fields each resource lets a `fieldSelector` name, and how to read them from a stored
 * object: the same sets kube-apiserver supports (every resource has `metadata.name` and
 * `metadata.namespace`; pods add `spec.nodeName`, `status.phase`, ...). Values are strings,
 * booleans print as `true`/`false`, and a missing field reads as `''`. Custom resources get
 * theirs from the CRD's `selectableFields` JSONPaths.
 */
import { compileJsonPath } from '../tables/jsonpath.ts';
import type { FieldAccessor } from './field-selector.ts';

type Accessors = Readonly<Record<string, FieldAccessor>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: unknown): string => (v === true ? 'true' : 'false');

export const commonFieldAccessors: Accessors = {
  'metadata.name': (o) => str(o?.metadata?.name),
  'metadata.namespace': (o) => str(o?.metadata?.namespace),
};

export const podFieldAccessors: Accessors = {
  'spec.nodeName': (o) => str(o?.spec?.nodeName),
  'spec.restartPolicy': (o) => str(o?.spec?.restartPolicy),
  'spec.schedulerName': (o) => str(o?.spec?.schedulerName),
  'spec.serviceAccountName': (o) => str(o?.spec?.serviceAccountName),
  'spec.hostNetwork': (o) => bool(o?.spec?.hostNetwork),
  'status.phase': (o) => str(o?.status?.phase),
  // kube-apiserver reads the first of `podIPs`, which always starts with `podIP`.
  'status.podIP': (o) => str(o?.status?.podIPs?.[0]?.ip) ?? str(o?.status?.podIP),
  'status.nominatedNodeName': (o) => str(o?.status?.nominatedNodeName),
};

// Accepts both views of an Event: core/v1 (`involvedObject`, `source`) and events.k8s.io/v1
// (`regarding`, `deprecatedSource`), since one storage serves both APIs.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const involved = (o: any): any => o?.involvedObject ?? o?.regarding;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const reportingController = (o: any): string | undefined => str(o?.reportingComponent) ?? str(o?.reportingController);

export const eventFieldAccessors: Accessors = {
  'involvedObject.kind': (o) => str(involved(o)?.kind),
  'involvedObject.namespace': (o) => str(involved(o)?.namespace),
  'involvedObject.name': (o) => str(involved(o)?.name),
  'involvedObject.uid': (o) => str(involved(o)?.uid),
  'involvedObject.apiVersion': (o) => str(involved(o)?.apiVersion),
  'involvedObject.resourceVersion': (o) => str(involved(o)?.resourceVersion),
  'involvedObject.fieldPath': (o) => str(involved(o)?.fieldPath),
  reason: (o) => str(o?.reason),
  reportingComponent: (o) => reportingController(o),
  // `source` is the source component, or the reporting controller for events that have none.
  source: (o) => str((o?.source ?? o?.deprecatedSource)?.component) || reportingController(o),
  type: (o) => str(o?.type),
};

export const nodeFieldAccessors: Accessors = {
  'spec.unschedulable': (o) => bool(o?.spec?.unschedulable),
};

export const secretFieldAccessors: Accessors = {
  type: (o) => str(o?.type),
};

export const certificateSigningRequestFieldAccessors: Accessors = {
  'spec.signerName': (o) => str(o?.spec?.signerName),
};

export const namespaceFieldAccessors: Accessors = {
  'status.phase': (o) => str(o?.status?.phase),
};

/** ReplicaSets (and ReplicationControllers) also select on `status.replicas` in kube-apiserver. */
export const replicaSetFieldAccessors: Accessors = {
  'status.replicas': (o) => (typeof o?.status?.replicas === 'number' ? String(o.status.replicas) : '0'),
};

/**
 * Accessors for a CRD version's `selectableFields`: each JSONPath (`.spec.color`) becomes the
 * field `spec.color`. Strings, integers and booleans are selectable, as Kubernetes allows;
 * anything else (or nothing) reads as missing.
 */
export function selectableFieldAccessors(jsonPaths: ReadonlyArray<string | undefined>): Record<string, FieldAccessor> {
  const out: Record<string, FieldAccessor> = {};
  for (const path of jsonPaths) {
    if (typeof path !== 'string' || path === '') continue;
    let evaluate: (obj: unknown) => unknown[];
    try {
      evaluate = compileJsonPath(path);
    } catch {
      continue; // CRD validation refuses such paths; never fail a list over one.
    }
    out[path.startsWith('.') ? path.slice(1) : path] = (obj) => {
      const value = evaluate(obj)[0];
      if (typeof value === 'string') return value;
      if (typeof value === 'boolean') return value ? 'true' : 'false';
      if (typeof value === 'number' && Number.isInteger(value)) return String(value);
      return undefined;
    };
  }
  return out;
}
