/**
 * Checks on an object body before it reaches the store: it is an object, its `kind` and
 * `apiVersion` are the ones the URL serves, and its name and namespace agree with the URL.
 */
import { errors } from '../errors.ts';
import { apiVersionOf, type KubeObject, type ResourceDefinition } from '../registry/resource.ts';

export function checkObjectBody(def: ResourceDefinition, body: unknown, url: { namespace?: string; name?: string }, kinds: { kind: string; apiVersion: string } = { kind: def.kind, apiVersion: apiVersionOf(def) }): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest(`the body of the request must be a ${kinds.kind} object, got ${Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body}`);
  }
  const obj = body as KubeObject;
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== kinds.kind) {
    throw errors.badRequest(`kind: Invalid value: ${JSON.stringify(obj.kind)}: the kind in the data (${obj.kind}) does not match the expected kind (${kinds.kind})`, [{ reason: 'FieldValueInvalid', field: 'kind', message: `does not match the expected kind ${kinds.kind}` }]);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== kinds.apiVersion) {
    throw errors.badRequest(`apiVersion: Invalid value: ${JSON.stringify(obj.apiVersion)}: the API version in the data (${obj.apiVersion}) does not match the expected API version (${kinds.apiVersion})`, [
      { reason: 'FieldValueInvalid', field: 'apiVersion', message: `does not match the expected API version ${kinds.apiVersion}` },
    ]);
  }
  if (obj.metadata !== undefined && (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))) {
    throw errors.badRequest(`metadata: Invalid value: ${JSON.stringify(obj.metadata)}: must be an object`, [{ reason: 'FieldValueTypeInvalid', field: 'metadata', message: 'must be an object' }]);
  }
  const meta = (obj.metadata ?? {}) as KubeObject;
  for (const f of ['name', 'namespace', 'generateName', 'resourceVersion', 'uid']) {
    if (meta[f] !== undefined && typeof meta[f] !== 'string') {
      throw errors.badRequest(`metadata.${f}: Invalid value: ${JSON.stringify(meta[f])}: must be a string`, [{ reason: 'FieldValueTypeInvalid', field: `metadata.${f}`, message: 'must be a string' }]);
    }
  }
  if (url.name !== undefined && meta.name !== undefined && meta.name !== url.name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${url.name})`, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: 'does not match the name on the URL' }]);
  }
  if (def.namespaced && meta.namespace && url.namespace && meta.namespace !== url.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request', [{ reason: 'FieldValueInvalid', field: 'metadata.namespace', message: 'does not match the namespace on the URL' }]);
  }
  return obj;
}
