/**
 * The bootstrap token a booting machine must show the server (`Authorization: Bearer <token>`),
 * the credential OpenShift's server lacks: there anyone who can reach port 22623 gets every
 * pool's config, pull secret included, and a token that can ask for a node certificate
 * (openshift/machine-config-operator issue 731). The token lives in the Secret
 * `machine-config-server-bootstrap-token`, mounted into the server's pod and read on every
 * request, so a rotated Secret takes effect as soon as the kubelet rewrites the file.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type BearerCheck = 'ok' | 'missing' | 'wrong';

/** `missing`: no bearer token at all (401); `wrong`: one that is not the bootstrap token (403). */
export function checkBearer(authorization: string | undefined, expected: string): BearerCheck {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!m) return 'missing';
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(m[1]!), digest(expected)) ? 'ok' : 'wrong';
}

/** The token in `path`, or undefined while there is none (the Secret not mounted yet, or empty). */
export function readBootstrapToken(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return text.trim() || undefined;
}
