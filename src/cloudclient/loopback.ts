/**
 * The datacenter's one network rule: every address handed out, bound or dialled is in
 * 127.0.0.0/8 (ARCHITECTURE.md, "Addresses"). Anything that dials a URL taken from user input —
 * an Ignition pointer, a file source — checks it here first, so a config can never make a node
 * reach past the machine.
 */

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function isLoopbackIPv4(host: string): boolean {
  const m = ipv4.exec(host);
  if (!m) return false;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) && octets[0] === 127;
}

/** `localhost` or a dotted-quad 127.x address; nothing that needs a DNS lookup to judge. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || isLoopbackIPv4(h);
}

export class NotLoopbackError extends Error {
  constructor(what: string, host: string) {
    super(`refusing ${what}: host ${JSON.stringify(host)} is not a loopback address (127.x or localhost)`);
    this.name = 'NotLoopbackError';
  }
}

export function assertLoopbackHost(host: string, what: string): void {
  if (!isLoopbackHost(host)) throw new NotLoopbackError(what, host);
}

/** Checks an http(s) URL's host; returns the parsed URL. */
export function assertLoopbackUrl(raw: string, what = `to fetch ${raw}`): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`refusing ${what}: not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`refusing ${what}: scheme ${url.protocol.slice(0, -1)} is not http or https`);
  assertLoopbackHost(url.hostname, what);
  return url;
}

/**
 * The address to dial for a loopback host: `localhost` may resolve to the IPv6 loopback first,
 * which is outside the datacenter's address space, so it is dialled as 127.0.0.1.
 */
export function dialAddress(host: string): string {
  return host.toLowerCase().replace(/\.$/, '') === 'localhost' ? '127.0.0.1' : host;
}
