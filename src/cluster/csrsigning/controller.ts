/**
 * kube-controller-manager's csrsigning controller: an approved, not yet issued, not failed
 * CertificateSigningRequest to one of kube's client signers gets its certificate, signed by
 * the cluster CA, in `status.certificate`; one its signer's rules refuse gets a `Failed`
 * condition (reason `SignerValidationFailure`) instead, so that its requester learns why.
 * Requests to other signers are left to whoever serves them.
 */
import type { V1CertificateSigningRequest } from '@kubernetes/client-node';
import { X509Certificate } from 'node:crypto';
import { hasFailed, isApproved, requestPem, type CertificateSigningRequest } from '../../api/certificates.ts';
import { formatTimestamp } from '../../api/time.ts';
import { parseCertificateRequest, signCertificateRequest, type CertificateAndKey, type ParsedCertificateRequest } from '../../api/x509.ts';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { terminal } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { certificateDurationMs, certificateUsages, servedSigners, signerProblem, validityWindow } from './policy.ts';

const NAME = 'csrsigning';

export interface CsrSigningOptions {
  /** The CA that signs (`--cluster-signing-cert-file` and `--cluster-signing-key-file`). */
  readonly ca: CertificateAndKey;
  /** The longest certificate issued (`--cluster-signing-duration`, kube's default one year). */
  readonly maxDurationMs: number;
}

export function createCsrSigningController(ctx: ControllerContext, o: CsrSigningOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const caNotAfter = Date.parse(new X509Certificate(o.ca.certPem).validTo);
  const csrs = ctx.informers.informer<V1CertificateSigningRequest>(resources.certificateSigningRequests);

  const writeStatus = async (csr: CertificateSigningRequest): Promise<void> => {
    try {
      await ctx.client.updateStatus(resources.certificateSigningRequests, csr as never);
    } catch (err) {
      // A newer version is on its way through the watch, and brings the key back.
      if (isConflict(err) || isNotFound(err)) return;
      throw err;
    }
  };

  const reconcile = async (name: string): Promise<void> => {
    const cached = csrs.store.get(name);
    if (!cached || !isApproved(cached) || hasFailed(cached) || cached.status?.certificate) return;
    if (!servedSigners.includes(cached.spec?.signerName ?? '')) return;
    const csr = structuredClone(cached) as unknown as CertificateSigningRequest;
    let request: ParsedCertificateRequest;
    try {
      request = parseCertificateRequest(requestPem(csr));
    } catch (err) {
      throw terminal(new Error(`unable to parse csr ${JSON.stringify(name)}: ${(err as Error).message}`));
    }
    const usages = csr.spec.usages ?? [];
    const problem = signerProblem(csr.spec.signerName, request, usages);
    csr.status ??= {};
    if (problem) {
      logger.info({ csr: name, signer: csr.spec.signerName, problem }, 'request refused by its signer');
      csr.status.conditions = [...(csr.status.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: formatTimestamp(ctx.clock.wallNow()) }];
      return writeStatus(csr);
    }
    const { notBefore, notAfter } = validityWindow(ctx.clock.wallNow(), certificateDurationMs(csr.spec.expirationSeconds, o.maxDurationMs), caNotAfter);
    const certPem = await signCertificateRequest({ request, issuer: o.ca, notBefore, notAfter, ...certificateUsages(usages) });
    csr.status.certificate = Buffer.from(certPem).toString('base64');
    await writeStatus(csr);
    logger.info({ csr: name, signer: csr.spec.signerName, subject: request.subject, notAfter: notAfter.toISOString() }, 'certificate issued');
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    workers: 2,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: (r) => logger.warn({ csr: r.key, err: String(r.error) }, 'signing failed'),
  });
  controller.watch(csrs);
  return controller;
}
