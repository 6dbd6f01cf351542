/**
 * The machine approver's controllers:
 * - `machine-approver` reconciles each undecided request to signer
 *   `kubernetes.io/kube-apiserver-client-kubelet` against the rules of `rules.ts`, reading
 *   Nodes from a cache and the Machines of openshift-machine-api from the API on each pass (the
 *   Machine kind may not be installed yet: then nothing bootstraps, and the reason says so).
 *   An approval goes through `/approval` with OpenShift's reason and message; a request that
 *   does not qualify stays pending, with a log line and a Warning event on it saying why, and
 *   is looked at again while what it waits for may still come (a Machine that is not listed
 *   yet). Past the pending cap (Machines or Nodes + 100 recent pending node requests) nothing
 *   is approved, as OpenShift's, so a flood of requests cannot be waved through.
 * - `machine-approver-status` keeps ClusterOperator `machine-approver` Available while this
 *   process runs, at the release's version.
 */
import type { KubernetesObject, V1CertificateSigningRequest, V1Node } from '@kubernetes/client-node';
import { Gauge, type Registry } from '../../api/prometheus.ts';
import { requestPem } from '../../api/certificates.ts';
import { Machine } from '../../api/machine/index.ts';
import { formatTimestamp } from '../../api/time.ts';
import { parseCertificateRequest } from '../../api/x509.ts';
import { isNotFound } from '../../runtime/client.ts';
import { reportClusterOperatorStatus } from '../../runtime/cluster-operator-status.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { refOf, resources } from '../../runtime/resources.ts';
import { approvalCondition, decide, isDecided, isNodeClientRequest, maxPendingCsrs, recentlyPendingNodeCsrs, type MachineView } from './rules.ts';

export const COMPONENT = 'machine-approver';
export const APPROVER_NAMESPACE = 'openshift-cluster-machine-approver';
export const CLUSTER_OPERATOR = 'machine-approver';
export const MACHINE_NAMESPACE = 'openshift-machine-api';

/** How often a request waiting for something that may still come (a Machine) is looked at again. */
export const retryAfterMs = 10_000;
/** After this, a bootstrap request can never fit its Machine's window: stop polling for it. */
const retryWindowMs = 2 * 3_600_000;

const machines = refOf(Machine);

export interface PendingGauges {
  readonly current: Gauge;
  readonly max: Gauge;
}

/** OpenShift's two gauges, on the component's registry. */
export function pendingGauges(registry: Registry): PendingGauges {
  return {
    current: new Gauge({ name: 'mapi_current_pending_csr', help: 'Count of recently pending node CSRs at the cluster level', registers: [registry] }),
    max: new Gauge({ name: 'mapi_max_pending_csr', help: 'Threshold value of the pending node CSRs beyond which all CSRs will be ignored by the machine approver', registers: [registry] }),
  };
}

export interface MachineApproverOptions {
  readonly gauges?: PendingGauges;
  /** Where Machines live (OpenShift's `--machine-namespace`). */
  readonly machineNamespace?: string;
}

export function createMachineApprover(ctx: ControllerContext, o: MachineApproverOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: COMPONENT });
  const csrs = ctx.informers.informer<V1CertificateSigningRequest>(resources.certificateSigningRequests);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const machineNamespace = o.machineNamespace ?? MACHINE_NAMESPACE;

  /** The Machines, or undefined when the cluster serves no Machine kind. */
  const listMachines = async (): Promise<MachineView[] | undefined> => {
    try {
      return (await ctx.client.listAll<KubernetesObject>(machines, machineNamespace)).items as MachineView[];
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const approve = async (csr: DeepReadonly<V1CertificateSigningRequest>): Promise<void> => {
    const now = formatTimestamp(ctx.clock.wallNow());
    const updated = structuredClone(csr) as V1CertificateSigningRequest;
    updated.status ??= {};
    updated.status.conditions = [...(updated.status.conditions ?? []), { ...approvalCondition, lastUpdateTime: now, lastTransitionTime: now } as never];
    await ctx.client.update(resources.certificateSigningRequests, updated, { subresource: 'approval' });
  };

  const reconcile = async (name: string): Promise<{ requeueAfterMs?: number } | void> => {
    const csr = csrs.store.get(name);
    if (!csr || !isNodeClientRequest(csr) || isDecided(csr)) return;
    const machineList = await listMachines();
    const all = csrs.store.list();
    const pending = recentlyPendingNodeCsrs(all, ctx.clock.wallNow());
    const max = maxPendingCsrs(machineList?.length ?? 0, nodes.store.list().length);
    o.gauges?.current.set(pending);
    o.gauges?.max.set(max);
    if (pending > max) {
      logger.error({ csr: name, pending, max }, `Pending CSRs: ${pending}; Max pending allowed: ${max}. Difference between pending CSRs and machines > 100. Ignoring all CSRs as too many recent pending CSRs seen`);
      ctx.recorder.event(csr, 'Warning', 'CSRNotApproved', `Not approved: ${pending} recent node requests are pending, more than the ${max} allowed (Machines or Nodes + 100); no request is approved until fewer are`);
      return { requeueAfterMs: 60_000 };
    }
    let request: ReturnType<typeof parseCertificateRequest> | { error: string };
    try {
      request = parseCertificateRequest(requestPem(csr));
    } catch (err) {
      request = { error: (err as Error).message };
    }
    const decision = decide({ csr, request, nodeExists: (node) => !!nodes.store.get(node), machines: machineList });
    if (decision.approve) {
      await approve(csr);
      logger.info({ csr: name, node: decision.node, flow: decision.flow, machine: decision.machine }, `CSR ${name} approved`);
      ctx.recorder.event(csr, 'Normal', 'CSRApproved', decision.flow === 'bootstrap' ? `Approved for node ${decision.node}: requested by the node-bootstrapper for Machine ${decision.machine}` : `Approved: node ${decision.node} renewing its own client certificate`);
      o.gauges?.current.set(Math.max(0, pending - 1));
      return;
    }
    logger.info({ csr: name, requester: csr.spec?.username, reason: decision.reason }, `${name}: CSR not authorized`);
    ctx.recorder.event(csr, 'Warning', 'CSRNotApproved', `Not approved: ${decision.reason}`);
    const age = ctx.clock.wallNow() - Date.parse(String(csr.metadata?.creationTimestamp ?? ''));
    if (decision.retry && age < retryWindowMs) return { requeueAfterMs: retryAfterMs };
  };

  const controller = new Controller({
    name: COMPONENT,
    reconcile,
    workers: 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(COMPONENT),
    onError: (r) => logger.warn({ csr: r.key, err: String(r.error) }, 'reconcile failed; retrying'),
  });
  controller.watch(csrs, (csr) => isNodeClientRequest(csr) && !isDecided(csr));
  // A Node that appears or goes changes what its requests may get; requests are few, so all of the undecided ones are looked at.
  controller.watchMapped(nodes, () => csrs.store.list().filter((c) => isNodeClientRequest(c) && !isDecided(c)).map((c) => c.metadata?.name ?? ''));
  return controller;
}

export interface StatusOptions {
  /** The release's version (RELEASE_VERSION), reported as the operator's. */
  readonly releaseVersion: string;
}

export function createStatusReporter(ctx: ControllerContext, o: StatusOptions): Controller {
  const KEY = CLUSTER_OPERATOR;
  const controller = new Controller({
    name: `${COMPONENT}-status`,
    workers: 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(`${COMPONENT}-status`),
    reconcile: async () => {
      await reportClusterOperatorStatus(
        ctx.client,
        CLUSTER_OPERATOR,
        {
          available: { status: 'True', reason: 'AsExpected', message: 'Cluster Machine Approver is available at ' + o.releaseVersion },
          progressing: { status: 'False', reason: 'AsExpected', message: '' },
          degraded: { status: 'False', reason: 'AsExpected', message: '' },
          versions: [{ name: 'operator', version: o.releaseVersion }],
          relatedObjects: [
            { group: '', resource: 'namespaces', name: APPROVER_NAMESPACE },
            { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', name: '' },
          ],
        },
        ctx.clock.wallNow(),
      );
    },
  });
  controller.watchMapped(ctx.informers.informer<KubernetesObject>(resources.clusterOperators, { fieldSelector: `metadata.name=${CLUSTER_OPERATOR}` }), () => [KEY]);
  controller.enqueue(KEY);
  return controller;
}
