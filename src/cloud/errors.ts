/**
 * The cloud's errors, one catalogue (`cloudReasons`, with the wire types in `cloudclient/`):
 * each has the HTTP status the API answers with and a machine-readable reason, and its message
 * names the field or instance at fault, so the engine, the server and the client agree on them.
 */
import { cloudReasons, type CloudErrorBody, type CloudReason } from '../cloudclient/types.ts';

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
