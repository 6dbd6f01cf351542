/**
 * The API server's audit log: one `audit.k8s.io/v1` Event per request the policy selects,
 * recorded when the response is complete (stage ResponseComplete; the other stages are not
 * emitted), as JSON lines. Only metadata is logged: who, what, from where and the status code,
 * never headers, tokens or bodies, so a Secret's data or a TokenRequest's token cannot reach
 * the file.
 */
import { randomUUID } from 'node:crypto';
import { formatMicroTime } from '../../api/time.ts';
import { evaluatePolicy, type AuditPolicy } from './policy.ts';
import { RotatingFile, type RotatingFileOptions } from './rotating-file.ts';

/** What the server knows of one finished request. */
export interface AuditedRequest {
  readonly requestURI: string;
  /** kube's verb: the resource verb, or the HTTP method in lower case for other paths. */
  readonly verb: string;
  /** Unset when the request was not authenticated. */
  readonly user?: { readonly name: string; readonly uid?: string; readonly groups: readonly string[] };
  readonly impersonatedUser?: { readonly name: string; readonly uid?: string; readonly groups: readonly string[] };
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource: string; readonly namespace?: string; readonly name?: string; readonly apiGroup: string; readonly apiVersion: string; readonly subresource?: string };
  readonly code: number;
  readonly receivedAt: number;
  readonly completedAt: number;
}

export interface AuditorOptions extends RotatingFileOptions {
  readonly policy: AuditPolicy;
  /** `-`: standard output, unrotated (kube's `--audit-log-path=-`). */
  readonly path: string;
}

const userOf = (u: NonNullable<AuditedRequest['user']>) => ({ username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: [...u.groups] });

export class Auditor {
  private readonly file: RotatingFile | undefined;

  constructor(private readonly options: AuditorOptions) {
    this.file = options.path === '-' ? undefined : new RotatingFile(options);
  }

  record(r: AuditedRequest): void {
    // kube audits a request that failed authentication as system:anonymous would be matched.
    const user = r.user ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    const o = r.objectRef;
    const { level, omitStages } = evaluatePolicy(this.options.policy, {
      user,
      verb: r.verb,
      resource: o ? { group: o.apiGroup, resource: o.resource, subresource: o.subresource, namespace: o.namespace, name: o.name } : undefined,
      path: o ? undefined : r.requestURI.split('?')[0],
    });
    if (level === 'None' || omitStages.includes('ResponseComplete')) return;
    const event = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: randomUUID(),
      stage: 'ResponseComplete',
      requestURI: r.requestURI,
      verb: r.verb,
      user: r.user ? userOf(r.user) : {},
      ...(r.impersonatedUser ? { impersonatedUser: userOf(r.impersonatedUser) } : {}),
      sourceIPs: [...r.sourceIPs],
      ...(r.userAgent ? { userAgent: r.userAgent } : {}),
      ...(o ? { objectRef: Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) } : {}),
      responseStatus: { metadata: {}, code: r.code },
      requestReceivedTimestamp: formatMicroTime(r.receivedAt),
      stageTimestamp: formatMicroTime(r.completedAt),
    };
    const line = `${JSON.stringify(event)}\n`;
    if (this.file) this.file.append(line);
    else process.stdout.write(line);
  }

  /** Writes what is buffered; the server calls it once the last request is answered. */
  close(): Promise<void> {
    return this.file?.close() ?? Promise.resolve();
  }
}
