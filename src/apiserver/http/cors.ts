/**
 * `corsAllowedOrigins` (kube-apiserver's `--cors-allowed-origins`), as kube's CORS filter does it:
 * a request whose Origin matches one of the patterns (unanchored regular expressions, so
 * `//127\.0\.0\.1(:|$)` matches `http://127.0.0.1:8080`) gets the CORS headers, and a
 * preflight (OPTIONS) from it is answered 204 before authentication; any other request goes on
 * unchanged, and the browser is what refuses the cross-origin read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const allowedMethods = 'POST, GET, OPTIONS, PUT, DELETE, PATCH';
const allowedHeaders = 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since';

/** Returns whether it answered the request (a preflight); undefined patterns or none: never. */
export type CorsFilter = (req: IncomingMessage, res: ServerResponse) => boolean;

export function corsFilter(patterns: readonly string[] | undefined): CorsFilter | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const res = patterns.map((p) => new RegExp(p));
  return (req, out) => {
    const origin = req.headers.origin;
    if (!origin || !res.some((re) => re.test(origin))) return false;
    out.setHeader('Access-Control-Allow-Origin', origin);
    out.setHeader('Access-Control-Allow-Methods', allowedMethods);
    out.setHeader('Access-Control-Allow-Headers', allowedHeaders);
    out.setHeader('Access-Control-Expose-Headers', 'Date');
    out.setHeader('Access-Control-Allow-Credentials', 'true');
    out.setHeader('Vary', 'Origin');
    if (req.method !== 'OPTIONS') return false;
    out.writeHead(204).end();
    return true;
  };
}
