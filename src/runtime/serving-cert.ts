/**
 * A serving certificate mounted from a Secret, kept current in a running HTTPS server: the files
 * are read again every interval and a changed pair replaces the old one for new connections, so
 * a certificate the operator re-issues (a new node's address) needs no restart. A pair that
 * cannot be read, or whose halves do not match, leaves the one in use and is logged. TLS 1.2 or
 * later, as OpenShift's components serve after a security audit flagged 1.1.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import type { Cancel } from './clock.ts';
import type { Logger } from './logger.ts';

export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export const MIN_TLS_VERSION = 'TLSv1.2';

export function readServingPair(certFile: string, keyFile: string): KeyPair {
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export interface ReloadOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** The pair the server was created with. */
  readonly initial: KeyPair;
  readonly logger: Logger;
  /** Default 30 s. */
  readonly intervalMs?: number;
}

/** Starts looking at the files; the returned function stops it. The timer never holds the process open. */
export function reloadServingCert(server: Server, o: ReloadOptions): Cancel {
  let pair = o.initial;
  const timer = setInterval(() => {
    let next: KeyPair;
    try {
      next = readServingPair(o.certFile, o.keyFile);
    } catch (err) {
      o.logger.warn({ err: (err as Error).message }, 'serving certificate unreadable; keeping the one in use');
      return;
    }
    if (next.cert === pair.cert && next.key === pair.key) return;
    try {
      server.setSecureContext({ ...next, minVersion: MIN_TLS_VERSION });
      pair = next;
      o.logger.info({ certFile: o.certFile }, 'serving certificate reloaded');
    } catch (err) {
      o.logger.warn({ err: (err as Error).message }, 'serving certificate and key do not make a pair; keeping the one in use');
    }
  }, o.intervalMs ?? 30_000);
  timer.unref();
  return () => clearInterval(timer);
}
