/**
 * One catalogue of API errors. Every failure the server answers is an `ApiError` (api/status.ts,
 * shared with the client), which carries the HTTP code, the Kubernetes `reason` and the `Status`
 * details, so clients (kubectl, client-node) see the same bodies kube-apiserver sends.
 */
import type { FieldError } from '../api/field-errors.ts';
import { ApiError, type StatusCause, type StatusDetails } from '../api/status.ts';

export { ApiError, isAlreadyExists, isConflict, isNotFound, type Status, type StatusCause, type StatusDetails, type StatusReason } from '../api/status.ts';

/** `deployments.apps`, or `pods` for the core group: how Kubernetes names a resource in messages. */
export function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

interface ResourceRef {
  resource: string;
  group: string;
}

export const errors = {
  notFound(ref: ResourceRef, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualifiedResource(ref.resource, ref.group)} "${name}" not found`, { name, group: ref.group || undefined, kind: ref.resource });
  },
  alreadyExists(ref: ResourceRef, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${qualifiedResource(ref.resource, ref.group)} "${name}" already exists`, { name, group: ref.group || undefined, kind: ref.resource });
  },
  conflict(ref: ResourceRef, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(ref.resource, ref.group)} "${name}": ${why}`, { name, group: ref.group || undefined, kind: ref.resource });
  },
  /** 422: `Deployment.apps "web" is invalid: spec.replicas: Invalid value: ...`. */
  invalid(kind: string, group: string, name: string, causes: readonly FieldError[]): ApiError {
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    const summary = causes.length === 1 ? causes[0]!.message : `[${causes.map((c) => c.message).join(', ')}]`;
    return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
      name,
      group: group || undefined,
      kind,
      causes: causes.map((c) => ({ reason: c.type, message: c.message.startsWith(`${c.field}: `) ? c.message.slice(c.field.length + 2) : c.message, field: c.field })),
    });
  },
  badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError(401, 'Unauthorized', message);
  },
  forbidden(ref: ResourceRef, name: string, why: string, causes?: StatusCause[]): ApiError {
    return new ApiError(403, 'Forbidden', `${qualifiedResource(ref.resource, ref.group)} "${name}" is forbidden: ${why}`, { name, group: ref.group || undefined, kind: ref.resource, causes });
  },
  tooManyRequests(message: string, details?: StatusDetails): ApiError {
    return new ApiError(429, 'TooManyRequests', message, details);
  },
  /** 410 for a watch or list from a compacted revision. */
  expired(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  },
  gone(message: string): ApiError {
    return new ApiError(410, 'Gone', message);
  },
  methodNotAllowed(method: string, what: string): ApiError {
    return new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource: ${method} ${what}`);
  },
  entityTooLarge(limitBytes: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `the request body is too large: limit is ${limitBytes} bytes`);
  },
  unsupportedMediaType(contentType: string, supported: readonly string[]): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')} (got Content-Type "${contentType}")`);
  },
  notAcceptable(accept: string): ApiError {
    return new ApiError(406, 'NotAcceptable', `the server could not produce a response in any of the requested formats: ${accept}`);
  },
  internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
  },
};
