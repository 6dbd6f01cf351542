/**
 * A running `shipyard up` holds its address block by listening on the block's claim port
 * (127.0.k.1:22620) for as long as it runs. Whether a block's addresses are free can only be
 * seen once its cluster listens on them, seconds into its boot, so two clusters created at the
 * same moment used to both find block 0 free and collide; a bind is atomic across processes and
 * the kernel drops it when the process dies, SIGKILL included, so no claim outlives its cluster.
 * The socket answers nothing: /proc tells who holds it (preflight.ts).
 */
import { createServer, type Server } from 'node:net';
import type { AddressBlock } from './address-block.ts';

/** On each block's host address; beside the machine-config server's 22623 and 22624. */
export const CLAIM_PORT = 22620;

export interface BlockClaim {
  readonly block: AddressBlock;
  release(): void;
}

/** The claim on `block`, or undefined when another process holds it. */
export function claimBlock(block: AddressBlock): Promise<BlockClaim | undefined> {
  return new Promise((resolve, reject) => {
    const server: Server = createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve(undefined);
      else reject(new Error(`cannot claim address block ${block.index ?? 0} on ${block.host}:${CLAIM_PORT}: ${err.message}`));
    });
    server.listen({ host: block.host, port: CLAIM_PORT, exclusive: true }, () => {
      // Held until released or the process ends; it must not keep a stopping process alive.
      server.unref();
      resolve({ block, release: () => void server.close() });
    });
  });
}
