/**
 * X.509 client-certificate authentication, as kube-apiserver's `--client-ca-file`: a client
 * certificate issued by the cluster CA authenticates its subject's CN as the user name and its
 * O values as groups. The TLS layer verifies the chain (the server asks for a certificate and
 * trusts only the CA); this module maps a verified certificate to a user, once per connection.
 * Issuing such certificates for the control plane and the kubelets lives here too, next to the
 * CA they are signed with.
 */
import type { TLSSocket } from 'node:tls';
import { issueCertificate } from '../../api/x509.ts';
import type { UserInfo } from './tokens.ts';

const oneYear = 365 * 24 * 3600 * 1000;

const bySocket = new WeakMap<TLSSocket, UserInfo | null>();

/** The user a verified client certificate on this connection names, or undefined. */
export function certificateUser(socket: TLSSocket): UserInfo | undefined {
  const cached = bySocket.get(socket);
  if (cached !== undefined) return cached ?? undefined;
  let user: UserInfo | null = null;
  if (socket.authorized) {
    const cert = socket.getPeerCertificate();
    const subject = cert?.subject as Record<string, string | string[]> | undefined;
    const cn = subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    if (name) {
      const o = subject?.O;
      const groups = Array.isArray(o) ? [...o] : o ? [o] : [];
      // Kube's AuthenticatedGroupAdder: O values as they are, then system:authenticated unless
      // they already place the user (or it is system:anonymous).
      if (name !== 'system:anonymous' && !groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
      user = { name, uid: '', groups };
    }
  }
  bySocket.set(socket, user);
  return user ?? undefined;
}

export interface ClientCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}



function escapeRdn(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, '\\$1');
}

/** Issues a client certificate for `user` (CN) in `groups` (O), signed by the cluster CA. */
export async function issueClientCertificate(ca: { certPem: string; keyPem: string }, user: string, groups: readonly string[] = [], nowMs = Date.now()): Promise<ClientCertificate> {
  const subject = [...groups.map((g) => `O=${escapeRdn(g)}`), `CN=${escapeRdn(user)}`].join(', ');
  return issueCertificate({ subject, issuer: ca, extendedKeyUsages: ['clientAuth'], notBefore: new Date(nowMs - 3600_000), notAfter: new Date(nowMs + oneYear) });
}
