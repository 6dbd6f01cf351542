/**
 * SSH authorized keys in a node root, where Ignition and the MCO both put them on RHCOS: the
 * fragment `~/.ssh/authorized_keys.d/ignition`, one key a line, 0600 in 0700 directories. The
 * MCO manages only user `core`'s (`/home/core/...`); first boot writes any user's.
 */
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { prepare, writeFileAtomic } from './fs.ts';
import { resolveInRoot } from './paths.ts';

export const coreUser = 'core';
export const coreHome = `/home/${coreUser}`;
export const coreAuthorizedKeysPath = authorizedKeysPath(coreHome);

export function authorizedKeysPath(home: string): string {
  return `${home}/.ssh/authorized_keys.d/ignition`;
}

export function authorizedKeysContents(keys: readonly string[]): string {
  return keys.map((k) => `${k}\n`).join('');
}

export async function writeAuthorizedKeys(root: string, home: string, keys: readonly string[]): Promise<void> {
  const sshDir = await resolveInRoot(root, `${home}/.ssh`);
  await mkdir(join(sshDir, 'authorized_keys.d'), { recursive: true, mode: 0o700 });
  await chmod(sshDir, 0o700);
  await chmod(join(sshDir, 'authorized_keys.d'), 0o700);
  await writeFileAtomic(await prepare(root, authorizedKeysPath(home)), authorizedKeysContents(keys), 0o600);
}
