/**
 * CertificateSigningRequest strategies pinned to kube's (pkg/registry/certificates and
 * pkg/apis/certificates/validation): who asked comes from the request, the request must be a
 * signed PKCS#10 PEM, signer names and usages are checked, and status and approval writes may
 * each touch only their own part, never removing an Approved, Denied or Failed condition.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCertificateRequest, issueCertificate } from '../../../api/x509.ts';
import type { KubeObject } from '../resource.ts';
import { certificateSigningRequestStrategy as strategy, validateSignerName } from './certificates-strategy.ts';

const messages = (errs: readonly { message: string }[]) => errs.map((e) => e.message);

describe('CertificateSigningRequest strategy', () => {
  let request = '';
  let certificate = '';
  before(async () => {
    request = Buffer.from((await createCertificateRequest('O=system:nodes, CN=system:node:a')).csrPem).toString('base64');
    const now = Date.now();
    certificate = Buffer.from((await issueCertificate({ subject: 'CN=x', notBefore: new Date(now), notAfter: new Date(now + 3600_000) })).certPem).toString('base64');
  });
  const valid = (over: KubeObject = {}): KubeObject => ({ metadata: { name: 'c' }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], ...over }, status: {} });

  it('records the requester from the request, whatever the body claims, and starts with an empty status', () => {
    const obj = valid({ username: 'admin', uid: 'x', groups: ['system:masters'], extra: { a: ['b'] } });
    obj.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    strategy.prepareForCreate!(obj, { name: 'bob', uid: 'u-1', groups: ['g1', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=1'] } });
    assert.deepEqual(obj.spec.username, 'bob');
    assert.deepEqual(obj.spec.uid, 'u-1');
    assert.deepEqual(obj.spec.groups, ['g1', 'system:authenticated']);
    assert.deepEqual(obj.spec.extra, { 'authentication.kubernetes.io/credential-id': ['JTI=1'] });
    assert.deepEqual(obj.status, {});
    assert.deepEqual(strategy.validate!(obj), []);
  });

  it('refuses what kube refuses on create, naming each field', () => {
    const bad = valid({ request: Buffer.from('hello').toString('base64'), usages: ['client auth', 'bogus', 'client auth'], signerName: 'kubernetes.io/legacy-unknown', expirationSeconds: 599 });
    assert.deepEqual(messages(strategy.validate!(bad)), [
      'spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST',
      `spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`,
      'spec.usages[2]: Duplicate value: "client auth"',
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
      'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    assert.deepEqual(messages(strategy.validate!(valid({ usages: [] }))), ['spec.usages: Required value']);
    // A request whose signature does not check is refused too.
    const pem = Buffer.from(request, 'base64').toString('utf8');
    const lines = pem.split('\n');
    const body = lines.slice(1, -2).join('');
    const tampered = `${lines[0]}\n${body.slice(0, -12)}${body.slice(-12).replace(/[A-Za-z]/, (c) => (c === 'A' ? 'B' : 'A'))}\n${lines.at(-2)}\n`;
    assert.match(messages(strategy.validate!(valid({ request: Buffer.from(tampered).toString('base64') })))[0]!, /^spec.request: Invalid value: ".*": (x509: ECDSA verification failure|x509: malformed certificate request.*)$/);
  });

  it('checks signer names as kube\'s ValidateSignerName', () => {
    assert.deepEqual(messages(validateSignerName('spec.signerName', '')), ['spec.signerName: Required value']);
    assert.deepEqual(messages(validateSignerName('spec.signerName', 'no-slash')), ["spec.signerName: Invalid value: \"no-slash\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
    assert.deepEqual(messages(validateSignerName('spec.signerName', 'example/x')), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']);
    assert.deepEqual(messages(validateSignerName('spec.signerName', 'Example.com/x')), ['spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')']);
    assert.deepEqual(validateSignerName('spec.signerName', 'example.com/my-signer.v1'), []);
  });

  it('keeps spec and status on a main-resource update', () => {
    const old = valid();
    old.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const obj = valid({ signerName: 'example.com/other' });
    obj.status = {};
    strategy.prepareForUpdate!(obj, old);
    assert.deepEqual(obj.spec, old.spec);
    assert.deepEqual(obj.status, old.status);
  });

  it('approval: Approved and Denied exclude each other, conditions are never removed, and times are filled in', () => {
    const old = valid();
    const approving = structuredClone(old);
    approving.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] };
    strategy.prepareForApprovalUpdate!(approving, old);
    assert.ok(approving.status.conditions[0].lastUpdateTime && approving.status.conditions[0].lastTransitionTime);
    assert.deepEqual(strategy.validateApprovalUpdate!(approving, old), []);
    const both = structuredClone(approving);
    both.status.conditions.push({ type: 'Denied', status: 'True' });
    assert.deepEqual(messages(strategy.validateApprovalUpdate!(both, approving)), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
    const removed = structuredClone(approving);
    removed.status.conditions = [];
    assert.deepEqual(messages(strategy.validateApprovalUpdate!(removed, approving)), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    const falseApproved = structuredClone(old);
    falseApproved.status = { conditions: [{ type: 'Approved', status: 'False' }] };
    assert.deepEqual(messages(strategy.validateApprovalUpdate!(falseApproved, old)), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']);
    // The approval subresource cannot set a certificate.
    const sneaky = structuredClone(approving);
    sneaky.status.certificate = certificate;
    assert.deepEqual(messages(strategy.validateApprovalUpdate!(sneaky, approving)), ['status.certificate: Forbidden: updates may not set certificate content']);
  });

  it('status: the certificate is set once and must be PEM CERTIFICATE blocks; approval conditions cannot be added there', () => {
    const old = valid();
    old.status = { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z' }] };
    const issued = structuredClone(old);
    issued.status.certificate = certificate;
    strategy.prepareForStatusUpdate!(issued, old);
    assert.deepEqual(strategy.validateStatusUpdate!(issued, old), []);
    const again = structuredClone(issued);
    again.status.certificate = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64');
    assert.deepEqual(messages(strategy.validateStatusUpdate!(again, issued)), ['status.certificate: Invalid value: "<certificate data>": x509: malformed certificate', 'status.certificate: Forbidden: updates may not modify existing certificate content']);
    const key = structuredClone(old);
    key.status.certificate = Buffer.from('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n').toString('base64');
    assert.deepEqual(messages(strategy.validateStatusUpdate!(key, old)), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"']);
    const denying = structuredClone(old);
    denying.status.conditions.push({ type: 'Denied', status: 'True' });
    strategy.prepareForStatusUpdate!(denying, old);
    assert.ok(messages(strategy.validateStatusUpdate!(denying, old)).includes('status.conditions: Forbidden: updates may not add a condition of type "Denied"'));
    // An edited Approved condition is put back as stored, as kube's status strategy does.
    const edited = structuredClone(old);
    edited.status.conditions[0].reason = 'Changed';
    strategy.prepareForStatusUpdate!(edited, old);
    assert.deepEqual(edited.status.conditions, old.status.conditions);
  });
});
