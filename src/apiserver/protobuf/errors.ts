/**
 * The one error the protobuf decoder raises. Truncated, garbled or unsupported bodies all
 * end here, and the request handler answers them with `400 Bad Request`; nothing in the
 * decoder throws anything else on bad input.
 */

export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}
