/**
 * Message tables for authentication.k8s.io/v1: TokenRequest, which `kubectl create token`
 * sends as protobuf. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const authenticationV1: MessageTable = {
  TokenRequest: {
    1: 'metadata: ObjectMeta',
    2: 'spec: TokenRequestSpec',
    3: 'status: TokenRequestStatus',
  },
  TokenRequestSpec: {
    1: 'audiences: []string',
    3: 'boundObjectRef: BoundObjectReference',
    4: 'expirationSeconds: int64!',
  },
  BoundObjectReference: {
    1: 'kind: string',
    2: 'apiVersion: string',
    3: 'name: string',
    4: 'uid: string',
  },
  TokenRequestStatus: {
    1: 'token: string!',
    2: 'expirationTimestamp: Time',
  },
};
