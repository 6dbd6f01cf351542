/**
 * The cloud API's bearer token, `<dataDir>/cloud/token` (mode 0600), made on first start and
 * kept across restarts so clients configured once (the Machine API provider's credentials
 * Secret, the CLI) keep working. Compared in constant time; never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export function tokenPath(dataDir: string): string {
  return join(dataDir, 'cloud', 'token');
}

export async function readCloudToken(dataDir: string): Promise<string> {
  return (await readFile(tokenPath(dataDir), 'utf8')).trim();
}

export async function ensureCloudToken(dataDir: string): Promise<string> {
  try {
    const existing = await readCloudToken(dataDir);
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  await mkdir(join(dataDir, 'cloud'), { recursive: true, mode: 0o700 });
  // 'wx': two processes starting at once must not each write a different token.
  try {
    await writeFile(tokenPath(dataDir), `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readCloudToken(dataDir);
    throw err;
  }
  await chmod(tokenPath(dataDir), 0o600);
  return token;
}

/** Hashing first makes the comparison constant-time whatever the lengths. */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
