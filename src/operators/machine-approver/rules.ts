/**
 * When the machine approver approves a node's client CertificateSigningRequest, as pure
 * functions (OpenShift's cluster-machine-approver, `csr_check.go`, reduced to client
 * certificates). A request is the approver's concern when it asks signer
 * `kubernetes.io/kube-apiserver-client-kubelet`; it is approved only when:
 * - its subject is exactly CN `system:node:<name>`, O `system:nodes`, with no SANs and the
 *   usages a kubelet client certificate has (kube's ValidateKubeletClientCSR), and
 * - either it comes from the machine-config server's node-bootstrapper ServiceAccount, no Node
 *   `<name>` exists yet, and a Machine without a nodeRef has an address of type Hostname or
 *   InternalDNS equal to `<name>` and was created shortly before the request (no more than 10 s
 *   after it, no more than 2 h before it: OpenShift's window), so that a leaked bootstrap
 *   token cannot mint an identity for a node nobody asked for;
 * - or it is the node itself, `system:node:<name>` in `system:nodes`, renewing its own name
 *   while its Node exists.
 * Nothing is ever denied: a request that does not qualify stays pending, with the reason said.
 */
import { kubeletClientRequestProblem, signerNames } from '../../api/certificates.ts';
import type { ParsedCertificateRequest } from '../../api/x509.ts';

export const nodeBootstrapperUsername = 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';
const nodeBootstrapperGroups = ['system:authenticated', 'system:serviceaccounts', 'system:serviceaccounts:openshift-machine-config-operator'];
const nodeUserPrefix = 'system:node:';
const maxMachineClockSkewMs = 10_000;
const maxMachineDeltaMs = 2 * 3_600_000;
const maxPendingDeltaMs = 3_600_000;
/** How many more recent pending node requests than machines (or nodes) stop all approvals. */
export const maxDiffBetweenPendingCsrsAndMachines = 100;

export const approvalCondition = {
  type: 'Approved',
  status: 'True',
  reason: 'NodeCSRApprove',
  message: 'This CSR was approved by the Node CSR Approver (cluster-machine-approver)',
} as const;

/** What the rules read of a request (typed or raw JSON alike). */
export interface CsrView {
  readonly metadata?: { readonly name?: string; readonly creationTimestamp?: unknown };
  readonly spec?: { readonly signerName?: string; readonly username?: string; readonly groups?: readonly string[]; readonly usages?: readonly string[]; readonly request?: string };
  readonly status?: { readonly conditions?: readonly { readonly type: string }[] };
}

/** What the rules read of a Machine. */
export interface MachineView {
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly creationTimestamp?: unknown };
  readonly status?: { readonly nodeRef?: { readonly name?: string } | null; readonly addresses?: readonly { readonly type?: string; readonly address?: string }[] };
}

export type Decision =
  | { readonly approve: true; readonly flow: 'bootstrap' | 'renewal'; readonly node: string; readonly machine?: string }
  /** `retry`: the world may still change in the request's favour (a Machine not seen yet). */
  | { readonly approve: false; readonly reason: string; readonly retry: boolean };

export interface DecisionInput {
  readonly csr: CsrView;
  /** The parsed `spec.request`, or why it does not parse. */
  readonly request: ParsedCertificateRequest | { readonly error: string };
  readonly nodeExists: (name: string) => boolean;
  /** The Machines in openshift-machine-api; undefined when the cluster has no Machine API (yet). */
  readonly machines: readonly MachineView[] | undefined;
}

function timeOf(value: unknown): number {
  const t = Date.parse(String(value ?? ''));
  return Number.isNaN(t) ? NaN : t;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

export function isNodeClientRequest(csr: CsrView): boolean {
  return csr.spec?.signerName === signerNames.kubeAPIServerClientKubelet;
}

export function isFromNodeBootstrapper(csr: CsrView): boolean {
  return csr.spec?.username === nodeBootstrapperUsername && sameSet(csr.spec.groups ?? [], nodeBootstrapperGroups);
}

export function isFromNodeUser(csr: CsrView): boolean {
  return (csr.spec?.username ?? '').startsWith(nodeUserPrefix);
}

export function isDecided(csr: CsrView): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');
}

/** The Machine whose Hostname or InternalDNS address is the node's name. */
export function machineForNode(machines: readonly MachineView[], node: string): MachineView | undefined {
  return machines.find((m) => (m.status?.addresses ?? []).some((a) => (a.type === 'Hostname' || a.type === 'InternalDNS') && a.address === node));
}

function machineName(m: MachineView): string {
  return `${m.metadata?.namespace ?? ''}/${m.metadata?.name ?? ''}`;
}

export function decide(input: DecisionInput): Decision {
  const { csr } = input;
  if ('error' in input.request) return { approve: false, reason: `the request does not parse: ${input.request.error}`, retry: false };
  const request = input.request;
  const problem = kubeletClientRequestProblem(request, csr.spec?.usages ?? []);
  if (problem) return { approve: false, reason: `not a node client certificate request: ${problem}`, retry: false };
  const node = request.commonName.slice(nodeUserPrefix.length);
  if (!node) return { approve: false, reason: 'not a node client certificate request: the common name names no node', retry: false };

  const username = csr.spec?.username ?? '';
  if (isFromNodeUser(csr)) {
    if (username !== request.commonName) return { approve: false, reason: `${username} may renew only its own certificate, not ${request.commonName}'s`, retry: false };
    if (!(csr.spec?.groups ?? []).includes('system:nodes')) return { approve: false, reason: `${username} is not in system:nodes`, retry: false };
    if (!input.nodeExists(node)) return { approve: false, reason: `renewal for node ${node}, which does not exist`, retry: true };
    return { approve: true, flow: 'renewal', node };
  }
  if (!isFromNodeBootstrapper(csr)) return { approve: false, reason: `requested by ${username || 'an unknown user'}, neither the node-bootstrapper nor the node itself`, retry: false };
  if (input.nodeExists(node)) return { approve: false, reason: `node ${node} already exists, cannot approve`, retry: false };
  if (input.machines === undefined) return { approve: false, reason: `failed to find machine for node ${node}: the Machine API is not installed`, retry: true };
  const machine = machineForNode(input.machines, node);
  if (!machine) return { approve: false, reason: `failed to find machine for node ${node}, cannot approve`, retry: true };
  if (machine.status?.nodeRef) return { approve: false, reason: `machine ${machineName(machine)} for node ${node} already has node ref ${machine.status.nodeRef.name ?? ''}, cannot approve`, retry: false };
  const created = timeOf(csr.metadata?.creationTimestamp);
  const machineCreated = timeOf(machine.metadata?.creationTimestamp);
  const start = machineCreated - maxMachineClockSkewMs;
  const end = machineCreated + maxMachineDeltaMs;
  if (!(created > start && created < end)) {
    return { approve: false, reason: `CSR creation time ${new Date(created).toISOString()} not in range (${new Date(start).toISOString()}, ${new Date(end).toISOString()}) of machine ${machineName(machine)}`, retry: false };
  }
  return { approve: true, flow: 'bootstrap', node, machine: machineName(machine) };
}

/** Recent (last hour) undecided requests from nodes or the bootstrapper: what OpenShift caps. */
export function recentlyPendingNodeCsrs(csrs: readonly CsrView[], nowMs: number): number {
  return csrs.filter((csr) => {
    const created = timeOf(csr.metadata?.creationTimestamp);
    if (!(created > nowMs - maxPendingDeltaMs && created < nowMs + maxMachineClockSkewMs)) return false;
    return (isFromNodeBootstrapper(csr) || isFromNodeUser(csr)) && !isDecided(csr);
  }).length;
}

/** The most pending node requests tolerated: the larger of Machines and Nodes, plus 100. */
export function maxPendingCsrs(machines: number, nodes: number): number {
  return Math.max(machines, nodes) + maxDiffBetweenPendingCsrsAndMachines;
}
