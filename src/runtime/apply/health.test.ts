/** Health decisions per kind and mode, table-driven against the CVO's reasons and messages. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateHealth, type HealthMode, type HealthResult } from './health.ts';

type Any = Record<string, any>;

const cond = (type: string, status: string, reason = '', message = ''): Any => ({ type, status, reason, message });

const deployment = (status: Any, extra: { replicas?: number; generation?: number; deleting?: boolean } = {}): Any => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'machine-api-operator', namespace: 'openshift-machine-api', generation: extra.generation ?? 2, ...(extra.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}) },
  spec: { replicas: extra.replicas ?? 2 },
  status,
});
const rolledOut = { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, conditions: [cond('Available', 'True'), cond('Progressing', 'True', 'NewReplicaSetAvailable')] };

const daemonSet = (status: Any): Any => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'machine-config-daemon', namespace: 'openshift-machine-config-operator', generation: 1 }, spec: {}, status });
const job = (status: Any): Any => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'installer', namespace: 'ns' }, spec: {}, status });
const crd = (conditions?: Any[]): Any => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'machines.machine.openshift.io' }, spec: {}, status: conditions ? { conditions } : {} });

const coManifest = (versions: Any[] = [{ name: 'operator', version: '4.16.0' }]): Any => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'machine-config' }, spec: {}, status: { versions } });
const co = (conditions: Any[], versions: Any[] = [{ name: 'operator', version: '4.16.0' }]): Any => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'machine-config' }, spec: {}, status: { conditions, versions } });
const healthy = [cond('Available', 'True'), cond('Progressing', 'False'), cond('Degraded', 'False')];

interface Case {
  name: string;
  live: Any;
  required?: Any;
  mode: HealthMode;
  want: HealthResult;
}

const ok: HealthResult = { ok: true };

const cases: Case[] = [
  { name: 'Deployment rolled out', live: deployment(rolledOut), mode: 'update', want: ok },
  { name: 'Deployment being deleted', live: deployment(rolledOut, { deleting: true }), mode: 'reconcile', want: { ok: false, reason: 'UpdatePayloadFailed', message: 'deployment openshift-machine-api/machine-api-operator is being deleted', retryable: false } },
  {
    name: 'Deployment with a replica failure',
    live: deployment({ ...rolledOut, conditions: [cond('ReplicaFailure', 'True', 'FailedCreate', 'pods "x" is forbidden: quota')] }),
    mode: 'update',
    want: { ok: false, reason: 'WorkloadNotProgressing', message: 'deployment openshift-machine-api/machine-api-operator has a replica failure FailedCreate: pods "x" is forbidden: quota', retryable: false },
  },
  {
    name: 'Deployment neither available nor progressing',
    live: deployment({ ...rolledOut, conditions: [cond('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'), cond('Progressing', 'False', 'Paused', 'Deployment is paused')] }),
    mode: 'update',
    want: {
      ok: false,
      reason: 'WorkloadNotAvailable',
      message: 'deployment openshift-machine-api/machine-api-operator is not available MinimumReplicasUnavailable (Deployment does not have minimum availability.) or progressing Paused (Deployment is paused)',
      retryable: false,
    },
  },
  {
    name: 'Deployment past its progress deadline',
    live: deployment({ ...rolledOut, conditions: [cond('Available', 'True'), cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "mao-5d" has timed out progressing.')] }),
    mode: 'update',
    want: { ok: false, reason: 'WorkloadNotProgressing', message: 'deployment openshift-machine-api/machine-api-operator is Progressing=False: ProgressDeadlineExceeded: ReplicaSet "mao-5d" has timed out progressing.', retryable: false },
  },
  {
    name: 'Deployment past its progress deadline fails at install too',
    live: deployment({ conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'timed out')] }),
    mode: 'install',
    want: { ok: false, reason: 'WorkloadNotProgressing', message: 'deployment openshift-machine-api/machine-api-operator is Progressing=False: ProgressDeadlineExceeded: timed out', retryable: false },
  },
  { name: 'Deployment still rolling out is not waited on at install', live: deployment({}), mode: 'install', want: ok },
  {
    name: 'Deployment whose new generation is not yet observed',
    live: deployment({ ...rolledOut, observedGeneration: 1 }),
    mode: 'update',
    want: { ok: false, reason: 'WorkloadNotAvailable', message: 'deployment openshift-machine-api/machine-api-operator has not yet successfully rolled out: observed generation 1 of 2', retryable: true },
  },
  {
    name: 'Deployment with too few available replicas',
    live: deployment({ ...rolledOut, availableReplicas: 1 }),
    mode: 'reconcile',
    want: { ok: false, reason: 'WorkloadNotAvailable', message: 'deployment openshift-machine-api/machine-api-operator has not yet successfully rolled out: updated replicas=2 of 2, available replicas=1 of 2', retryable: true },
  },
  {
    name: 'Deployment with old replicas still terminating',
    live: deployment({ ...rolledOut, replicas: 3 }),
    mode: 'update',
    want: { ok: false, reason: 'WorkloadNotAvailable', message: 'deployment openshift-machine-api/machine-api-operator has not yet successfully rolled out: updated replicas=2 of 2, available replicas=2 of 2', retryable: true },
  },
  { name: 'Deployment scaled to zero', live: deployment({ observedGeneration: 2 }, { replicas: 0 }), mode: 'update', want: ok },
  { name: 'DaemonSet rolled out', live: daemonSet({ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }), mode: 'update', want: ok },
  {
    name: 'DaemonSet with unavailable pods',
    live: daemonSet({ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberUnavailable: 1 }),
    mode: 'update',
    want: { ok: false, reason: 'WorkloadNotAvailable', message: 'daemonset openshift-machine-config-operator/machine-config-daemon has not yet successfully rolled out: updated=3 of 3, unavailable=1', retryable: true },
  },
  {
    name: 'DaemonSet not yet updated everywhere',
    live: daemonSet({ observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 1 }),
    mode: 'reconcile',
    want: { ok: false, reason: 'WorkloadNotAvailable', message: 'daemonset openshift-machine-config-operator/machine-config-daemon has not yet successfully rolled out: updated=1 of 3, unavailable=0', retryable: true },
  },
  { name: 'DaemonSet is not waited on at install', live: daemonSet({}), mode: 'install', want: ok },
  { name: 'CRD established', live: crd([cond('NamesAccepted', 'True'), cond('Established', 'True')]), mode: 'update', want: ok },
  {
    name: 'CRD not established',
    live: crd([cond('Established', 'False', 'NotAccepted', 'not all names are accepted')]),
    mode: 'update',
    want: { ok: false, reason: 'UpdatePayloadFailed', message: 'CustomResourceDefinition machines.machine.openshift.io Established=False, NotAccepted: not all names are accepted', retryable: true },
  },
  {
    name: 'CRD without conditions yet',
    live: crd(),
    mode: 'reconcile',
    want: { ok: false, reason: 'UpdatePayloadFailed', message: 'CustomResourceDefinition machines.machine.openshift.io does not declare an Established status condition: []', retryable: true },
  },
  { name: 'Job succeeded', live: job({ succeeded: 1 }), mode: 'update', want: ok },
  { name: 'Job running', live: job({ active: 1 }), mode: 'update', want: { ok: false, reason: 'JobNotComplete', message: 'job ns/installer has not completed: active=1, succeeded=0, failed=0', retryable: true } },
  {
    name: 'Job failed',
    live: job({ failed: 6, conditions: [cond('Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit')] }),
    mode: 'install',
    want: { ok: false, reason: 'UpdatePayloadFailed', message: 'job ns/installer: deadline exceeded, reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit"', retryable: false },
  },
  { name: 'ClusterOperator done', live: co(healthy), required: coManifest(), mode: 'update', want: ok },
  { name: 'ClusterOperator manifest without versions', live: co(healthy), required: coManifest([]), mode: 'update', want: { ok: false, reason: 'ClusterOperatorNoVersions', message: 'Cluster operator machine-config does not declare expected versions', retryable: false } },
  { name: 'ClusterOperator not available', live: co([cond('Available', 'False'), cond('Degraded', 'False')]), required: coManifest(), mode: 'update', want: { ok: false, reason: 'ClusterOperatorNotAvailable', message: 'Cluster operator machine-config is not available', retryable: false } },
  { name: 'ClusterOperator with no conditions at all is not available', live: co([], []), required: coManifest(), mode: 'install', want: { ok: false, reason: 'ClusterOperatorNotAvailable', message: 'Cluster operator machine-config is not available', retryable: false } },
  { name: 'ClusterOperator degraded fails outside install', live: co([cond('Available', 'True'), cond('Degraded', 'True')]), required: coManifest(), mode: 'reconcile', want: { ok: false, reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded', retryable: false } },
  { name: 'ClusterOperator degraded only reports at install', live: co([cond('Available', 'True'), cond('Degraded', 'True')]), required: coManifest(), mode: 'install', want: { ok: false, reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded', retryable: true } },
  { name: 'ClusterOperator without a Degraded condition counts as degraded', live: co([cond('Available', 'True')]), required: coManifest(), mode: 'update', want: { ok: false, reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-config is degraded', retryable: false } },
  {
    name: 'ClusterOperator still on the old version is updating, never failing',
    live: co(healthy, [{ name: 'operator', version: '4.15.0' }]),
    required: coManifest([{ name: 'operator', version: '4.16.0' }, { name: 'machine-config', version: '4.16.0' }]),
    mode: 'update',
    want: { ok: false, reason: 'ClusterOperatorUpdating', message: 'Cluster operator machine-config is updating versions', retryable: true },
  },
  { name: 'ClusterOperator may reach its first version after install', live: co(healthy, []), required: coManifest(), mode: 'install', want: ok },
  { name: 'kinds without a health check are healthy once applied', live: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, mode: 'update', want: ok },
];

describe('evaluateHealth', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(evaluateHealth(c.live, c.required ?? c.live, { mode: c.mode }), c.want);
    });
  }
});
