/**
 * The admission plugins kube-apiserver runs on CertificateSigningRequests, which ask the
 * authorizer about the synthetic `signers` resource (certificates.k8s.io, resourceName the
 * signerName, or `<domain>/*` for every signer of a domain):
 * - CertificateApproval: an `/approval` write needs `approve` on the request's signer;
 * - CertificateSigning: a `/status` write that changes the certificate or the conditions needs
 *   `sign` on it;
 * - CertificateSubjectRestriction: nobody may ask `kubernetes.io/kube-apiserver-client` for a
 *   certificate in `system:masters` (it would be cluster-admin for as long as it lives).
 * Each checks the stored object's signerName, as kube does, so the request cannot change it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../auth/tokens.ts';
import { certificatesGroup, requestPem, signerNames, type CertificateSigningRequest } from '../../api/certificates.ts';
import { parseCertificateRequest } from '../../api/x509.ts';
import { errors } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { Authorizer } from './authorizer.ts';

/** Kube's IsAuthorizedForSignerName: the signer by name, then the domain wildcard. */
export function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): boolean {
  const ask = (name: string) => authorizer.authorize({ kind: 'resource', user, verb, namespace: '', apiGroup: certificatesGroup, apiVersion: '*', resource: 'signers', subresource: '', name }).allowed;
  return ask(signerName) || ask(`${signerName.split('/')[0]}/*`);
}

export function isCsrResource(def: ResourceDefinition): boolean {
  return def.group === certificatesGroup && def.resource === 'certificatesigningrequests';
}

/** The checks above for one write; throws a Forbidden naming the request. */
export function admitCertificateSigningRequest(authorizer: Authorizer, def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, user: UserInfo, subresource: string | undefined): void {
  const name = obj.metadata?.name ?? '';
  if (!old) {
    const csr = obj as CertificateSigningRequest;
    if (csr.spec?.signerName !== signerNames.kubeAPIServerClient) return;
    let organizations: readonly string[] = [];
    try {
      organizations = parseCertificateRequest(requestPem(csr)).organizations;
    } catch {
      return; // validation already refused it
    }
    if (organizations.includes('system:masters')) throw errors.forbidden(def, name, `use of ${signerNames.kubeAPIServerClient} signer with system:masters group is not allowed`);
    return;
  }
  const signerName = String(old.spec?.signerName ?? '');
  if (subresource === 'approval') {
    if (!authorizedForSigner(authorizer, user, 'approve', signerName)) throw errors.forbidden(def, name, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
    return;
  }
  if (subresource === 'status') {
    const same = (old.status?.certificate ?? '') === (obj.status?.certificate ?? '') && isDeepStrictEqual(old.status?.conditions ?? [], obj.status?.conditions ?? []);
    if (same) return;
    if (!authorizedForSigner(authorizer, user, 'sign', signerName)) throw errors.forbidden(def, name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
  }
}
