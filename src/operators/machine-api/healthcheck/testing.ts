/**
 * Fixtures for this folder's unit tests: Machines at each step of their life, Nodes with a
 * Ready condition since a given time, and MachineSets that control Machines. Times are wall
 * times in ms, as a FakeClock's wallNow() gives them. Not a test file itself.
 */
import type { V1Node } from '@kubernetes/client-node';
import { machineAnnotations, machineConditionTypes, machinePhases, type Machine, type MachineSet } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import type { HealthCheckPolicy } from './policy.ts';

export const NS = 'openshift-machine-api';
export const SET_UID = 'uid-set-workers';
export const providerSpec = { value: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'ShipyardMachineProviderSpec', instanceType: 's.large', zone: 'zone-a' } };

export interface MachineFixture {
  readonly created: number;
  /** When InstanceExists became True; none: the instance does not exist yet. */
  readonly provisioned?: number;
  readonly node?: string;
  readonly phase?: string;
  readonly errorReason?: string;
  readonly errorMessage?: string;
  /** The controller: a MachineSet by default, `null` for none, or another kind. */
  readonly owner?: { kind: string; name: string; uid: string; apiVersion?: string } | null;
  readonly annotations?: Record<string, string>;
  readonly labels?: Record<string, string>;
  readonly deleting?: boolean;
  readonly lastUpdated?: number;
  readonly providerSpec?: NonNullable<Machine['spec']>['providerSpec'];
}

export function machine(name: string, f: MachineFixture): Machine {
  const owner = f.owner === undefined ? { kind: 'MachineSet', name: 'workers', uid: SET_UID } : f.owner;
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: formatTimestamp(f.created) as unknown as Date,
      labels: { 'machine.openshift.io/cluster-api-machineset': 'workers', ...f.labels },
      ...(f.annotations ? { annotations: f.annotations } : {}),
      ...(f.deleting ? { deletionTimestamp: formatTimestamp(f.created + 1000) as unknown as Date } : {}),
      ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion ?? 'machine.openshift.io/v1beta1', kind: owner.kind, name: owner.name, uid: owner.uid, controller: true }] } : {}),
    },
    spec: { providerSpec: f.providerSpec ?? providerSpec },
    status: {
      ...(f.phase ? { phase: f.phase as never } : {}),
      ...(f.errorReason ? { errorReason: f.errorReason } : {}),
      ...(f.errorMessage ? { errorMessage: f.errorMessage } : {}),
      ...(f.node ? { nodeRef: { kind: 'Node', name: f.node, uid: `uid-node-${f.node}` } } : {}),
      ...(f.lastUpdated !== undefined ? { lastUpdated: formatTimestamp(f.lastUpdated) } : {}),
      conditions:
        f.provisioned === undefined
          ? []
          : [{ type: machineConditionTypes.instanceExists, status: 'True', lastTransitionTime: formatTimestamp(f.provisioned) }],
    },
  };
}

export function node(name: string, conditions: Record<string, { status: string; since: number }>): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-node-${name}` },
    status: {
      conditions: Object.entries(conditions).map(([type, c]) => ({ type, status: c.status, lastTransitionTime: formatTimestamp(c.since) as unknown as Date })),
    },
  };
}

export function machineSet(o: { providerSpec?: unknown; uid?: string } = {}): MachineSet {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'workers', namespace: NS, uid: o.uid ?? SET_UID, generation: 1 },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': 'workers' } },
      template: { metadata: { labels: { 'machine.openshift.io/cluster-api-machineset': 'workers' } }, spec: { providerSpec: (o.providerSpec ?? providerSpec) as never } },
    },
  };
}

/** Ready False or Unknown for 5 minutes, maxUnhealthy 100%, nodeStartupTimeout 10m: the v1beta1 defaults. */
export const defaultPolicy: HealthCheckPolicy = {
  selector: {},
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeoutMs: 300_000 },
    { type: 'Ready', status: 'Unknown', timeoutMs: 300_000 },
  ],
  maxUnhealthy: '100%',
  nodeStartupTimeoutMs: 600_000,
};

export const failed = { phase: machinePhases.failed } as const;
export const skip = { [machineAnnotations.skipRemediation]: '' } as const;
