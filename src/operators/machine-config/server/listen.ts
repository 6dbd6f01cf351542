/**
 * The machine-config server's HTTPS listener: TLS 1.2 or later (as the MCO's, after a security
 * audit flagged 1.1), on one address and port, with the serving certificate read from the
 * mounted `machine-config-server-tls` Secret. The files are looked at again every
 * `reloadIntervalMs` and a changed pair replaces the old one for new connections, so a
 * certificate re-issued for a new master's address needs no restart. There is no plain-HTTP
 * port (the MCO's 22624): the configs carry credentials.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../runtime/logger.ts';
import { MIN_TLS_VERSION, readServingPair, reloadServingCert, type KeyPair } from '../../../runtime/serving-cert.ts';

export interface ListenOptions {
  readonly bindAddress: string;
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  readonly logger: Logger;
  /** Default 30 s. */
  readonly reloadIntervalMs?: number;
}

export interface RunningListener {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function listenConfigServer(options: ListenOptions): Promise<RunningListener> {
  let pair: KeyPair;
  try {
    pair = readServingPair(options.certFile, options.keyFile);
  } catch (err) {
    throw new Error(`machine-config-server: cannot read the serving certificate (${options.certFile}, ${options.keyFile}; the Secret machine-config-server-tls mounted): ${(err as Error).message}`);
  }
  const server: Server = createServer({ ...pair, minVersion: MIN_TLS_VERSION }, options.handler);
  // A booting machine's Ignition may hold a connection while it waits for a retry; never forever.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const stopReload = reloadServingCert(server, { certFile: options.certFile, keyFile: options.keyFile, initial: pair, logger: options.logger, intervalMs: options.reloadIntervalMs });
  const { address, port } = server.address() as AddressInfo;
  options.logger.info({ address, port }, 'machine-config server listening');
  let closing: Promise<void> | undefined;
  return {
    address,
    port,
    close() {
      return (closing ??= new Promise<void>((resolve) => {
        stopReload();
        server.close(() => resolve());
        server.closeAllConnections();
      }));
    },
  };
}
