/**
 * The cloud's persistent state, `<dataDir>/cloud/state.json`: every instance and the address
 * allocator's cursor. Written whole, to a temporary file renamed over the old one, so a crash
 * leaves either the previous state or the new one, never half of each. Mode 0600: user data may
 * carry secrets.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstanceView } from '../cloudclient/types.ts';
import type { IpAllocatorState } from './ip-allocator.ts';

export type { InstanceState, StateReason } from '../cloudclient/types.ts';

/** The API's view of an instance plus what only the cloud keeps. */
export interface Instance extends InstanceView {
  /** The Ignition config (or pointer) as given at launch; applied on first boot only. */
  readonly userData?: string;
}

export interface CloudState {
  readonly version: 1;
  instances: Instance[];
  ipAllocator: IpAllocatorState;
}

export function statePath(dataDir: string): string {
  return join(dataDir, 'cloud', 'state.json');
}

export async function loadState(dataDir: string): Promise<CloudState> {
  let text: string;
  try {
    text = await readFile(statePath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, instances: [], ipAllocator: { cursor: 1 } };
    throw err;
  }
  const state = JSON.parse(text) as CloudState;
  if (state.version !== 1 || !Array.isArray(state.instances)) throw new Error(`${statePath(dataDir)}: not a version 1 cloud state`);
  return state;
}

export async function saveState(dataDir: string, state: CloudState): Promise<void> {
  const path = statePath(dataDir);
  await mkdir(join(dataDir, 'cloud'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, path);
}
