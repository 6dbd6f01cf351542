/**
 * The machine-config server's HTTPS listener: TLS 1.2 or later (as the MCO's, after a security
 * audit flagged 1.1), on one address and port, with the serving certificate read from the
 * mounted `machine-config-server-tls` Secret. The files are looked at again every
 * `reloadIntervalMs` and a changed pair replaces the old one for new connections, so a
 * certificate re-issued for a new master's address needs no restart. There is no plain-HTTP
 * port (the MCO's 22624): the configs carry credentials.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../runtime/logger.ts';

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

interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

function readPair(certFile: string, keyFile: string): KeyPair {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export async function listenConfigServer(options: ListenOptions): Promise<RunningListener> {
  let pair: KeyPair;
  try {
    pair = readPair(options.certFile, options.keyFile);
  } catch (err) {
    throw new Error(`machine-config-server: cannot read the serving certificate (${options.certFile}, ${options.keyFile}; the Secret machine-config-server-tls mounted): ${(err as Error).message}`);
  }
  const server: Server = createServer({ ...pair, minVersion: 'TLSv1.2' }, options.handler);
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
  const reload = setInterval(() => {
    let next: KeyPair;
    try {
      next = readPair(options.certFile, options.keyFile);
    } catch (err) {
      options.logger.warn({ err: (err as Error).message }, 'serving certificate unreadable; keeping the one in use');
      return;
    }
    if (next.cert === pair.cert && next.key === pair.key) return;
    try {
      server.setSecureContext({ ...next, minVersion: 'TLSv1.2' });
      pair = next;
      options.logger.info({ certFile: options.certFile }, 'serving certificate reloaded');
    } catch (err) {
      options.logger.warn({ err: (err as Error).message }, 'serving certificate and key do not make a pair; keeping the one in use');
    }
  }, options.reloadIntervalMs ?? 30_000);
  reload.unref();
  const { address, port } = server.address() as AddressInfo;
  options.logger.info({ address, port }, 'machine-config server listening');
  let closing: Promise<void> | undefined;
  return {
    address,
    port,
    close() {
      return (closing ??= new Promise<void>((resolve) => {
        clearInterval(reload);
        server.close(() => resolve());
        server.closeAllConnections();
      }));
    },
  };
}
