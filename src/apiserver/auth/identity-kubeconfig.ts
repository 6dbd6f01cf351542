/**
 * The kubeconfig of an identity that authenticates with a client certificate issued by the
 * cluster CA (`system:kube-controller-manager`, `system:node:<name>`, ...), kept at `path`:
 * written when missing, and written again when its certificate is not the CA's, names another
 * identity (user or groups), or ends within 30 days. Reused otherwise, so a restart changes nothing.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { issueClientCertificate } from './client-certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';

const renewBeforeMs = 30 * 24 * 3600 * 1000;

export interface IdentityKubeconfigOptions {
  readonly path: string;
  readonly server: string;
  /** The data directory's `pki/`, which holds `ca.crt` and `ca.key`. */
  readonly pkiDir: string;
  readonly user: string;
  readonly groups?: readonly string[];
}

/** The subject's values of one attribute, in order (Node prints a subject one `KEY=value` a line). */
function subjectValues(subject: string, key: string): string[] {
  return subject.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1));
}

function stillGood(path: string, caPem: string, server: string, user: string, groups: readonly string[], nowMs: number): boolean {
  try {
    const doc = parse(readFileSync(path, 'utf8')) as { clusters?: { cluster?: { server?: string } }[]; users?: { user?: Record<string, string> }[] };
    if (doc.clusters?.[0]?.cluster?.server !== server) return false;
    const data = doc.users?.[0]?.user?.['client-certificate-data'];
    if (!data) return false;
    const cert = new X509Certificate(Buffer.from(data, 'base64'));
    const ca = new X509Certificate(caPem);
    const sameIdentity = isDeepStrictEqual(subjectValues(cert.subject, 'CN'), [user]) && isDeepStrictEqual(subjectValues(cert.subject, 'O'), [...groups]);
    return cert.checkIssued(ca) && cert.verify(ca.publicKey) && sameIdentity && Date.parse(cert.validTo) - nowMs > renewBeforeMs;
  } catch {
    return false;
  }
}

export async function ensureIdentityKubeconfig(o: IdentityKubeconfigOptions, nowMs = Date.now()): Promise<string> {
  const caCertPem = readFileSync(join(o.pkiDir, 'ca.crt'), 'utf8');
  if (existsSync(o.path) && stillGood(o.path, caCertPem, o.server, o.user, o.groups ?? [], nowMs)) return o.path;
  const clientCertificate = await issueClientCertificate({ certPem: caCertPem, keyPem: readFileSync(join(o.pkiDir, 'ca.key'), 'utf8') }, o.user, o.groups ?? [], nowMs);
  mkdirSync(dirname(o.path), { recursive: true, mode: 0o700 });
  writeKubeconfig(o.path, { server: o.server, caCertPem, clientCertificate, user: o.user });
  return o.path;
}
