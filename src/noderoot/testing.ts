/**
 * Test helpers for node roots: temporary roots removed when a suite ends, configs built from a
 * few fields, and reads of what a root holds. Not a test file itself.
 */
import { lstat, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDataUrl, type IgnitionConfig, type IgnitionFile, type IgnitionUnit, type IgnitionUser } from '../api/ignition/index.ts';
import type { NodeConfig } from './config.ts';

export class TempRoots {
  private readonly dirs: string[] = [];

  async make(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'shipyard-noderoot-'));
    this.dirs.push(dir);
    return dir;
  }

  /** For `after()`. */
  readonly removeAll = async (): Promise<void> => {
    await Promise.all(this.dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  };
}

export interface ConfigParts extends Omit<NodeConfig, 'name' | 'ignition'> {
  readonly files?: IgnitionFile[];
  readonly units?: IgnitionUnit[];
  readonly users?: IgnitionUser[];
  readonly ignition?: Partial<IgnitionConfig>;
}

/** A config named `name` holding `parts`. */
export function nodeConfig(name: string, parts: ConfigParts = {}): NodeConfig {
  const { files, units, users, ignition, ...rest } = parts;
  const ign: IgnitionConfig = { ignition: { version: '3.4.0' }, ...ignition };
  if (files) ign.storage = { ...ign.storage, files };
  if (units) ign.systemd = { units };
  if (users) ign.passwd = { ...ign.passwd, users };
  return { name, ignition: ign, ...rest };
}

/** A file entry with text contents, as the MCO renders them. */
export function file(path: string, text: string, mode?: number): IgnitionFile {
  return { path, contents: { source: encodeDataUrl(text) }, ...(mode === undefined ? {} : { mode }) };
}

export async function readText(root: string, path: string): Promise<string | undefined> {
  return readFile(join(root, path), 'utf8').catch(() => undefined);
}

export async function modeOf(root: string, path: string): Promise<number> {
  return (await lstat(join(root, path))).mode & 0o7777;
}

export async function linkOf(root: string, path: string): Promise<string | undefined> {
  return readlink(join(root, path)).catch(() => undefined);
}

export async function exists(root: string, path: string): Promise<boolean> {
  return lstat(join(root, path)).then(
    () => true,
    () => false,
  );
}
