/**
 * Kubernetes' protobuf envelope: the 4 bytes `k8s\0`, then a `runtime.Unknown` message whose
 * typeMeta (field 1: apiVersion 1, kind 2) names the object, raw (field 2) holds the object's
 * own message, and contentEncoding (3) and contentType (4) describe raw. Only unencoded
 * protobuf raw is accepted, which is all that client-go sends.
 */
import { ProtobufDecodeError } from './errors.ts';
import { WireReader, WireType } from './wire.ts';

export const magic = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

const utf8 = new TextDecoder();

export function readEnvelope(body: Uint8Array): Envelope {
  if (body.length < magic.length || !magic.every((b, i) => body[i] === b)) {
    throw new ProtobufDecodeError('the body does not start with the Kubernetes protobuf prefix "k8s\\x00"');
  }
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentEncoding: '', contentType: '' };
  const r = new WireReader(body, magic.length);
  withPath('runtime.Unknown', () => {
    while (!r.done) {
      const { field, wire } = r.tag();
      if (field >= 1 && field <= 4 && wire !== WireType.lengthDelimited) throw new ProtobufDecodeError(`field ${field} has wire type ${wire}, expected 2`);
      if (field === 1) readTypeMeta(r.lengthDelimited(), env);
      else if (field === 2) env.raw = r.bytes();
      else if (field === 3) env.contentEncoding = utf8.decode(r.bytes());
      else if (field === 4) env.contentType = utf8.decode(r.bytes());
      else r.skip(wire);
    }
  });
  if (env.contentEncoding !== '') throw new ProtobufDecodeError(`runtime.Unknown: contentEncoding ${JSON.stringify(env.contentEncoding)} is not supported`);
  if (env.contentType !== '' && env.contentType !== 'application/vnd.kubernetes.protobuf') {
    throw new ProtobufDecodeError(`runtime.Unknown: contentType ${JSON.stringify(env.contentType)} is not supported`);
  }
  if (env.kind === '') throw new ProtobufDecodeError('runtime.Unknown: typeMeta.kind is missing');
  return env;
}

function readTypeMeta(r: WireReader, env: Envelope): void {
  while (!r.done) {
    const { field, wire } = r.tag();
    if ((field === 1 || field === 2) && wire !== WireType.lengthDelimited) throw new ProtobufDecodeError(`typeMeta field ${field} has wire type ${wire}, expected 2`);
    if (field === 1) env.apiVersion = utf8.decode(r.bytes());
    else if (field === 2) env.kind = utf8.decode(r.bytes());
    else r.skip(wire);
  }
}

function withPath(where: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw new ProtobufDecodeError(`${where}: ${e.message}`);
    throw e;
  }
}
