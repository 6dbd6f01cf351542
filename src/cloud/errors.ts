/**
 * The cloud's errors, one catalogue: each has the HTTP status the API answers with and a
 * machine-readable reason, and its message names the field or instance at fault, so the
 * engine, the server and the client agree on them.
 */

export const cloudReasons = {
  InvalidParameterValue: 400,
  MissingParameter: 400,
  BadRequest: 400,
  Unauthorized: 401,
  InstanceNotFound: 404,
  NotFound: 404,
  MethodNotAllowed: 405,
  IncorrectInstanceState: 409,
  NameInUse: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  InternalError: 500,
} as const;

export type CloudReason = keyof typeof cloudReasons;

export interface CloudErrorBody {
  readonly code: number;
  readonly reason: CloudReason;
  readonly message: string;
  /** The request field at fault, when there is one. */
  readonly field?: string;
}

export class CloudError extends Error {
  readonly code: number;

  constructor(
    readonly reason: CloudReason,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CloudError';
    this.code = cloudReasons[reason];
  }

  toJSON(): CloudErrorBody {
    return this.field ? { code: this.code, reason: this.reason, message: this.message, field: this.field } : { code: this.code, reason: this.reason, message: this.message };
  }
}
