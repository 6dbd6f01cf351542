/**
 * Content hashes of served OpenAPI documents, for the `?hash=` URLs of the v3 root: SHA-512
 * in upper-case hex, as kube-apiserver computes them. Callers serialise and hash a document
 * once per version of the resource table and reuse the result.
 */
import { createHash } from 'node:crypto';

export function documentHash(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

export interface SerializedDocument {
  readonly body: string;
  readonly hash: string;
}

export function serializeDocument(doc: unknown): SerializedDocument {
  const body = JSON.stringify(doc);
  return { body, hash: documentHash(body) };
}
