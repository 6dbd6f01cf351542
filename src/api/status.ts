/**
 * metav1.Status, the body of every failed API request, and `ApiError`, the one error that
 * carries it on both sides of the wire, as apimachinery's StatusError serves kube-apiserver and
 * client-go alike: the API server throws one and answers with its `Status`; the client turns a
 * `Status` it receives back into one. Callers branch on `code` and `reason` (through the
 * predicates below), never on message text. It lives in api/ because both apiserver/ and
 * runtime/ need it and api/ is the layer they share (issue 13, item 9).
 */

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'TooManyRequests'
  | 'Gone'
  | 'Expired'
  | 'MethodNotAllowed'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  readonly code: number;
  /** A `StatusReason` when the server raises it; whatever the server said when a client receives it. */
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** The Status: as the server sends it, or as the client received it. */
  readonly status: Status;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...(details ? { details } : {}) };
  }

  /**
   * A Status received in answer to `request` (e.g. `GET /api/v1/namespaces/a/pods/b`), which
   * the message names; `status.message` keeps the server's own words. The body may be partial,
   * or not a Status at all (a proxy's error page): what is missing stays empty.
   */
  static received(request: string, code: number, body: Partial<Pick<Status, 'reason' | 'message' | 'details'>>): ApiError {
    const err = new ApiError(code, (body.reason ?? '') as StatusReason, body.message ?? '', body.details);
    err.message = `${request}: ${code} ${body.reason ?? ''}: ${body.message ?? ''}`.trim();
    return err;
  }

  toStatus(): Status {
    return structuredClone(this.status);
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409 && err.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists';
/** Refused because the namespace is being deleted (kube's NamespaceTerminatingCause): nothing more can be created in it. */
export const isNamespaceTerminating = (err: unknown): boolean => err instanceof ApiError && err.code === 403 && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
/** Refused for now: an eviction a PodDisruptionBudget blocks, or a server shedding load (429). */
export const isTooManyRequests = (err: unknown): boolean => err instanceof ApiError && err.code === 429;

/** The HTTP code of an API error; undefined for anything else (the request never got an answer). */
export function statusCodeOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.code : undefined;
}

/** An error as a log field: an API error by its code alone (`HTTP 409`), anything else by its message. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `HTTP ${err.code}`;
  return err instanceof Error ? err.message : String(err);
}
