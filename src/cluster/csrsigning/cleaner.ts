/**
 * kube-controller-manager's csrcleaner: CertificateSigningRequests are garbage once they are
 * done with, and nodes joining and renewing make a steady stream of them. A request is deleted
 * 1 h after it was approved and issued, denied or failed (its condition's lastUpdateTime), 24 h
 * after it was created while still pending, and as soon as the certificate it was issued has
 * expired. Kube polls every hour; here each request is requeued for its own deadline.
 */
import type { V1CertificateSigningRequest } from '@kubernetes/client-node';
import { X509Certificate } from 'node:crypto';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';

const NAME = 'csrcleaner';
const hour = 3_600_000;
export const cleanerDeadlines = { approvedMs: hour, deniedMs: hour, failedMs: hour, pendingMs: 24 * hour } as const;

function timeOf(value: unknown): number | undefined {
  const t = Date.parse(String(value ?? ''));
  return Number.isNaN(t) ? undefined : t;
}

/** When the certificate in `status.certificate` ends, or undefined. */
function certificateEnd(csr: DeepReadonly<V1CertificateSigningRequest>): number | undefined {
  if (!csr.status?.certificate) return undefined;
  try {
    return Date.parse(new X509Certificate(Buffer.from(csr.status.certificate, 'base64')).validTo);
  } catch {
    return undefined;
  }
}

/** When the request may be deleted (wall ms), or undefined when nothing makes it garbage yet. */
export function cleanupAt(csr: DeepReadonly<V1CertificateSigningRequest>): number | undefined {
  const conditions = csr.status?.conditions ?? [];
  const deadlines: number[] = [];
  const issued = !!csr.status?.certificate;
  for (const c of conditions) {
    const updated = timeOf(c.lastUpdateTime);
    if (updated === undefined) continue;
    if (c.type === 'Approved' && issued) deadlines.push(updated + cleanerDeadlines.approvedMs);
    if (c.type === 'Denied') deadlines.push(updated + cleanerDeadlines.deniedMs);
    if (c.type === 'Failed') deadlines.push(updated + cleanerDeadlines.failedMs);
  }
  const created = timeOf(csr.metadata?.creationTimestamp);
  if (conditions.length === 0 && created !== undefined) deadlines.push(created + cleanerDeadlines.pendingMs);
  const end = certificateEnd(csr);
  if (end !== undefined && conditions.some((c) => c.type === 'Approved')) deadlines.push(end);
  return deadlines.length ? Math.min(...deadlines) : undefined;
}

export function createCsrCleaner(ctx: ControllerContext): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const csrs = ctx.informers.informer<V1CertificateSigningRequest>(resources.certificateSigningRequests);
  const controller = new Controller({
    name: NAME,
    workers: 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ csr: r.key, err: String(r.error) }, 'cleanup failed'),
    reconcile: async (name) => {
      const csr = csrs.store.get(name);
      if (!csr) return;
      const at = cleanupAt(csr);
      if (at === undefined) return;
      const left = at - ctx.clock.wallNow();
      if (left > 0) return { requeueAfterMs: left };
      logger.info({ csr: name }, 'deleting the CertificateSigningRequest: it is past its cleanup deadline');
      // The uid precondition: a request re-created under the same name is not this one.
      await ctx.client.deleteIfExists(resources.certificateSigningRequests, undefined, name, { preconditions: { uid: csr.metadata?.uid } });
    },
  });
  controller.watch(csrs);
  return controller;
}
