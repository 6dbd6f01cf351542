/**
 * Maps a path as a container sees it (a volumeMount's mountPath) to where it is on this host.
 *
 * A component reads `/etc/<x>/images.json` the same way whether it runs in a real container,
 * as a process pod, or inline in the kubelet's process: the kubelet gives process pods
 * `SHIPYARD_ROOTFS` (the pod's `rootfs` directory, under which every mountPath is a link to its
 * volume), and inline components the same root through their options. In a real container
 * neither is set and the path is used as it is.
 */
import { isAbsolute, join } from 'node:path';

export const ROOTFS_ENV = 'SHIPYARD_ROOTFS';

export function containerPath(path: string, rootfs: string | undefined = process.env[ROOTFS_ENV]): string {
  if (!isAbsolute(path)) throw new Error(`container path "${path}" must be absolute`);
  return rootfs ? join(rootfs, path) : path;
}
