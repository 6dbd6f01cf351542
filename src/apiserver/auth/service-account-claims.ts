/**
 * The claims of a bound service-account token, as Kubernetes writes them (`iss`, `sub`, `aud`,
 * `exp`, `iat`, `nbf`, `jti` and the private `kubernetes.io` claim naming the namespace, the
 * ServiceAccount and, for a pod-bound token, the pod), and the identity such a token stands
 * for. Issuing and checking share this one description, so they cannot drift apart.
 */
import type { UserInfo } from './tokens.ts';

/** The issuer, and the audience the API server itself answers to (kube-apiserver's defaults). */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc';

export interface ObjectIdentity {
  readonly name: string;
  readonly uid: string;
}

export interface ServiceAccountClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: readonly string[];
  readonly exp: number;
  readonly iat: number;
  readonly nbf: number;
  readonly jti: string;
  readonly 'kubernetes.io': {
    readonly namespace: string;
    readonly serviceaccount: ObjectIdentity;
    readonly pod?: ObjectIdentity;
    /** Set on a token issued for longer than asked (see TokenRequest): when it ought to have been replaced. */
    readonly warnafter?: number;
  };
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export function serviceAccountUser(namespace: string, sa: ObjectIdentity): UserInfo {
  return { name: serviceAccountUsername(namespace, sa.name), uid: sa.uid, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}

export function boundTokenClaims(o: {
  readonly namespace: string;
  readonly serviceAccount: ObjectIdentity;
  readonly pod?: ObjectIdentity;
  readonly audiences: readonly string[];
  readonly issuedAtSeconds: number;
  readonly expirationSeconds: number;
  readonly jti: string;
  readonly warnAfterSeconds?: number;
}): ServiceAccountClaims {
  return {
    iss: SERVICE_ACCOUNT_ISSUER,
    sub: serviceAccountUsername(o.namespace, o.serviceAccount.name),
    aud: [...o.audiences],
    exp: o.issuedAtSeconds + o.expirationSeconds,
    iat: o.issuedAtSeconds,
    nbf: o.issuedAtSeconds,
    jti: o.jti,
    'kubernetes.io': {
      namespace: o.namespace,
      serviceaccount: { name: o.serviceAccount.name, uid: o.serviceAccount.uid },
      ...(o.pod ? { pod: { name: o.pod.name, uid: o.pod.uid } } : {}),
      ...(o.warnAfterSeconds !== undefined ? { warnafter: o.issuedAtSeconds + o.warnAfterSeconds } : {}),
    },
  };
}

function identity(v: unknown): ObjectIdentity | undefined {
  const o = v as { name?: unknown; uid?: unknown } | null;
  return typeof o === 'object' && o !== null && typeof o.name === 'string' && o.name && typeof o.uid === 'string' && o.uid ? { name: o.name, uid: o.uid } : undefined;
}

/** The claims of a verified payload, if it has the shape of a bound token (else undefined). */
export function parseServiceAccountClaims(payload: Record<string, unknown>): ServiceAccountClaims | undefined {
  const k = payload['kubernetes.io'] as { namespace?: unknown; serviceaccount?: unknown; pod?: unknown } | undefined;
  if (typeof k !== 'object' || k === null || typeof k.namespace !== 'string' || !k.namespace) return undefined;
  const sa = identity(k.serviceaccount);
  const pod = k.pod === undefined ? undefined : identity(k.pod);
  if (!sa || (k.pod !== undefined && !pod)) return undefined;
  const aud = typeof payload.aud === 'string' ? [payload.aud] : payload.aud;
  if (!Array.isArray(aud) || !aud.every((a) => typeof a === 'string')) return undefined;
  const { iss, sub, exp, iat, nbf, jti } = payload;
  if (typeof iss !== 'string' || typeof sub !== 'string' || typeof exp !== 'number') return undefined;
  if (sub !== serviceAccountUsername(k.namespace, sa.name)) return undefined;
  return {
    iss,
    sub,
    aud: aud as string[],
    exp,
    iat: typeof iat === 'number' ? iat : 0,
    nbf: typeof nbf === 'number' ? nbf : 0,
    jti: typeof jti === 'string' ? jti : '',
    'kubernetes.io': { namespace: k.namespace, serviceaccount: sa, ...(pod ? { pod } : {}) },
  };
}
