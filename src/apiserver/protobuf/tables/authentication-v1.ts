/**
 * Message tables for authentication.k8s.io/v1: TokenRequest (`kubectl create token`),
 * SelfSubjectReview (`kubectl auth whoami`) and TokenReview, which kubectl and client-go send
 * as protobuf. Notation: ../schema.ts.
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
  SelfSubjectReview: {
    1: 'metadata: ObjectMeta',
    2: 'status: SelfSubjectReviewStatus',
  },
  SelfSubjectReviewStatus: {
    1: 'userInfo: UserInfo',
  },
  UserInfo: {
    1: 'username: string',
    2: 'uid: string',
    3: 'groups: []string',
    4: 'extra: unsupported',
  },
  TokenReview: {
    1: 'metadata: ObjectMeta',
    2: 'spec: TokenReviewSpec',
    3: 'status: TokenReviewStatus',
  },
  TokenReviewStatus: {
    1: 'authenticated: bool',
    2: 'user: UserInfo',
    3: 'error: string',
    4: 'audiences: []string',
  },
  TokenReviewSpec: {
    1: 'token: string',
    2: 'audiences: []string',
  },
};
