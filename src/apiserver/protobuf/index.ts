/**
 * Decoding of Kubernetes protobuf request bodies (`Content-Type:
 * application/vnd.kubernetes.protobuf`), which kubectl's typed clients send for `kubectl
 * create <generator>` and for the DeleteOptions of `kubectl drain`. The result is the object
 * the JSON form of the same request would carry, so the rest of the server only sees JSON.
 */
import { decodeMessage, type JsonObject } from './decode-message.ts';
import { readEnvelope } from './envelope.ts';
import { ProtobufDecodeError } from './errors.ts';
import { messageForKind, supportedKinds } from './kinds.ts';
import { WireReader } from './wire.ts';

export { ProtobufDecodeError, supportedKinds };

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/**
 * Decodes a whole protobuf body: the `k8s\0` envelope, then the object by the schema of
 * its kind. Throws `ProtobufDecodeError` for malformed input and unsupported kinds.
 */
export function decodeKubernetesProtobuf(body: Buffer): DecodedObject {
  const env = readEnvelope(body);
  const message = messageForKind(env.apiVersion, env.kind);
  const name = env.apiVersion ? `${env.apiVersion}/${env.kind}` : env.kind;
  if (!message) throw new ProtobufDecodeError(`unsupported protobuf kind ${name}; send JSON`);
  let fields: JsonObject;
  try {
    fields = decodeMessage(new WireReader(env.raw), message);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw new ProtobufDecodeError(`decoding ${name}: ${e.message}`);
    throw e;
  }
  return { apiVersion: env.apiVersion, kind: env.kind, object: { apiVersion: env.apiVersion, kind: env.kind, ...fields } };
}
