/**
 * The key pair that signs service-account tokens: `<pki>/sa.key` (PKCS#8, mode 0600), made
 * once on first start, and `<pki>/sa.pub` (SPKI), which is what verification reads, as
 * kube-apiserver splits `--service-account-signing-key-file` from `--service-account-key-file`.
 * Tokens are compact JWS: ES256 for the P-256 key generated here, RS256 should an RSA key be
 * put in its place.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileOnce } from '../../api/files.ts';

export type JwtAlgorithm = 'ES256' | 'RS256';

export interface ServiceAccountKeys {
  readonly algorithm: JwtAlgorithm;
  /** The `kid` header: a digest of the public key, so a verifier can tell which key signed. */
  readonly keyId: string;
  /** Signs `payload` as a compact JWS. */
  sign(payload: Record<string, unknown>): string;
  /** The payload of a token this key signed, or undefined (bad form, other key, bad signature). */
  verify(token: string): Record<string, unknown> | undefined;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

function decodeJson(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The private key, created if absent. The file is linked into place, which fails if another
 * replica on the same data directory got there first: then its key is the one everybody uses.
 */
function ensurePrivateKey(path: string): KeyObject {
  if (!existsSync(path)) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    createFileOnce(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), 0o600);
  }
  return createPrivateKey(readFileSync(path));
}

function algorithmOf(key: KeyObject): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`service-account key: unsupported key type ${key.asymmetricKeyType} (want EC P-256 or RSA)`);
}

export function ensureServiceAccountKeys(pkiDir: string): ServiceAccountKeys {
  const privateKey = ensurePrivateKey(join(pkiDir, 'sa.key'));
  const pubPath = join(pkiDir, 'sa.pub');
  if (!existsSync(pubPath)) createFileOnce(pubPath, createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }), 0o644);
  const publicKey = createPublicKey(readFileSync(pubPath));
  const algorithm = algorithmOf(privateKey);
  if (algorithmOf(publicKey) !== algorithm) throw new Error(`${pubPath} is not the public half of sa.key`);
  const keyId = b64url(createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest());
  // ECDSA signatures in a JWS are r‖s (RFC 7518 §3.4), not the DER that OpenSSL produces by default.
  const dsaEncoding = algorithm === 'ES256' ? ('ieee-p1363' as const) : undefined;
  return {
    algorithm,
    keyId,
    sign(payload) {
      const input = `${b64url(JSON.stringify({ alg: algorithm, kid: keyId }))}.${b64url(JSON.stringify(payload))}`;
      return `${input}.${b64url(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding }))}`;
    },
    verify(token) {
      const parts = token.split('.');
      if (parts.length !== 3) return undefined;
      const [h, p, s] = parts as [string, string, string];
      const header = decodeJson(h);
      // The algorithm is ours to choose, never the token's: that is how "alg: none" and
      // key-confusion forgeries get through.
      if (!header || header.alg !== algorithm || (header.kid !== undefined && header.kid !== keyId)) return undefined;
      const signature = Buffer.from(s, 'base64url');
      if (!verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding }, signature)) return undefined;
      return decodeJson(p);
    },
  };
}
