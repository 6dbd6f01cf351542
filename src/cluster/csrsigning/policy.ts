/**
 * What kube's csrsigning controller decides for one approved request, as pure functions: which
 * signers it serves, whether the request fits its signer (a request that does not is marked
 * `Failed`, reason `SignerValidationFailure`, with kube's message), the certificate's usages,
 * and its validity: `spec.expirationSeconds` honoured between 10 minutes and the configured
 * maximum (`--cluster-signing-duration`), backdated 5 minutes for clock skew unless that is a
 * large share of a short certificate, never past the CA's own end.
 */
import { kubeletClientRequestProblem, signerNames } from '../../api/certificates.ts';
import type { ExtendedKeyUsage, ParsedCertificateRequest } from '../../api/x509.ts';

/** The signers this controller issues for (kube's kubelet-serving and legacy-unknown are not served). */
export const servedSigners: readonly string[] = [signerNames.kubeAPIServerClientKubelet, signerNames.kubeAPIServerClient];

const minute = 60_000;
const backdateMs = 5 * minute;
const shortMs = 8 * 60 * minute;
const minimumMs = 10 * minute;

/** Kube's validAPIServerClientUsages: client auth required; digital signature and key encipherment allowed. */
export function apiServerClientUsagesProblem(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/** Why the signer refuses the request, or undefined when it signs it. */
export function signerProblem(signerName: string, request: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (signerName === signerNames.kubeAPIServerClientKubelet) return kubeletClientRequestProblem(request, usages);
  if (signerName === signerNames.kubeAPIServerClient) return apiServerClientUsagesProblem(usages);
  return `unrecognized signerName: ${JSON.stringify(signerName)}`;
}

export interface CertificateUsages {
  readonly keyUsages: ('digitalSignature' | 'keyEncipherment')[];
  readonly extendedKeyUsages: ExtendedKeyUsage[];
}

/** The requested usages as certificate extensions. */
export function certificateUsages(usages: readonly string[]): CertificateUsages {
  const keyUsages: CertificateUsages['keyUsages'] = [];
  const extendedKeyUsages: ExtendedKeyUsage[] = [];
  if (usages.includes('digital signature')) keyUsages.push('digitalSignature');
  if (usages.includes('key encipherment')) keyUsages.push('keyEncipherment');
  if (usages.includes('client auth')) extendedKeyUsages.push('clientAuth');
  if (usages.includes('server auth')) extendedKeyUsages.push('serverAuth');
  return { keyUsages, extendedKeyUsages };
}

/** Kube's signer.duration: the requested lifetime, at least 10 minutes, at most the maximum. */
export function certificateDurationMs(expirationSeconds: number | undefined, maximumMs: number): number {
  if (expirationSeconds === undefined || expirationSeconds === null) return maximumMs;
  const requested = expirationSeconds * 1000;
  if (requested > maximumMs) return maximumMs;
  return Math.max(requested, minimumMs);
}

/** notBefore and notAfter for a certificate of `durationMs` issued at `nowMs` by a CA that ends at `caNotAfterMs`. */
export function validityWindow(nowMs: number, durationMs: number, caNotAfterMs: number): { notBefore: Date; notAfter: Date } {
  const notBefore = nowMs - backdateMs;
  // Backdating a short certificate would eat a large part of its life; its end counts from now.
  const notAfter = Math.min(durationMs < shortMs ? nowMs + durationMs : notBefore + durationMs, caNotAfterMs);
  return { notBefore: new Date(notBefore), notAfter: new Date(notAfter) };
}
