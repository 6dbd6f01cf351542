/**
 * The certificate admission plugins, pinned to kube (plugin/pkg/admission/certificates/approval,
 * signing and subjectrestriction): approve and sign on the `signers` resource by signer name or
 * `<domain>/*`, checked against the stored signerName, and no system:masters client certificates.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCertificateRequest } from '../../api/x509.ts';
import type { ApiError } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import { createAuthzAdmission, type AdmissionUser } from './admission.ts';
import { createAuthorizer } from './authorizer.ts';
import { NodeGraph } from './node-authorizer.ts';
import { RbacIndex } from './rbac-index.ts';

const csrs = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false } as ResourceDefinition;
const kubeletSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

function admissionGranting(user: string, rules: KubeObject[]) {
  const rbac = new RbacIndex();
  const role = { metadata: { name: 'r' }, rules };
  rbac.apply('ClusterRole', role, role);
  const binding = { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'User', name: user }] };
  rbac.apply('ClusterRoleBinding', binding, binding);
  return createAuthzAdmission(rbac, createAuthorizer(rbac, new NodeGraph()));
}

const signers = (verb: string, names: string[]) => ({ apiGroups: ['certificates.k8s.io'], resources: ['signers'], verbs: [verb], resourceNames: names });
const csr = (signerName: string, status: KubeObject = {}, request = ''): KubeObject => ({ metadata: { name: 'c1' }, spec: { signerName, request, usages: ['client auth'] }, status });
const alice: AdmissionUser = { name: 'alice', groups: ['system:authenticated'] };

function refusal(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    assert.equal((err as ApiError).code, 403, (err as Error).message);
    return (err as Error).message;
  }
  assert.fail('expected a refusal');
}

describe('certificate admission', () => {
  let mastersRequest = '';
  before(async () => {
    mastersRequest = Buffer.from((await createCertificateRequest('O=system:masters, CN=mallory')).csrPem).toString('base64');
  });

  it('approval needs approve on the signer by name, or on <domain>/*', () => {
    const approved = csr(kubeletSigner, { conditions: [{ type: 'Approved', status: 'True' }] });
    const none = admissionGranting('alice', []);
    assert.equal(
      refusal(() => none.admit(csrs, approved, csr(kubeletSigner), { user: alice, subresource: 'approval' })),
      `certificatesigningrequests.certificates.k8s.io "c1" is forbidden: user not permitted to approve requests with signerName "${kubeletSigner}"`,
    );
    for (const names of [[kubeletSigner], ['kubernetes.io/*']]) {
      assert.doesNotThrow(() => admissionGranting('alice', [signers('approve', names)]).admit(csrs, approved, csr(kubeletSigner), { user: alice, subresource: 'approval' }), names[0]);
    }
    // Another signer's approval, or sign instead of approve, is not enough.
    refusal(() => admissionGranting('alice', [signers('approve', ['kubernetes.io/kube-apiserver-client'])]).admit(csrs, approved, csr(kubeletSigner), { user: alice, subresource: 'approval' }));
    refusal(() => admissionGranting('alice', [signers('sign', [kubeletSigner])]).admit(csrs, approved, csr(kubeletSigner), { user: alice, subresource: 'approval' }));
    // The stored signer counts: a request cannot rename it to one it may approve.
    refusal(() => admissionGranting('alice', [signers('approve', ['example.com/mine'])]).admit(csrs, csr('example.com/mine', approved.status), csr(kubeletSigner), { user: alice, subresource: 'approval' }));
  });

  it('a status write that sets the certificate or the conditions needs sign; one that changes neither does not', () => {
    const issued = csr(kubeletSigner, { certificate: 'Y2VydA==' });
    assert.match(refusal(() => admissionGranting('alice', []).admit(csrs, issued, csr(kubeletSigner), { user: alice, subresource: 'status' })), /user not permitted to sign requests with signerName "kubernetes.io\/kube-apiserver-client-kubelet"$/);
    assert.doesNotThrow(() => admissionGranting('alice', [signers('sign', [kubeletSigner])]).admit(csrs, issued, csr(kubeletSigner), { user: alice, subresource: 'status' }));
    assert.doesNotThrow(() => admissionGranting('alice', []).admit(csrs, csr(kubeletSigner), csr(kubeletSigner), { user: alice, subresource: 'status' }));
    const failed = csr(kubeletSigner, { conditions: [{ type: 'Failed', status: 'True' }] });
    refusal(() => admissionGranting('alice', []).admit(csrs, failed, csr(kubeletSigner), { user: alice, subresource: 'status' }));
  });

  it('nobody, cluster-admins included, may ask kube-apiserver-client for a system:masters certificate', () => {
    const admin: AdmissionUser = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
    const request = csr('kubernetes.io/kube-apiserver-client', {}, mastersRequest);
    assert.equal(
      refusal(() => admissionGranting('x', []).admit(csrs, request, undefined, { user: admin })),
      'certificatesigningrequests.certificates.k8s.io "c1" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    // Other signers decide for themselves.
    assert.doesNotThrow(() => admissionGranting('x', []).admit(csrs, csr('example.com/any', {}, mastersRequest), undefined, { user: admin }));
  });
});
