/**
 * A running pod's container image changed in place (`kubectl patch pod ... image`), the
 * kube-apiserver operator's developer workflow (issue 17, item 9): the API server accepts the
 * image change (and nothing else in the spec), and the kubelet kills that container and starts
 * it again from the new image — restart count +1, status showing the new image, a `Killing`
 * event — on the process runtime (an image imported into the node's store) and the simulated
 * one. For a pod of a Deployment, the ReplicaSet and Deployment controllers leave it alone.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { createDeploymentController } from '../../src/cluster/deployment/controller.ts';
import { createReplicaSetController } from '../../src/cluster/replicaset/controller.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { APP_IMAGE, appContainer, boundPod, containerStatus, pidGone, pidIn, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'worker-image-update-0';
const NEW_IMAGE = 'example.test/node-app:2';
// The new image's program: it says which image it is, so the test can tell the new run from the old.
const newProgram = `import { writeFileSync } from 'node:fs';
writeFileSync(process.env.MARK_FILE, 'v2 ' + process.pid);
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

describe('kubelet: a running container\'s image changed in place', { timeout: 120_000 }, () => {
  let cluster: RunningControllers;
  let n: NodeUnderTest;

  before(async () => {
    cluster = await startControllers({ userAgent: 'pod-image-update-test' }, (ctx) => [createDeploymentController(ctx), createReplicaSetController(ctx)]);
    n = await startNode({ nodeName: NODE, nodeIP: '127.1.47.7', podCIDR: '127.130.47.0/24', server: cluster.ts });
    mkdirSync(n.scratch, { recursive: true });
    const program = join(n.scratch, 'node-app-v2.mjs');
    writeFileSync(program, newProgram);
    n.images.import(NEW_IMAGE, { entrypoint: program });
  });

  after(async () => {
    await n?.stop();
    await cluster?.stop();
    assert.deepEqual([...(n?.liveGroups ?? [])], [], 'no container process outlives the node');
  });

  const patchImage = (pod: string, container: string, image: string) =>
    n.ts.kubectl(['patch', `pod/${pod}`, '-n', 'default', '-p', JSON.stringify({ spec: { containers: [{ name: container, image }] } })]);
  const messages = async (pod: string, reason: string) => (await n.events(pod)).filter((e) => e.reason === reason).map((e) => e.message);

  it('restarts a process container of a Deployment\'s pod from the new image, and the controllers leave it so', async () => {
    const pidFile = join(n.scratch, 'op.pid');
    const markFile = join(n.scratch, 'op.mark');
    const template = appContainer('c', ['serve'], { env: [{ name: 'PID_FILE', value: pidFile }, { name: 'MARK_FILE', value: markFile }] });
    const deployment: V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'op', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'op' } },
        // Bound by the template: no scheduler runs here.
        template: { metadata: { labels: { app: 'op' } }, spec: { nodeName: NODE, automountServiceAccountToken: false, terminationGracePeriodSeconds: 1, containers: [template] } },
      },
    };
    await n.client.create(resources.deployments, deployment);
    const pods = async () => (await n.client.list<V1Pod>(resources.pods, 'default', { labelSelector: 'app=op' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    const first = await until('the Deployment\'s pod to run', async () => {
      const [p] = await pods();
      return containerStatus(p, 'c')?.state?.running && pidIn(pidFile) !== undefined && p;
    });
    const name = first.metadata!.name!;
    const oldPid = pidIn(pidFile)!;
    assert.equal(containerStatus(first, 'c')?.image, APP_IMAGE);

    const patched = await patchImage(name, 'c', NEW_IMAGE);
    assert.equal(patched.code, 0, patched.stderr);
    const restarted = await until('the container to run the new image', async () => {
      const p = await n.pod(name);
      const cs = containerStatus(p, 'c');
      return cs?.image === NEW_IMAGE && cs.state?.running && cs.restartCount === 1 && p;
    });
    const mark = await until('the new program to start', () => {
      try {
        return readFileSync(markFile, 'utf8') || undefined;
      } catch {
        return undefined;
      }
    });
    assert.match(mark, /^v2 \d+$/);
    assert.ok(pidGone(oldPid), 'the old image\'s process was stopped');
    assert.ok(containerStatus(restarted, 'c')?.lastState?.terminated, 'the killed run is the last state');
    await until('a Killing event saying why', async () => (await messages(name, 'Killing')).includes('Container c definition changed, will be restarted'));

    // Nothing reverts it: scaling makes both controllers reconcile with the patched pod among
    // theirs, and once they have (the Deployment observed, both replicas available) it is untouched.
    await n.client.patch(resources.deployments, 'default', 'op', { spec: { replicas: 2 } }, { type: 'merge' });
    await until('the Deployment to observe its scale and have two available replicas', async () => {
      const d = await n.client.get<V1Deployment>(resources.deployments, 'default', 'op');
      return d.status?.observedGeneration === d.metadata?.generation && d.status?.availableReplicas === 2 && d.status.updatedReplicas === 2;
    });
    const after = await n.pod(name);
    assert.equal(after?.metadata?.uid, first.metadata?.uid, 'the same pod');
    assert.equal(after?.spec?.containers[0]?.image, NEW_IMAGE);
    assert.equal(containerStatus(after, 'c')?.image, NEW_IMAGE);
    assert.equal(containerStatus(after, 'c')?.restartCount, 1);
    assert.equal(readFileSync(markFile, 'utf8'), mark, 'the new program still runs, not restarted again');
    const others = (await pods()).filter((p) => p.metadata?.name !== name);
    assert.deepEqual(others.map((p) => p.spec?.containers[0]?.image), [APP_IMAGE], 'a new replica comes from the template');
    const sets = await n.client.list<V1ReplicaSet>(resources.replicaSets, 'default', { labelSelector: 'app=op' });
    assert.equal(sets.items.length, 1, 'no rollout: the template did not change');
  });

  it('restarts a simulated container from its new image whatever the restart policy, and refuses other spec changes', async () => {
    await n.client.create(resources.pods, boundPod('sim', NODE, { containers: [{ name: 'c', image: 'example.test/sim:1' }], restartPolicy: 'Never' }));
    await until('the simulated container to run', async () => containerStatus(await n.pod('sim'), 'c')?.state?.running);
    const patched = await patchImage('sim', 'c', 'example.test/sim:2');
    assert.equal(patched.code, 0, patched.stderr);
    await until('the simulated container to run the new image', async () => {
      const cs = containerStatus(await n.pod('sim'), 'c');
      return cs?.image === 'example.test/sim:2' && cs.state?.running && cs.restartCount === 1;
    });
    assert.equal((await n.pod('sim'))?.status?.phase, 'Running');
    await until('a Killing event saying why', async () => (await messages('sim', 'Killing')).includes('Container c definition changed, will be restarted'));

    const refused = await n.ts.kubectl(['patch', 'pod/sim', '-p', JSON.stringify({ spec: { containers: [{ name: 'c', args: ['x'] }] } })]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /The Pod "sim" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
    await n.client.deleteIfExists(resources.pods, 'default', 'sim');
  });
});
