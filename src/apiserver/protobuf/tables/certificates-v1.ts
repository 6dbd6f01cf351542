/**
 * Message tables for certificates.k8s.io/v1: CertificateSigningRequest, which `kubectl
 * certificate approve|deny` sends back as protobuf to the `approval` subresource. Notation:
 * ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const certificatesV1: MessageTable = {
  CertificateSigningRequest: {
    1: 'metadata: ObjectMeta',
    2: 'spec: CertificateSigningRequestSpec',
    3: 'status: CertificateSigningRequestStatus',
  },
  CertificateSigningRequestSpec: {
    1: 'request: bytes',
    2: 'username: string',
    3: 'uid: string',
    4: 'groups: []string',
    5: 'usages: []string',
    6: 'extra: map<ExtraValue>',
    7: 'signerName: string',
    8: 'expirationSeconds: int32',
  },
  CertificateSigningRequestStatus: {
    1: 'conditions: []CertificateSigningRequestCondition',
    2: 'certificate: bytes',
  },
  CertificateSigningRequestCondition: {
    1: 'type: string',
    2: 'reason: string',
    3: 'message: string',
    4: 'lastUpdateTime: Time',
    5: 'lastTransitionTime: Time',
    6: 'status: string',
  },
};
