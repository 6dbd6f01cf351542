/**
 * Structured logs for every component: one pino logger per component with `component` bound,
 * children per controller and per reconcile (style guide, "Small habits"), and redaction done
 * here, centrally, so no controller has to remember which fields carry credentials.
 *
 * Two kinds of secret reach a log line. Credentials sit under well-known field names (a
 * bearer token, an Authorization header, a kubeconfig's key data): pino's path redaction
 * handles those. Secret *objects* are the other kind: a controller that logs the object it
 * reconciles may log a Secret, whose `data` and `stringData` values must go while the keys stay
 * (they say what the Secret holds, which is useful). Path redaction cannot tell a Secret's
 * `data` from a ConfigMap's, so Secrets are found by `kind` in the log formatter and copied
 * with their values censored; the caller's object, which may be a read-only cache entry, is
 * never modified.
 */
import { randomBytes } from 'node:crypto';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

export const REDACTED = '[Redacted]';

/** Field names whose value is a credential wherever they appear. */
const SECRET_FIELDS = [
  'token',
  'bearerToken',
  'authorization',
  'Authorization',
  'cookie',
  'set-cookie',
  'password',
  'apiKey',
  'privateKey',
  'keyPem',
  'clientKeyData',
  'client-key-data',
];

/**
 * pino's paths match at a fixed depth, so each name is listed at the top level and two levels
 * down: `{token}`, `{user: {token}}`, `{req: {headers: {authorization}}}`.
 */
export const REDACT_PATHS: readonly string[] = SECRET_FIELDS.flatMap((f) => {
  // Names that are not identifiers (`set-cookie`) need pino's bracket form.
  const [top, nested] = /^[A-Za-z_$][\w$]*$/.test(f) ? [f, `.${f}`] : [`["${f}"]`, `["${f}"]`];
  return [top, `*${nested}`, `*.*${nested}`];
});

/** How deep the Secret scrub looks into a log object: `{obj}`, `{items: [...]}`, `{old, new}`. */
const SECRET_SCAN_DEPTH = 3;

function isSecret(v: Record<string, unknown>): boolean {
  return v.kind === 'Secret' && (v.apiVersion === undefined || v.apiVersion === 'v1');
}

function censorValues(m: unknown): unknown {
  if (m === null || typeof m !== 'object') return m === undefined ? m : REDACTED;
  return Object.fromEntries(Object.keys(m).map((k) => [k, REDACTED]));
}

/** A copy of `value` with every Secret's data values censored, or `value` itself if it holds none. */
export function scrubSecrets(value: unknown, depth = SECRET_SCAN_DEPTH): unknown {
  if (value === null || typeof value !== 'object' || depth < 0) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const s = scrubSecrets(item, depth - 1);
      if (s !== item) (copy ??= [...value])[i] = s;
    });
    return copy ?? value;
  }
  // Errors, Dates, Buffers: leave them to pino's serializers.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && !looksLikeApiObject(value)) return value;
  const obj = value as Record<string, unknown>;
  if (isSecret(obj)) {
    const copy: Record<string, unknown> = { ...obj };
    if ('data' in obj) copy.data = censorValues(obj.data);
    if ('stringData' in obj) copy.stringData = censorValues(obj.stringData);
    return copy;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(obj)) {
    const s = scrubSecrets(v, depth - 1);
    if (s !== v) (copy ??= { ...obj })[k] = s;
  }
  return copy ?? value;
}

/** client-node's typed models are class instances (V1Secret), not plain objects. */
function looksLikeApiObject(v: object): boolean {
  return 'kind' in v || 'metadata' in v || 'items' in v;
}

export interface CreateLoggerOptions {
  component: string;
  /** Defaults to $SHIPYARD_LOG_LEVEL, then `info`. */
  level?: string;
  /** A stream, or a file descriptor (1 = stdout, the default; 2 = stderr). */
  destination?: DestinationStream | number;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const level = opts.level ?? (process.env.SHIPYARD_LOG_LEVEL || 'info');
  const dest = typeof opts.destination === 'object' ? opts.destination : pino.destination({ dest: opts.destination ?? 1, sync: true });
  return pino(
    {
      level,
      // The hostname is the same laptop for every component; pid tells processes apart.
      base: { pid: process.pid, component: opts.component },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      formatters: { log: (o) => scrubSecrets(o) as Record<string, unknown> },
    },
    dest,
  );
}

/** The logger a controller's code gets: every line says which controller wrote it. */
export function forController(logger: Logger, controller: string): Logger {
  return logger.child({ controller });
}

/** A logger about one object, e.g. for code outside a reconcile that acts on a key. */
export function forObject(logger: Logger, key: string): Logger {
  return logger.child({ key });
}

/**
 * A logger for one reconcile of `key`: the reconcile id ties together every line of one pass,
 * since the same key is reconciled many times and its passes interleave with other keys'.
 */
export function forReconcile(logger: Logger, key: string): Logger {
  return logger.child({ key, reconcileID: randomBytes(4).toString('hex') });
}
