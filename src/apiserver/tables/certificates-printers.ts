/**
 * `kubectl get csr`: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION, as kube's
 * printers show a CertificateSigningRequest (`<none>` for a missing signer or duration; the
 * condition `Pending`, `Approved,Issued`, `Denied`, `Approved,Failed`).
 */
import { csrConditionText } from '../../api/certificates.ts';
import { ageColumn, column, nameColumn, text } from './columns.ts';
import { ageSince, humanDuration } from './human-duration.ts';
import type { TableConvertor } from './types.ts';

export const certificateSigningRequestTableConvertor: TableConvertor = {
  columns: [
    nameColumn,
    ageColumn,
    column('SignerName', 'string', 'The requested signer: who is asked to issue the certificate.'),
    column('Requestor', 'string', 'The user who created the request (set by the API server).'),
    column('RequestedDuration', 'string', 'The certificate lifetime asked for (spec.expirationSeconds).'),
    column('Condition', 'string', 'Pending, Approved or Denied, with Failed and Issued once the signer acted.'),
  ],
  cells: (csr, now) => {
    const seconds = csr.spec?.expirationSeconds;
    return [
      text(csr.metadata?.name),
      ageSince(csr.metadata?.creationTimestamp, now),
      text(csr.spec?.signerName) || '<none>',
      text(csr.spec?.username),
      typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
      csrConditionText(csr as never),
    ];
  },
};
