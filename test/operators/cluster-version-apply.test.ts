/**
 * The CVO's apply and health layer (src/runtime/apply) against a real API
 * server: objects are created, left alone when nothing drifted (the server's own defaults
 * must not look like drift), put back after `kubectl scale` and hand edits, recreated after
 * a delete, never updated when create-only, and a write that races another writer is retried
 * from a fresh read. There is no controller-manager here, so the tests write workload status
 * through the status subresource themselves to drive the health checks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type KubernetesObject, type V1ConfigMap, type V1Deployment, type V1OwnerReference } from '@kubernetes/client-node';
import { ClusterOperator } from '../../src/api/config/cluster-operator.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { applyManifest, checkHealth, type HealthResult } from '../../src/runtime/apply/index.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { resources, type ResourceRef } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

type Any = Record<string, any>;

const NS = 'openshift-machine-api';
const owner: V1OwnerReference = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: '00000000-0000-4000-8000-00000000c0de', controller: true };
const clusterOperators = resources.clusterOperators;

const namespace = (): Any => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { 'openshift.io/run-level': '' } } });

function deployment(): Any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'machine-api-operator', namespace: NS, labels: { 'k8s-app': 'machine-api-operator' }, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'machine-api-operator' } },
      strategy: { type: 'RollingUpdate' },
      template: {
        metadata: { labels: { 'k8s-app': 'machine-api-operator' } },
        spec: {
          serviceAccountName: 'machine-api-operator',
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          tolerations: [{ key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [
            {
              name: 'machine-api-operator',
              image: 'quay.io/openshift/machine-api-operator:4.16',
              command: ['/machine-api-operator'],
              args: ['start', '--v=2'],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'RELEASE_VERSION', value: '4.16.0' },
              ],
              ports: [{ name: 'metrics', containerPort: 8080 }],
              resources: { requests: { cpu: '10m', memory: '50Mi' } },
              volumeMounts: [{ name: 'config', mountPath: '/etc/machine-api-operator' }],
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
          volumes: [{ name: 'config', configMap: { name: 'machine-api-operator-config' } }, { name: 'scratch' }],
        },
      },
    },
  };
}

const service = (): Any => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'machine-api-operator', namespace: NS },
  spec: { selector: { 'k8s-app': 'machine-api-operator' }, ports: [{ name: 'metrics', port: 8443, targetPort: 'metrics' }] },
});
const secret = (): Any => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'machine-api-operator-creds', namespace: NS }, stringData: { 'config.yaml': 'level: 2\n' } });
const configMap = (name: string, annotations: Record<string, string> = {}): Any => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, annotations }, data: { mode: 'fast' } });

const clusterOperator = (): Any => ({
  apiVersion: 'config.openshift.io/v1',
  kind: 'ClusterOperator',
  metadata: { name: 'machine-api', annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' } },
  spec: {},
  status: { versions: [{ name: 'operator', version: '4.16.0' }], relatedObjects: [{ group: '', resource: 'namespaces', name: NS }] },
});

async function pollHealth(what: string, probe: () => Promise<HealthResult>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: HealthResult | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (last.ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

describe('CVO apply and health on a real API server', { timeout: 120_000 }, () => {
  let ts: TestServer;
  let client: ApiClient;
  const getDeployment = () => client.get<V1Deployment>(resources.deployments, NS, 'machine-api-operator') as Promise<Any>;

  before(async () => {
    ts = await startTestServer();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: 'cluster-version-apply-test' });
  });
  after(async () => {
    client?.close();
    await ts?.stop();
  });

  it('creates what is missing, owned by the ClusterVersion, and then leaves it alone', async () => {
    const manifests: [ResourceRef, Any][] = [
      [resources.namespaces, namespace()],
      [resources.deployments, deployment()],
      [resources.services, service()],
      [resources.secrets, secret()],
      [resources.configMaps, configMap('machine-api-operator-config')],
    ];
    for (const [ref, m] of manifests) {
      const first = await applyManifest(client, ref, m, { ownerRef: owner });
      assert.equal(first.action, 'created', `${m.kind} created`);
      assert.deepEqual(first.object.metadata?.ownerReferences, [owner], `${m.kind} owned by the ClusterVersion as its controller`);
    }
    // What the server defaulted on create (replicas, protocol, probe timings, clusterIP, data from stringData) is not drift.
    for (const [ref, m] of manifests) {
      const before = await client.get<KubernetesObject>(ref, m.metadata.namespace, m.metadata.name);
      const again = await applyManifest(client, ref, m, { ownerRef: owner });
      assert.equal(again.action, 'unchanged', `${m.kind} is not written again`);
      assert.equal(again.object.metadata?.resourceVersion, before.metadata?.resourceVersion);
    }
  });

  it('reverts kubectl scale, an edited image, a container added by hand and an edited env; keeps others’ labels', async () => {
    const scaled = await ts.kubectl(['scale', '-n', NS, 'deployment/machine-api-operator', '--replicas=3']);
    assert.equal(scaled.code, 0, scaled.stderr);
    const live = await getDeployment();
    live.metadata.labels.team = 'kept';
    live.spec.template.spec.containers[0].image = 'quay.io/someone/else:latest';
    live.spec.template.spec.containers[0].env[1].value = '0.0.0';
    live.spec.template.spec.containers.push({ name: 'debug', image: 'busybox' });
    await client.update(resources.deployments, live as V1Deployment);

    const result = await applyManifest(client, resources.deployments, deployment(), { ownerRef: owner });
    assert.equal(result.action, 'updated');
    const now = await getDeployment();
    assert.equal(now.spec.replicas, 1);
    assert.deepEqual(now.spec.template.spec.containers.map((c: Any) => c.name), ['machine-api-operator']);
    assert.equal(now.spec.template.spec.containers[0].image, 'quay.io/openshift/machine-api-operator:4.16');
    assert.equal(now.spec.template.spec.containers[0].env[1].value, '4.16.0');
    assert.equal(now.metadata.labels.team, 'kept');
    assert.equal((await applyManifest(client, resources.deployments, deployment(), { ownerRef: owner })).action, 'unchanged', 'converged after one write');
  });

  it('with keepScaledToZero (the CVO\u2019s own Deployment) a Deployment scaled to 0 stays at 0 while the rest is still enforced; scaled up, it is enforced again', async () => {
    const scaled = await ts.kubectl(['scale', '-n', NS, 'deployment/machine-api-operator', '--replicas=0']);
    assert.equal(scaled.code, 0, scaled.stderr);
    const live = await getDeployment();
    live.spec.template.spec.containers[0].image = 'quay.io/someone/else:latest';
    await client.update(resources.deployments, live as V1Deployment);
    assert.equal((await applyManifest(client, resources.deployments, deployment(), { ownerRef: owner, keepScaledToZero: true })).action, 'updated');
    const paused = await getDeployment();
    assert.equal(paused.spec.replicas, 0, 'a pass does not undo the pause');
    assert.equal(paused.spec.template.spec.containers[0].image, 'quay.io/openshift/machine-api-operator:4.16', 'the image is still put back');
    assert.equal((await ts.kubectl(['scale', '-n', NS, 'deployment/machine-api-operator', '--replicas=3'])).code, 0);
    await applyManifest(client, resources.deployments, deployment(), { ownerRef: owner, keepScaledToZero: true });
    assert.equal((await getDeployment()).spec.replicas, 1, 'scaled up by hand, the manifest\u2019s count is enforced again');
  });

  it('recreates an object that was deleted', async () => {
    await client.delete(resources.configMaps, NS, 'machine-api-operator-config');
    const result = await applyManifest(client, resources.configMaps, configMap('machine-api-operator-config'), { ownerRef: owner });
    assert.equal(result.action, 'created');
    assert.equal((result.object as V1ConfigMap).data?.mode, 'fast');
  });

  it('never updates a create-only object, and does not make the ClusterVersion its controller', async () => {
    const manifest = configMap('cluster-config-v1', { 'release.openshift.io/create-only': 'true' });
    const created = await applyManifest(client, resources.configMaps, manifest, { ownerRef: owner });
    assert.equal(created.action, 'created');
    assert.deepEqual(created.object.metadata?.ownerReferences, [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid }]);
    await client.update(resources.configMaps, { ...(created.object as V1ConfigMap), data: { mode: 'admin-chose-this' } });
    const again = await applyManifest(client, resources.configMaps, manifest, { ownerRef: owner });
    assert.equal(again.action, 'unchanged');
    assert.equal((await client.get<V1ConfigMap>(resources.configMaps, NS, 'cluster-config-v1')).data?.mode, 'admin-chose-this');
    // The option says the same as the annotation.
    await client.update(resources.configMaps, { ...(again.object as V1ConfigMap), data: { mode: 'slow' }, metadata: { ...again.object.metadata, annotations: {} } });
    assert.equal((await applyManifest(client, resources.configMaps, configMap('cluster-config-v1'), { createOnly: true })).action, 'unchanged');
  });

  it('leaves the ownership of an object someone else owns alone', async () => {
    const ns = await client.get<KubernetesObject>(resources.namespaces, undefined, NS);
    const otherOwner = { apiVersion: 'v1', kind: 'Namespace', name: NS, uid: ns.metadata!.uid! };
    await client.create(resources.configMaps, { ...configMap('adopted'), metadata: { name: 'adopted', namespace: NS, ownerReferences: [otherOwner] } });
    const result = await applyManifest(client, resources.configMaps, configMap('adopted'), { ownerRef: owner });
    assert.equal(result.action, 'unchanged');
    assert.deepEqual(result.object.metadata?.ownerReferences, [otherOwner]);
  });

  it('retries a write that lost a race from a fresh read, keeping the other writer’s change', async () => {
    const name = 'raced';
    await applyManifest(client, resources.configMaps, configMap(name), { ownerRef: owner });
    let updates = 0;
    // Between the CVO's read and its write, someone else writes the object: the first PUT is a 409.
    const racing = new (class extends ApiClient {
      override async update<T extends KubernetesObject>(ref: ResourceRef, obj: T, opts: { subresource?: string; fieldManager?: string } = {}): Promise<T> {
        if (updates++ === 0) {
          const current = await client.get<V1ConfigMap>(ref, NS, name);
          await client.update(ref, { ...current, metadata: { ...current.metadata, labels: { raced: 'yes' } } });
        }
        return super.update(ref, obj, opts);
      }
    })(client.kubeConfig);
    try {
      const live = await client.get<V1ConfigMap>(resources.configMaps, NS, name);
      await client.update(resources.configMaps, { ...live, data: { mode: 'drifted' } });
      const result = await applyManifest(racing, resources.configMaps, configMap(name), { ownerRef: owner });
      assert.equal(result.action, 'updated');
      assert.equal(updates, 2, 'one conflict, one retry');
      const now = await client.get<V1ConfigMap>(resources.configMaps, NS, name);
      assert.equal(now.data?.mode, 'fast');
      assert.equal(now.metadata?.labels?.raced, 'yes');
    } finally {
      racing.close();
    }
  });

  it('waits for a Deployment to roll out, and fails one past its progress deadline', async () => {
    const manifest = deployment();
    const health = (mode: 'install' | 'update' | 'reconcile') => checkHealth(client, resources.deployments, manifest, { mode });
    const waiting = await health('update');
    assert.equal(waiting.ok, false);
    assert.equal(!waiting.ok && waiting.reason, 'WorkloadNotAvailable');
    assert.equal(!waiting.ok && waiting.retryable, true);
    assert.deepEqual(await health('install'), { ok: true }, 'install only checks that nothing is failing');

    const live = await getDeployment();
    const conditions = [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
      { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "machine-api-operator-5d" has successfully progressed.' },
    ];
    const rolledOut = { observedGeneration: live.metadata.generation, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions };
    const withStatus = await client.updateStatus(resources.deployments, { ...live, status: rolledOut } as V1Deployment);
    assert.deepEqual(await health('update'), { ok: true });

    await client.updateStatus(resources.deployments, {
      ...withStatus,
      status: { ...rolledOut, conditions: [conditions[0], { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "machine-api-operator-6f" has timed out progressing.' }] },
    } as V1Deployment);
    assert.deepEqual(await health('reconcile'), {
      ok: false,
      reason: 'WorkloadNotProgressing',
      message: `deployment ${NS}/machine-api-operator is Progressing=False: ProgressDeadlineExceeded: ReplicaSet "machine-api-operator-6f" has timed out progressing.`,
      retryable: false,
    });
  });

  it('applies a CRD, waits until it is Established, and leaves the server-defaulted CRD alone', async () => {
    const crd = structuredClone(ClusterOperator.crd) as unknown as Any;
    const first = await applyManifest(client, resources.customResourceDefinitions, crd, { ownerRef: owner });
    assert.equal(first.action, 'created');
    await pollHealth('the ClusterOperator CRD Established', () => checkHealth(client, resources.customResourceDefinitions, crd, { mode: 'update' }));
    assert.equal((await applyManifest(client, resources.customResourceDefinitions, crd, { ownerRef: owner })).action, 'unchanged');
  });

  it('creates a ClusterOperator with the manifest’s related objects but not its versions, and waits for the operator to report', async () => {
    const manifest = clusterOperator();
    const created = await applyManifest(client, clusterOperators, manifest, { ownerRef: owner });
    assert.equal(created.action, 'created');
    const status = (created.object as Any).status;
    assert.deepEqual(status.relatedObjects, manifest.status.relatedObjects);
    assert.equal(status.versions, undefined, 'the expected versions are not reported on the operator’s behalf');

    const health = (mode: 'install' | 'update' | 'reconcile') => checkHealth(client, clusterOperators, manifest, { mode });
    assert.deepEqual(await health('update'), { ok: false, reason: 'ClusterOperatorNotAvailable', message: 'Cluster operator machine-api is not available', retryable: false });

    const report = async (version: string, degraded = 'False') => {
      const live = await client.get<KubernetesObject>(clusterOperators, undefined, 'machine-api');
      const at = formatTimestamp();
      const conditions = [
        { type: 'Available', status: 'True', lastTransitionTime: at },
        { type: 'Progressing', status: 'False', lastTransitionTime: at },
        { type: 'Degraded', status: degraded, lastTransitionTime: at },
      ];
      await client.updateStatus(clusterOperators, { ...live, status: { ...(live as Any).status, conditions, versions: [{ name: 'operator', version }] } } as KubernetesObject);
    };
    await report('4.15.0');
    assert.deepEqual(await health('update'), { ok: false, reason: 'ClusterOperatorUpdating', message: 'Cluster operator machine-api is updating versions', retryable: true });
    await report('4.16.0', 'True');
    assert.deepEqual(await health('install'), { ok: false, reason: 'ClusterOperatorDegraded', message: 'Cluster operator machine-api is degraded', retryable: true });
    await report('4.16.0');
    assert.deepEqual(await health('update'), { ok: true });

    // Re-applying the manifest never touches what the operator reported.
    const again = await applyManifest(client, clusterOperators, manifest, { ownerRef: owner });
    assert.equal(again.action, 'unchanged');
    assert.deepEqual((again.object as Any).status.versions, [{ name: 'operator', version: '4.16.0' }]);
  });

  it('reports a missing object as not found, and a manifest without versions before reading anything', async () => {
    const missing = await checkHealth(client, resources.deployments, { ...deployment(), metadata: { name: 'gone', namespace: NS } }, { mode: 'update' });
    assert.deepEqual(missing, { ok: false, reason: 'UpdatePayloadResourceNotFound', message: `Deployment ${NS}/gone not found: resource may have been deleted`, retryable: true });
    const unversioned: Any = { ...clusterOperator(), metadata: { name: 'nobody' }, status: {} };
    const noVersions = await checkHealth(client, clusterOperators, unversioned, { mode: 'update' });
    assert.equal(!noVersions.ok && noVersions.reason, 'ClusterOperatorNoVersions');
  });
});
