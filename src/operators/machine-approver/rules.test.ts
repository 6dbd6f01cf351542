import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCertificateRequest, parseCertificateRequest, type ParsedCertificateRequest } from '../../api/x509.ts';
import { decide, maxPendingCsrs, nodeBootstrapperUsername, recentlyPendingNodeCsrs, type CsrView, type MachineView } from './rules.ts';

const t0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const bootstrapperGroups = ['system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator', 'system:authenticated'];

function csr(o: { username?: string; groups?: string[]; created?: number; usages?: string[]; conditions?: { type: string }[] } = {}): CsrView {
  return {
    metadata: { name: 'csr-x', creationTimestamp: iso(o.created ?? t0) },
    spec: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet', username: o.username ?? nodeBootstrapperUsername, groups: o.groups ?? bootstrapperGroups, usages: o.usages ?? ['digital signature', 'client auth'] },
    status: { conditions: o.conditions ?? [] },
  };
}

function machine(o: { hostname?: string; type?: string; created?: number; nodeRef?: string } = {}): MachineView {
  return {
    metadata: { name: 'm-1', namespace: 'openshift-machine-api', creationTimestamp: iso(o.created ?? t0 - 60_000) },
    status: { addresses: [{ type: o.type ?? 'Hostname', address: o.hostname ?? 'worker-0' }], ...(o.nodeRef ? { nodeRef: { name: o.nodeRef } } : {}) },
  };
}

describe('machine approver rules', () => {
  let worker0: ParsedCertificateRequest;
  let noOrg: ParsedCertificateRequest;
  let twoOrgs: ParsedCertificateRequest;
  let withIp: ParsedCertificateRequest;
  let notNode: ParsedCertificateRequest;
  before(async () => {
    const parse = async (subject: string, o?: { ipAddresses?: string[] }) => parseCertificateRequest((await createCertificateRequest(subject, o)).csrPem);
    worker0 = await parse('O=system:nodes, CN=system:node:worker-0');
    noOrg = await parse('CN=system:node:worker-0');
    twoOrgs = await parse('O=system:nodes, O=system:masters, CN=system:node:worker-0');
    withIp = await parse('O=system:nodes, CN=system:node:worker-0', { ipAddresses: ['127.1.0.9'] });
    notNode = await parse('O=system:nodes, CN=worker-0');
  });
  const none = () => false;

  it('approves the bootstrapper for a Machine without a Node, by Hostname or InternalDNS, within OpenShift\'s window', () => {
    for (const type of ['Hostname', 'InternalDNS']) {
      assert.deepEqual(decide({ csr: csr(), request: worker0, nodeExists: none, machines: [machine({ type })] }), { approve: true, flow: 'bootstrap', node: 'worker-0', machine: 'openshift-machine-api/m-1' });
    }
    // A Machine created up to 10 s after the request still counts (clock skew); not 11 s, nor more than 2 h before.
    assert.equal(decide({ csr: csr(), request: worker0, nodeExists: none, machines: [machine({ created: t0 + 9_000 })] }).approve, true);
    const late = decide({ csr: csr(), request: worker0, nodeExists: none, machines: [machine({ created: t0 + 11_000 })] });
    assert.equal(late.approve, false);
    assert.match((late as { reason: string }).reason, /^CSR creation time 2026-03-01T10:00:00.000Z not in range/);
    assert.equal(decide({ csr: csr(), request: worker0, nodeExists: none, machines: [machine({ created: t0 - 2 * 3_600_000 - 1 })] }).approve, false);
  });

  it('refuses, with the reason and whether to look again', () => {
    const cases: [string, Parameters<typeof decide>[0], string, boolean][] = [
      ['an address of another type', { csr: csr(), request: worker0, nodeExists: none, machines: [machine({ type: 'InternalIP' })] }, 'failed to find machine for node worker-0, cannot approve', true],
      ['no Machine API', { csr: csr(), request: worker0, nodeExists: none, machines: undefined }, 'failed to find machine for node worker-0: the Machine API is not installed', true],
      ['the Node exists', { csr: csr(), request: worker0, nodeExists: () => true, machines: [machine()] }, 'node worker-0 already exists, cannot approve', false],
      ['a linked Machine', { csr: csr(), request: worker0, nodeExists: none, machines: [machine({ nodeRef: 'worker-0' })] }, 'machine openshift-machine-api/m-1 for node worker-0 already has node ref worker-0, cannot approve', false],
      ['no organization', { csr: csr(), request: noOrg, nodeExists: none, machines: [machine()] }, 'not a node client certificate request: subject organization is not system:nodes', false],
      ['two organizations', { csr: csr(), request: twoOrgs, nodeExists: none, machines: [machine()] }, 'not a node client certificate request: subject organization is not system:nodes', false],
      ['an IP SAN', { csr: csr(), request: withIp, nodeExists: none, machines: [machine()] }, 'not a node client certificate request: IP subjectAltNames are not allowed', false],
      ['a CN that is not a node', { csr: csr(), request: notNode, nodeExists: none, machines: [machine()] }, 'not a node client certificate request: subject common name does not begin with system:node:', false],
      ['server auth usage', { csr: csr({ usages: ['digital signature', 'server auth'] }), request: worker0, nodeExists: none, machines: [machine()] }, 'not a node client certificate request: usages did not match [client auth digital signature key encipherment]', false],
      ['bootstrapper name with other groups', { csr: csr({ groups: ['system:authenticated'] }), request: worker0, nodeExists: none, machines: [machine()] }, `requested by ${nodeBootstrapperUsername}, neither the node-bootstrapper nor the node itself`, false],
      ['a user', { csr: csr({ username: 'alice', groups: ['system:authenticated'] }), request: worker0, nodeExists: none, machines: [machine()] }, 'requested by alice, neither the node-bootstrapper nor the node itself', false],
      ['a node for another name', { csr: csr({ username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'] }), request: worker0, nodeExists: () => true, machines: [] }, "system:node:worker-1 may renew only its own certificate, not system:node:worker-0's", false],
      ['a renewal without its Node', { csr: csr({ username: 'system:node:worker-0', groups: ['system:nodes', 'system:authenticated'] }), request: worker0, nodeExists: none, machines: [] }, 'renewal for node worker-0, which does not exist', true],
      ['a node user outside system:nodes', { csr: csr({ username: 'system:node:worker-0', groups: ['system:authenticated'] }), request: worker0, nodeExists: () => true, machines: [] }, 'system:node:worker-0 is not in system:nodes', false],
      ['a request that does not parse', { csr: csr(), request: { error: 'PEM block type must be CERTIFICATE REQUEST' }, nodeExists: none, machines: [machine()] }, 'the request does not parse: PEM block type must be CERTIFICATE REQUEST', false],
    ];
    for (const [what, input, reason, retry] of cases) assert.deepEqual(decide(input), { approve: false, reason, retry }, what);
  });

  it('approves a node renewing its own name while its Node exists', () => {
    const renewal = csr({ username: 'system:node:worker-0', groups: ['system:nodes', 'system:authenticated'] });
    assert.deepEqual(decide({ csr: renewal, request: worker0, nodeExists: (n) => n === 'worker-0', machines: undefined }), { approve: true, flow: 'renewal', node: 'worker-0' });
  });

  it('counts recent undecided node requests only, against the larger of Machines and Nodes plus 100', () => {
    const now = t0 + 60_000;
    const list = [
      csr(),
      csr({ username: 'system:node:a', groups: ['system:nodes'] }),
      csr({ conditions: [{ type: 'Approved' }] }),
      csr({ conditions: [{ type: 'Denied' }] }),
      csr({ created: t0 - 2 * 3_600_000 }),
      csr({ username: 'alice', groups: ['system:authenticated'] }),
    ];
    assert.equal(recentlyPendingNodeCsrs(list, now), 2);
    assert.equal(maxPendingCsrs(3, 7), 107);
    assert.equal(maxPendingCsrs(0, 0), 100);
  });
});
