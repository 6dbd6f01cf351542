/**
 * The `scale` subresource: an autoscaling/v1 Scale view of any resource with a scale
 * mapping (Deployments, ReplicaSets, and CRDs through specReplicasPath, statusReplicasPath
 * and labelSelectorPath). GET reads it; PUT and PATCH write `spec.replicas` back to the parent.
 */
import { labelSelectorToString } from '../../api/label-selector.ts';
import { errors } from '../errors.ts';
import { decodeBody, mediaType, readBody } from '../http/body.ts';
import { writeBody } from '../http/respond.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import type { KubeObject, ScaleMapping } from '../registry/resource.ts';
import { writeContext, type RequestScope, type ServerContext } from './context.ts';

function pathOf(jsonPath: string): string[] {
  return jsonPath.replace(/^\./, '').split('.').filter(Boolean);
}

function getAt(obj: KubeObject, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as KubeObject)[p];
  }
  return cur;
}

function setAt(obj: KubeObject, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p];
  }
  cur[path[path.length - 1]!] = value;
}

export function scaleOf(obj: KubeObject, mapping: ScaleMapping, builtin: boolean): KubeObject {
  let selector: unknown;
  if (builtin) selector = obj.spec?.selector ? labelSelectorToString(obj.spec.selector) : undefined;
  else if (mapping.labelSelectorPath) selector = getAt(obj, pathOf(mapping.labelSelectorPath));
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: (getAt(obj, pathOf(mapping.specReplicasPath)) as number | undefined) ?? 0 },
    status: { replicas: (getAt(obj, pathOf(mapping.statusReplicasPath)) as number | undefined) ?? 0, ...(typeof selector === 'string' && selector ? { selector } : {}) },
  };
}

/**
 * The replicas a Scale asks for. Absent means 0: Go clients omit a zero `replicas` (omitempty),
 * so `kubectl scale --current-replicas=N --replicas=0`, which PUTs the Scale, sends none.
 */
export function replicasOf(scale: unknown): number {
  const r = (scale as KubeObject | null)?.spec?.replicas ?? 0;
  if (!Number.isInteger(r) || r < 0) {
    throw errors.invalid('Scale', 'autoscaling', (scale as KubeObject | null)?.metadata?.name ?? '', [
      { type: 'FieldValueInvalid', field: 'spec.replicas', message: `spec.replicas: Invalid value: ${JSON.stringify(r)}: must be greater than or equal to 0` },
    ]);
  }
  return r;
}

export async function handleScale(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, req } = scope;
  const mapping = def.subresources.scale!;
  const builtin = !def.crd;
  if (info.verb === 'get') {
    writeBody(scope.res, 200, scaleOf(await ctx.store.get(def, info.namespace, info.name!), mapping, builtin));
    return;
  }
  if (info.verb !== 'update' && info.verb !== 'patch') throw errors.methodNotAllowed(req.method ?? '', `${def.resource}/scale`);
  const raw = await readBody(req);
  const type = mediaType(req.headers['content-type']);
  const body = decodeBody(raw, info.verb === 'update' ? type || 'application/json' : 'application/json');
  const wctx = writeContext(scope);
  const { object } = await ctx.store.guaranteedUpdate(def, info.namespace, info.name!, wctx, (current) => {
    const scale = scaleOf(current, mapping, builtin);
    let desired: KubeObject;
    if (info.verb === 'update') {
      desired = body as KubeObject;
      if (typeof desired !== 'object' || desired === null || Array.isArray(desired)) throw errors.badRequest('the body must be a Scale object');
      const rv = desired.metadata?.resourceVersion;
      if (rv && rv !== scale.metadata.resourceVersion) throw errors.conflict(def, info.name!);
    } else if (type === 'application/json-patch+json') desired = applyJsonPatch(scale, body) as KubeObject;
    else if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') desired = applyMergePatch(scale, body) as KubeObject;
    else throw errors.unsupportedMediaType(type, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    setAt(current, pathOf(mapping.specReplicasPath), replicasOf(desired));
    const precondition = info.verb === 'update' ? desired.metadata?.resourceVersion : undefined;
    if (!precondition) delete current.metadata.resourceVersion;
    return current;
  });
  writeBody(scope.res, 200, scaleOf(object, mapping, builtin));
}
