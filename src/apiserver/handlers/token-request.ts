/**
 * `serviceaccounts/token`: TokenRequest (authentication.k8s.io/v1), which issues a signed,
 * expiring token for a ServiceAccount, optionally bound to a pod so that deleting the pod
 * revokes it. This is what `kubectl create token` and the kubelet's projected
 * service-account-token volumes call. Defaults and limits are kube-apiserver's: the API
 * server's own audience when none is asked for, one hour, and never less than ten minutes.
 */
import { randomUUID } from 'node:crypto';
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import { boundTokenClaims, type ObjectIdentity } from '../auth/service-account-claims.ts';
import type { ServiceAccountKeys } from '../auth/service-account-keys.ts';
import { errors } from '../errors.ts';
import { decodeBody, mediaType, readBody } from '../http/body.ts';
import { writeBody } from '../http/respond.ts';
import type { KubeObject } from '../registry/resource.ts';
import { nowTimestamp } from '../registry/store.ts';
import type { RequestScope, ServerContext } from './context.ts';

const GROUP = 'authentication.k8s.io';
const API_VERSION = `${GROUP}/v1`;
export const defaultExpirationSeconds = 3600;
export const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;
/**
 * What the kubelet asks for its projected tokens. Processes read their token once and keep it
 * (this repository's in-cluster config does, as many clients do), so a pod-bound token of this
 * duration for this server's own audiences is issued for a year, with a `warnafter` at the
 * hour, as kube-apiserver does by default (--service-account-extend-token-expiration): the
 * pod binding still revokes it the moment the pod is gone. The response reports the hour.
 */
const kubeletExpirationSeconds = 3607;
const extendedExpirationSeconds = 365 * 24 * 3600;

/** What the server needs to issue tokens: the signing key and its own audiences. */
export interface TokenIssuer {
  readonly keys: Pick<ServiceAccountKeys, 'sign'>;
  /** Given to a request that names no audience. */
  readonly audiences: readonly string[];
  /** Milliseconds since the epoch. */
  now(): number;
}

interface ParsedRequest {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind: string; apiVersion: string; name: string; uid?: string };
}

function parseRequest(body: unknown, saName: string, namespace: string): ParsedRequest {
  const invalid = (errs: FieldError[]) => errors.invalid('TokenRequest', GROUP, saName, errs);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.badRequest('the body must be a TokenRequest object');
  const req = body as KubeObject;
  if (req.kind !== undefined && req.kind !== 'TokenRequest') throw invalid([fieldError.invalid('kind', req.kind, 'must be TokenRequest')]);
  if (req.apiVersion !== undefined && req.apiVersion !== API_VERSION) throw invalid([fieldError.invalid('apiVersion', req.apiVersion, `must be ${API_VERSION}`)]);
  const errs: FieldError[] = [];
  if (req.metadata?.name && req.metadata.name !== saName) errs.push(fieldError.invalid('metadata.name', req.metadata.name, 'must match the service account name if specified'));
  if (req.metadata?.namespace && req.metadata.namespace !== namespace) errs.push(fieldError.invalid('metadata.namespace', req.metadata.namespace, 'must match the service account namespace if specified'));
  const spec: KubeObject = req.spec ?? {};
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw invalid([fieldError.typeInvalid('spec', spec, 'must be an object')]);
  let audiences: string[] = [];
  if (spec.audiences !== undefined && spec.audiences !== null) {
    if (!Array.isArray(spec.audiences) || spec.audiences.some((a: unknown) => typeof a !== 'string' || a === '')) errs.push(fieldError.typeInvalid('spec.audiences', spec.audiences, 'must be a list of non-empty strings'));
    else audiences = spec.audiences;
  }
  let expirationSeconds = defaultExpirationSeconds;
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null) {
    const e = spec.expirationSeconds;
    if (!Number.isInteger(e)) errs.push(fieldError.typeInvalid('spec.expirationSeconds', e, 'must be an integer'));
    else if (e < minExpirationSeconds) errs.push(fieldError.invalid('spec.expirationSeconds', e, 'may not specify a duration less than 10 minutes'));
    else if (e > maxExpirationSeconds) errs.push(fieldError.invalid('spec.expirationSeconds', e, 'may not specify a duration larger than 2^32 seconds'));
    else expirationSeconds = e;
  }
  let boundObjectRef: ParsedRequest['boundObjectRef'];
  const ref = spec.boundObjectRef;
  if (ref !== undefined && ref !== null) {
    if (typeof ref !== 'object' || Array.isArray(ref)) errs.push(fieldError.typeInvalid('spec.boundObjectRef', ref, 'must be an object'));
    else {
      // Kubernetes also binds to Secrets and Nodes; Shipyard's only bound objects are pods.
      if (ref.kind !== 'Pod') errs.push(fieldError.notSupported('spec.boundObjectRef.kind', ref.kind ?? '', ['Pod']));
      if (ref.apiVersion !== undefined && ref.apiVersion !== 'v1') errs.push(fieldError.notSupported('spec.boundObjectRef.apiVersion', ref.apiVersion, ['v1']));
      if (typeof ref.name !== 'string' || !ref.name) errs.push(fieldError.required('spec.boundObjectRef.name'));
      if (ref.uid !== undefined && typeof ref.uid !== 'string') errs.push(fieldError.typeInvalid('spec.boundObjectRef.uid', ref.uid, 'must be a string'));
      boundObjectRef = { kind: 'Pod', apiVersion: 'v1', name: ref.name, ...(ref.uid ? { uid: ref.uid } : {}) };
    }
  }
  if (errs.length) throw invalid(errs);
  return { audiences, expirationSeconds, boundObjectRef };
}

export async function handleTokenRequest(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, req } = scope;
  const issuer = ctx.tokenIssuer;
  if (!issuer) throw errors.internal('this server has no service-account signing key');
  const namespace = info.namespace!;
  const name = info.name!;
  const raw = await readBody(req);
  const body = raw.length ? decodeBody(raw, mediaType(req.headers['content-type']) || 'application/json') : {};
  const parsed = parseRequest(body, name, namespace);
  const sa = await ctx.store.get(def, namespace, name);
  const audiences = parsed.audiences.length ? parsed.audiences : [...issuer.audiences];
  let pod: ObjectIdentity | undefined;
  if (parsed.boundObjectRef) {
    const ref = parsed.boundObjectRef;
    const podDef = ctx.registry.lookup('', 'v1', 'pods')!;
    const found = await ctx.store.get(podDef, namespace, ref.name);
    const podSa = found.spec?.serviceAccountName ?? 'default';
    if (podSa !== name) {
      const cause = fieldError.invalid('spec.boundObjectRef.name', ref.name, `the pod runs as service account "${podSa}", not "${name}"`);
      throw errors.badRequest(`cannot bind token for serviceaccount "${name}": ${cause.message}`, [{ reason: cause.type, field: cause.field, message: cause.message }]);
    }
    if (ref.uid && ref.uid !== found.metadata.uid) {
      throw errors.conflict(podDef, ref.name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    pod = { name: ref.name, uid: found.metadata.uid };
  }
  const issuedAt = Math.floor(issuer.now() / 1000);
  const extend = pod !== undefined && parsed.expirationSeconds === kubeletExpirationSeconds && audiences.every((a) => issuer.audiences.includes(a));
  const claims = boundTokenClaims({
    namespace,
    serviceAccount: { name, uid: sa.metadata.uid },
    pod,
    audiences,
    issuedAtSeconds: issuedAt,
    expirationSeconds: extend ? extendedExpirationSeconds : parsed.expirationSeconds,
    warnAfterSeconds: extend ? parsed.expirationSeconds : undefined,
    jti: randomUUID(),
  });
  writeBody(scope.res, 201, {
    kind: 'TokenRequest',
    apiVersion: API_VERSION,
    metadata: { name, namespace, creationTimestamp: nowTimestamp(new Date(issuedAt * 1000)) },
    spec: { audiences, expirationSeconds: parsed.expirationSeconds, boundObjectRef: parsed.boundObjectRef ?? null },
    status: { token: issuer.keys.sign(claims as unknown as Record<string, unknown>), expirationTimestamp: nowTimestamp(new Date((issuedAt + parsed.expirationSeconds) * 1000)) },
  });
}
