/**
 * certificates.k8s.io/v1 CertificateSigningRequest: its shape, the well-known signer names,
 * the key usages the API accepts, and the rules several layers read the same way (the API
 * server's validation, the controller-manager's signer and cleaner, the machine approver, a
 * kubelet waiting for its certificate): whether a request is approved, denied or failed, and
 * whether a request is a kubelet's client certificate request (kube's ValidateKubeletClientCSR).
 */
import type { ParsedCertificateRequest } from './x509.ts';

export const certificatesGroup = 'certificates.k8s.io';

export const signerNames = {
  kubeAPIServerClient: 'kubernetes.io/kube-apiserver-client',
  kubeAPIServerClientKubelet: 'kubernetes.io/kube-apiserver-client-kubelet',
  kubeletServing: 'kubernetes.io/kubelet-serving',
  legacyUnknown: 'kubernetes.io/legacy-unknown',
} as const;

export type KeyUsage =
  | 'signing'
  | 'digital signature'
  | 'content commitment'
  | 'key encipherment'
  | 'key agreement'
  | 'data encipherment'
  | 'cert sign'
  | 'crl sign'
  | 'encipher only'
  | 'decipher only'
  | 'any'
  | 'server auth'
  | 'client auth'
  | 'code signing'
  | 'email protection'
  | 's/mime'
  | 'ipsec end system'
  | 'ipsec tunnel'
  | 'ipsec user'
  | 'timestamping'
  | 'ocsp signing'
  | 'microsoft sgc'
  | 'netscape sgc';

/** Every usage the API accepts, sorted as kube lists them in its NotSupported error. */
export const keyUsages: readonly KeyUsage[] = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

export type CsrConditionType = 'Approved' | 'Denied' | 'Failed';

export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequest {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; generateName?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    /** Base64 of a PEM `CERTIFICATE REQUEST`. */
    request: string;
    signerName: string;
    expirationSeconds?: number;
    usages?: string[];
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status?: {
    conditions?: CsrCondition[];
    /** Base64 of PEM certificates, once issued. */
    certificate?: string;
  };
}

/** What the condition helpers read: any typed or untyped view of a request's status. */
export interface CsrStatusView {
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[]; readonly certificate?: string };
}

function hasTrue(csr: CsrStatusView, type: CsrConditionType): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** Approved and not Denied, as kube's IsCertificateRequestApproved. */
export function isApproved(csr: CsrStatusView): boolean {
  return hasTrue(csr, 'Approved') && !hasTrue(csr, 'Denied');
}

export function isDenied(csr: CsrStatusView): boolean {
  return hasTrue(csr, 'Denied');
}

export function hasFailed(csr: CsrStatusView): boolean {
  return hasTrue(csr, 'Failed');
}

/** Neither approved nor denied yet. */
export function isPending(csr: CsrStatusView): boolean {
  return !(csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');
}

/** The CONDITION column of `kubectl get csr`: `Pending`, `Approved,Issued`, `Denied`, `Approved,Failed`. */
export function csrConditionText(csr: CsrStatusView): string {
  const types = new Set((csr.status?.conditions ?? []).map((c) => c.type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (csr.status?.certificate) text += ',Issued';
  return text;
}

/** The request's PEM, decoded from `spec.request` (base64). */
export function requestPem(csr: { readonly spec?: { readonly request?: string } }): Buffer {
  return Buffer.from(csr.spec?.request ?? '', 'base64');
}

const kubeletClientUsages: readonly (readonly string[])[] = [
  ['client auth', 'digital signature', 'key encipherment'],
  ['client auth', 'digital signature'],
];

/**
 * Why a request is not a kubelet's client certificate request, worded as kube's
 * ValidateKubeletClientCSR, or undefined when it is one: O exactly `system:nodes`, no SANs, CN
 * `system:node:<name>`, and usages exactly {digital signature, client auth} with or without
 * key encipherment.
 */
export function kubeletClientRequestProblem(req: ParsedCertificateRequest, usages: readonly string[]): string | undefined {
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return 'subject organization is not system:nodes';
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  const set = [...new Set(usages)].sort();
  if (!kubeletClientUsages.some((u) => u.length === set.length && u.every((x, i) => x === set[i]))) return `usages did not match [${kubeletClientUsages[0]!.join(' ')}]`;
  return undefined;
}
