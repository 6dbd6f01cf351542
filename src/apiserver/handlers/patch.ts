/**
 * PATCH: JSON patch, merge patch, strategic merge patch (built-ins only) and server-side
 * apply, each computed against the stored object inside a guaranteed update, so a
 * concurrent writer causes a retry rather than a lost update.
 */
import { errors } from '../errors.ts';
import { mediaType } from '../http/body.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import { applyServerSide } from '../patch/server-side-apply.ts';
import { applyStrategicMergePatch } from '../patch/strategic-merge.ts';
import { apiVersionOf, type KubeObject, type ResourceDefinition } from '../registry/resource.ts';

export const patchTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'] as const;
export type PatchType = (typeof patchTypes)[number];

export function patchTypeOf(def: ResourceDefinition, contentType: string | undefined): PatchType {
  const type = mediaType(contentType);
  if (type === 'application/apply-patch+json') return 'application/apply-patch+yaml';
  if (!(patchTypes as readonly string[]).includes(type)) throw errors.unsupportedMediaType(type, def.strategicMerge ? patchTypes : patchTypes.filter((t) => !t.includes('strategic')));
  if (type === 'application/strategic-merge-patch+json' && !def.strategicMerge) {
    throw errors.unsupportedMediaType(type, patchTypes.filter((t) => !t.includes('strategic')));
  }
  return type as PatchType;
}

/** Whether the patch itself sets `metadata.resourceVersion` (a precondition), as opposed to inheriting it. */
export function patchSetsResourceVersion(type: PatchType, patch: unknown): boolean {
  if (type === 'application/json-patch+json') return Array.isArray(patch) && patch.some((op) => op && typeof op === 'object' && (op as KubeObject).path === '/metadata/resourceVersion');
  const meta = (patch as KubeObject | null)?.metadata;
  return !!meta && typeof meta === 'object' && typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '';
}

export interface PatchInput {
  readonly def: ResourceDefinition;
  readonly type: PatchType;
  readonly patch: unknown;
  readonly manager: string;
  readonly force: boolean;
  readonly subresource?: 'status' | 'approval';
}

function requireObject(patch: unknown, type: PatchType): KubeObject {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw errors.badRequest(`the body of a ${type} patch must be a JSON object, got ${Array.isArray(patch) ? 'an array' : patch === null ? 'null' : typeof patch}`);
  }
  return patch as KubeObject;
}

/** Computes the patched object from `current` (a private copy), or from nothing for an apply that creates. */
export function computePatched(input: PatchInput, current: KubeObject | undefined): KubeObject {
  const { def, type, patch } = input;
  let result: unknown;
  switch (type) {
    case 'application/json-patch+json':
      result = applyJsonPatch(current, patch);
      break;
    case 'application/merge-patch+json':
      result = applyMergePatch(current, requireObject(patch, type));
      break;
    case 'application/strategic-merge-patch+json':
      if (!def.schema) throw errors.internal(`no schema for ${def.resource}`);
      result = applyStrategicMergePatch(current ?? {}, requireObject(patch, type), def.schema.root, def.schema.resolve);
      break;
    case 'application/apply-patch+yaml': {
      const applied = requireObject(patch, type);
      if (applied.apiVersion !== apiVersionOf(def) || applied.kind !== def.kind) {
        const field = applied.kind !== def.kind ? 'kind' : 'apiVersion';
        throw errors.badRequest(`${field}: Invalid value: ${JSON.stringify(applied[field] ?? '')}: an apply patch must set apiVersion ${JSON.stringify(apiVersionOf(def))} and kind ${JSON.stringify(def.kind)}`, [{ reason: 'FieldValueInvalid', field, message: 'must match the resource' }]);
      }
      const out = applyServerSide({
        live: current,
        applied,
        manager: input.manager,
        force: input.force,
        apiVersion: apiVersionOf(def),
        schema: def.schema?.root,
        resolve: def.schema?.resolve,
        now: new Date(),
        subresource: input.subresource,
        // What the store discards is not owned: status on main-resource writes, the rest on status writes.
        resetFields: def.subresources.status ? (input.subresource ? [['spec']] : [['status']]) : undefined,
      });
      result = { ...out.object, metadata: { ...out.object.metadata, managedFields: out.managedFields } };
      break;
    }
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw errors.badRequest('the patch did not produce an object');
  const obj = result as KubeObject;
  if (current) {
    if (obj.apiVersion !== current.apiVersion && obj.apiVersion !== undefined) throw errors.badRequest(`apiVersion: Invalid value: ${JSON.stringify(obj.apiVersion)}: a patch may not change apiVersion`);
    if (obj.kind !== current.kind && obj.kind !== undefined) throw errors.badRequest(`kind: Invalid value: ${JSON.stringify(obj.kind)}: a patch may not change kind`);
    if (typeof obj.metadata !== 'object' || obj.metadata === null) throw errors.badRequest('metadata: Required value: a patch may not remove metadata');
    if (obj.metadata.name !== current.metadata.name) throw errors.badRequest(`metadata.name: Invalid value: ${JSON.stringify(obj.metadata.name)}: a patch may not change the name`);
  }
  return obj;
}
