/**
 * The Shipyard machine provider against the real simulated cloud (its engine and HTTP API, as
 * `shipyard up` runs them) and a real API server holding the Secrets it reads. Lives under test/
 * because an operator may not import cloud/. Covered: a launch named and tagged after the Machine,
 * booting the user data from its Secret; what update reports; create and exists finding an
 * instance launched before the providerID was written (no second launch); an instance known only
 * by providerID (launched by the installer, untagged); an invalid providerSpec refused before
 * anything is launched, naming the field; delete done only once the instance is terminated;
 * missing Secrets; a cloud that does not answer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { machineAnnotations, machineLabels, type Machine } from '../../../src/api/machine/index.ts';
import { createCloud, type Cloud } from '../../../src/cloud/cloud.ts';
import { startCloudServer, type CloudServer } from '../../../src/cloud/server.ts';
import { MachineError, RequeueAfterError } from '../../../src/operators/machine-api/providers/provider.ts';
import { cloudCredentialsSecret, providerSpecFor, userDataSecret } from '../../../src/operators/machine-api/providers/shipyard/install.ts';
import { machineTag, ShipyardProvider } from '../../../src/operators/machine-api/providers/shipyard/provider.ts';
import { ApiClient } from '../../../src/runtime/client.ts';
import { resources } from '../../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

const NS = 'openshift-machine-api';
const CLUSTER = 'test-cluster-x7k2p';
const IGNITION = JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [{ path: '/etc/provider-test', contents: { source: 'data:,hello' } }] } });

function machine(name: string, value: Record<string, unknown> = providerSpecFor({ instanceType: 's.small', zone: 'local-b' }), providerID?: string): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name, namespace: NS, labels: { [machineLabels.cluster]: CLUSTER } },
    spec: { providerSpec: { value }, ...(providerID ? { providerID } : {}) },
  } as Machine;
}

const withProviderID = (m: Machine, providerID: string): Machine => ({ ...m, spec: { ...m.spec, providerID } });

async function rejectsWith<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E, check: (e: E) => void): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof type, `expected a ${type.name}, got ${String(err)}`);
    check(err);
    return;
  }
  assert.fail(`expected a ${type.name}`);
}

describe('Shipyard machine provider (real cloud)', () => {
  let ts: TestServer;
  let client: ApiClient;
  let dir: string;
  let cloud: Cloud;
  let server: CloudServer;
  let provider: ShipyardProvider;

  before(async () => {
    ts = await startTestServer();
    const kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kc, { userAgent: 'shipyard-provider-test' });
    dir = mkdtempSync(join(tmpdir(), 'shipyard-provider-cloud-'));
    cloud = await createCloud({ dataDir: dir, hooks: { boot: async () => {}, stop: async () => {} }, bootDelayMs: 0 });
    server = await startCloudServer({ cloud, dataDir: dir, token: 'provider-test-token' });
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await client.create(resources.secrets, cloudCredentialsSecret(NS, { url: server.url, token: 'provider-test-token' }));
    await client.create(resources.secrets, userDataSecret(NS, 'worker-user-data', IGNITION));
    provider = new ShipyardProvider({ client, requeueAfterMs: 1234 });
  });
  after(async () => {
    client?.close();
    await server?.close();
    await cloud?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('launches an instance named and tagged after the Machine, booting the user data of its Secret', async () => {
    const m = machine('worker-a');
    const update = await provider.create(m);
    const [instance] = cloud.list({ name: 'worker-a' });
    assert.ok(instance, 'an instance named after the Machine');
    assert.equal(instance.type, 's.small');
    assert.equal(instance.zone, 'local-b');
    assert.equal(instance.userData, IGNITION);
    assert.equal(instance.tags[machineTag], `${NS}/worker-a`);
    assert.equal(instance.tags[`kubernetes.io/cluster/${CLUSTER}`], 'owned');
    assert.equal(instance.tags.Name, 'worker-a');
    assert.deepEqual(update, {
      providerID: instance.providerID,
      addresses: [
        { type: 'InternalIP', address: instance.privateIP },
        { type: 'InternalDNS', address: 'worker-a' },
        { type: 'Hostname', address: 'worker-a' },
      ],
      providerStatus: { apiVersion: 'machine.openshift.io/v1beta1', kind: 'ShipyardMachineProviderStatus', instanceId: instance.id, instanceState: 'pending' },
      labels: { [machineLabels.instanceType]: 's.small', [machineLabels.region]: 'local', [machineLabels.zone]: 'local-b' },
      annotations: { [machineAnnotations.instanceState]: 'pending' },
    });
    await cloud.settled(instance.id);
    const later = await provider.update(withProviderID(m, instance.providerID));
    assert.equal(later.annotations?.[machineAnnotations.instanceState], 'running');
    assert.equal((later.providerStatus as { instanceState: string }).instanceState, 'running');
  });

  it('finds by tag an instance whose providerID was never written, and never launches a second', async () => {
    const m = machine('worker-b');
    assert.equal(await provider.exists(m), false);
    const first = await provider.create(m);
    // The status write was lost: the Machine still has no providerID.
    assert.equal(await provider.exists(m), true);
    const again = await provider.create(m);
    assert.equal(again.providerID, first.providerID);
    assert.equal(cloud.list({ name: 'worker-b' }).length, 1);
    assert.equal((await provider.update(m)).providerID, first.providerID);
  });

  it('finds an instance the installer launched (no tags) by its providerID, and terminates it', async () => {
    const launched = await cloud.runInstance({ name: 'master-9', type: 's.small', zone: 'local-a' });
    await cloud.settled(launched.id);
    const m = machine('master-9', providerSpecFor({ instanceType: 's.small', zone: 'local-a' }), launched.providerID);
    assert.equal(await provider.exists(m), true);
    assert.equal((await provider.update(m)).providerID, launched.providerID);
    await rejectsWith(provider.delete(m), RequeueAfterError, (e) => assert.equal(e.requeueAfterMs, 1234));
    await cloud.settled(launched.id);
    await provider.delete(m);
    assert.equal(cloud.get(launched.id)?.state, 'terminated');
    assert.equal(await provider.exists(m), false);
  });

  it('refuses an invalid providerSpec before launching anything, naming the field', async () => {
    const m = machine('worker-bad', providerSpecFor({ instanceType: 'x.huge' }));
    await rejectsWith(provider.create(m), MachineError, (e) => {
      assert.equal(e.reason, 'InvalidConfiguration');
      assert.equal(e.field, 'spec.providerSpec.value.instanceType');
      assert.match(e.message, /^spec\.providerSpec\.value\.instanceType: Unsupported value: "x\.huge": supported values: "s\.small", "s\.medium", "s\.large", "s\.xlarge", "m6i\.large"/);
    });
    const zone = machine('worker-bad', providerSpecFor({ instanceType: 's.small', zone: 'mars-1' }));
    await rejectsWith(provider.create(zone), MachineError, (e) => assert.equal(e.message, 'spec.providerSpec.value.zone: Unsupported value: "mars-1": supported values: "local-a", "local-b", "local-c"'));
    assert.equal(cloud.list({ name: 'worker-bad' }).length, 0);
    // Deleting it needs nothing of the spec but the credentials: done at once.
    await provider.delete(m);
  });

  it('deletes: terminates, then reports done only once the instance is terminated', async () => {
    const m = machine('worker-c');
    const { providerID } = await provider.create(m);
    const written = withProviderID(m, providerID!);
    await rejectsWith(provider.delete(written), RequeueAfterError, (e) => assert.match(e.message, /is being terminated/));
    const [instance] = cloud.list({ name: 'worker-c' });
    assert.ok(instance?.state === 'shutting-down' || instance?.state === 'terminated');
    await cloud.settled(instance.id);
    await provider.delete(written);
    assert.equal(await provider.exists(written), false);
    assert.equal(await provider.exists(m), false, 'by tag too: a terminated instance does not count');
  });

  it('a missing Secret is an error to retry, naming it, not an invalid Machine', async () => {
    const m = machine('worker-d', providerSpecFor({ instanceType: 's.small', userDataSecret: 'no-such-user-data' }));
    await rejectsWith(provider.create(m), MachineError, (e) => {
      assert.equal(e.reason, 'CreateError');
      assert.match(e.message, /Secret openshift-machine-api\/no-such-user-data \(spec\.providerSpec\.value\.userDataSecret\.name\) not found/);
    });
    const creds = machine('worker-d', providerSpecFor({ instanceType: 's.small', credentialsSecret: 'nope' }));
    await rejectsWith(provider.exists(creds), MachineError, (e) => assert.match(e.message, /Secret openshift-machine-api\/nope/));
    assert.equal(cloud.list({ name: 'worker-d' }).length, 0);
  });

  it('a cloud that does not answer is a requeue, not a failure', async () => {
    const closed = await startCloudServer({ cloud, dataDir: dir, token: 'provider-test-token' });
    await closed.close();
    await client.create(resources.secrets, cloudCredentialsSecret(NS, { url: closed.url, token: 'provider-test-token' }, 'gone-cloud'));
    const m = machine('worker-e', providerSpecFor({ instanceType: 's.small', credentialsSecret: 'gone-cloud' }));
    await rejectsWith(provider.create(m), RequeueAfterError, (e) => assert.equal(e.requeueAfterMs, 1234));
    await rejectsWith(provider.exists(m), RequeueAfterError, () => {});
  });
});
