/**
 * Test support for this folder's unit tests (src/ may not import test/): Nodes as the daemon
 * leaves them, and pools with a target.
 */
import type { V1Node } from '@kubernetes/client-node';
import { nodeAnnotations, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { pool as renderPool } from '../render/testing.ts';

export interface NodeOptions {
  readonly current?: string;
  readonly desired?: string;
  readonly state?: string;
  readonly reason?: string;
  readonly ready?: 'True' | 'False' | 'Unknown';
  readonly unschedulable?: boolean;
  readonly labels?: Record<string, string>;
  readonly zone?: string;
  readonly created?: string;
}

/** A worker node; done at `current` (default `rendered-worker-old`) unless told otherwise. */
export function node(name: string, o: NodeOptions = {}): V1Node {
  const current = o.current ?? 'rendered-worker-old';
  const annotations: Record<string, string> = {
    [nodeAnnotations.currentConfig]: current,
    [nodeAnnotations.desiredConfig]: o.desired ?? current,
    [nodeAnnotations.state]: o.state ?? 'Done',
  };
  if (o.reason !== undefined) annotations[nodeAnnotations.reason] = o.reason;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      creationTimestamp: (o.created ?? '2024-01-01T00:00:00Z') as unknown as Date,
      labels: { 'node-role.kubernetes.io/worker': '', ...(o.zone ? { 'topology.kubernetes.io/zone': o.zone } : {}), ...o.labels },
      annotations,
    },
    spec: o.unschedulable ? { unschedulable: true } : {},
    status: { conditions: [{ type: 'Ready', status: o.ready ?? 'True' }] },
  };
}

/** A pool as render/testing.ts makes it, targeting `target`. */
export function targetedPool(name: string, target: string, spec: Partial<MachineConfigPool['spec']> = {}): MachineConfigPool {
  const p = renderPool(name);
  p.spec = { ...p.spec, configuration: { name: target }, ...spec };
  p.metadata = { ...p.metadata, generation: 3 };
  return p;
}
