/**
 * A Unix socket path that fits. Linux keeps a socket's path in 108 bytes, and libuv cuts a
 * longer one short without a word, so a server and its client would meet, if at all, at a
 * truncated name nobody chose. Container paths on a Shipyard node are long (a pod's rootfs lies
 * under `<data-dir>/nodes/<node>/pods/<uid>/`), so a metrics socket in a pod's volume is
 * routinely past the limit. A longer path is
 * reached through `/proc/self/fd/<fd>/<name>`, where `<fd>` is this process's open descriptor
 * of the socket's directory: the same file, by a name that fits (Linux only, as Shipyard is).
 */
import { closeSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** sun_path is 108 bytes, one of them the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

export interface SocketPath {
  /** What to listen on or connect to. */
  readonly path: string;
  /** Releases the directory descriptor, if one was opened; the path no longer works after it. */
  close(): void;
}

export function socketPath(path: string): SocketPath {
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES) return { path, close: () => {} };
  const fd = openSync(dirname(path), 'r');
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${basename(path)}`,
    close: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
