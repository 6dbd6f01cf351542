import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { encodeDataUrl } from '../api/ignition/index.ts';
import { createCloud, type Cloud, type CloudHooks } from './cloud.ts';
import { CloudError } from './errors.ts';
import type { Fetcher } from './ignition-fetch.ts';
import { statePath, type Instance, type InstanceState } from './state.ts';

const dirs: string[] = [];

async function dataDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'shipyard-cloud-'));
  dirs.push(d);
  return d;
}

interface Recorder extends CloudHooks {
  readonly events: string[];
  failBoot?: string;
}

function recorder(): Recorder {
  const r: Recorder = {
    events: [],
    async boot(instance, root) {
      r.events.push(`boot ${instance.name} ${root}`);
      if (r.failBoot) throw new Error(r.failBoot);
    },
    async stop(instance) {
      r.events.push(`stop ${instance.name}`);
    },
  };
  return r;
}

const userData = (files: Record<string, string>) =>
  JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: Object.entries(files).map(([path, body]) => ({ path, contents: { source: encodeDataUrl(body) } })) } });

const clouds: Cloud[] = [];

/** A cloud engine closed when its test ends, however the test ends (closing twice is harmless). */
async function openCloud(options: Parameters<typeof createCloud>[0]): Promise<Cloud> {
  const cloud = await createCloud(options);
  clouds.push(cloud);
  return cloud;
}

async function settledState(cloud: Cloud, id: string): Promise<InstanceState | undefined> {
  await cloud.settled(id);
  return cloud.get(id)?.state;
}

async function cloudCode(p: Promise<unknown>, reason: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof CloudError, `expected a CloudError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    assert.match(err.message, message);
    return true;
  });
}

describe('cloud engine', () => {
  afterEach(() => Promise.all(clouds.splice(0).map((c) => c.close())));
  after(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

  it('launches an instance: pending, Ignition on the node root, boot hook, running', async () => {
    const dir = await dataDir();
    const hooks = recorder();
    const cloud = await openCloud({ dataDir: dir, hooks, bootDelayMs: 0, now: () => new Date('2026-03-04T05:06:07Z') });
    const seen: InstanceState[] = [];
    cloud.onChange((i) => seen.push(i.state));
    const launched = await cloud.runInstance({ name: 'worker-0', type: 's.large', userData: userData({ '/etc/hello': 'hi' }), tags: { role: 'worker' } });
    assert.equal(launched.state, 'pending');
    assert.match(launched.id, /^i-[0-9a-f]{17}$/);
    assert.equal(launched.privateIP, '127.1.0.1');
    assert.equal(launched.zone, 'local-a');
    assert.equal(launched.providerID, `shipyard://local/local-a/${launched.id}`);
    assert.equal(launched.createdAt, '2026-03-04T05:06:07.000Z');

    assert.equal(await settledState(cloud, launched.id), 'running');
    const root = join(dir, 'nodes/worker-0/root');
    assert.equal(cloud.nodeRoot('worker-0'), root);
    assert.equal(await readFile(join(root, 'etc/hello'), 'utf8'), 'hi');
    assert.deepEqual(hooks.events, [`boot worker-0 ${root}`]);
    assert.equal(cloud.get(launched.id)?.launchedAt, '2026-03-04T05:06:07.000Z');
    assert.deepEqual(seen, ['pending', 'pending', 'running']);
    assert.deepEqual(cloud.list({ tags: { role: 'worker' } }).map((i) => i.name), ['worker-0']);
    assert.deepEqual(cloud.list({ tags: { role: 'master' } }), []);
    await cloud.close();
  });

  it('stop, start and reboot call the hooks; Ignition does not run again', async () => {
    const dir = await dataDir();
    const hooks = recorder();
    const cloud = await openCloud({ dataDir: dir, hooks, bootDelayMs: 0 });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.medium', userData: userData({ '/etc/once': 'first' }) });
    await cloud.settled(id);
    await writeFile(join(cloud.nodeRoot('n1'), 'etc/once'), 'changed by the node');

    assert.equal((await cloud.stop(id)).state, 'stopping');
    assert.equal(await settledState(cloud, id), 'stopped');
    assert.equal((await cloud.stop(id)).state, 'stopped', 'stopping a stopped instance is a no-op');
    assert.equal((await cloud.start(id)).state, 'pending');
    assert.equal(await settledState(cloud, id), 'running');
    assert.equal((await cloud.reboot(id)).state, 'running');
    assert.equal(await settledState(cloud, id), 'running');
    assert.equal(await readFile(join(cloud.nodeRoot('n1'), 'etc/once'), 'utf8'), 'changed by the node');
    const root = cloud.nodeRoot('n1');
    assert.deepEqual(hooks.events, [`boot n1 ${root}`, 'stop n1', `boot n1 ${root}`, 'stop n1', `boot n1 ${root}`]);
    await cloud.close();
  });

  it('refuses transitions the state does not allow', async () => {
    const cloud = await openCloud({ dataDir: await dataDir(), hooks: recorder(), bootDelayMs: 0 });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.medium' });
    await cloud.stop(id);
    await cloud.settled(id);
    await cloudCode(cloud.reboot(id), 'IncorrectInstanceState', new RegExp(`instance ${id} is stopped; cannot reboot it`));
    await cloud.terminate(id);
    await cloud.settled(id);
    await cloudCode(cloud.start(id), 'IncorrectInstanceState', /is terminated; cannot start it/);
    await cloudCode(cloud.stop('i-00000000000000000'), 'InstanceNotFound', /instance "i-00000000000000000" does not exist/);
    await cloud.close();
  });

  it('terminate stops the node, deletes its root and frees the name', async () => {
    const dir = await dataDir();
    const hooks = recorder();
    const cloud = await openCloud({ dataDir: dir, hooks, bootDelayMs: 0 });
    const first = await cloud.runInstance({ name: 'n1', type: 's.medium' });
    await cloud.settled(first.id);
    await cloudCode(cloud.runInstance({ name: 'n1', type: 's.medium' }), 'NameInUse', /an instance named "n1" already exists/);
    assert.equal((await cloud.terminate(first.id)).state, 'shutting-down');
    assert.equal(await settledState(cloud, first.id), 'terminated');
    assert.ok(cloud.get(first.id)?.terminatedAt);
    await assert.rejects(stat(join(dir, 'nodes/n1')));
    assert.deepEqual(hooks.events.slice(-1), ['stop n1']);
    const second = await cloud.runInstance({ name: 'n1', type: 's.medium' });
    assert.notEqual(second.id, first.id);
    assert.equal(second.privateIP, '127.1.0.2', 'a freed address is not handed out again right away');
    await cloud.close();
  });

  it('spreads instances over the zones and honours an explicit zone', async () => {
    const cloud = await openCloud({ dataDir: await dataDir(), hooks: recorder(), bootDelayMs: 0 });
    const zonesGiven = [];
    for (const name of ['a', 'b', 'c', 'd']) zonesGiven.push((await cloud.runInstance({ name, type: 's.small' })).zone);
    assert.deepEqual(zonesGiven, ['local-a', 'local-b', 'local-c', 'local-a']);
    assert.equal((await cloud.runInstance({ name: 'e', type: 'm6i.xlarge', zone: 'local-c' })).zone, 'local-c');
    await cloud.settled();
    await cloud.close();
  });

  it('validates launch requests field by field', async () => {
    const cloud = await openCloud({ dataDir: await dataDir(), hooks: recorder(), bootDelayMs: 0 });
    const bad = (input: unknown) => cloud.runInstance(input as never);
    await cloudCode(bad({ name: 'x', type: 'huge' }), 'InvalidParameterValue', /^instance type "huge" is unknown \(known: s\.small, /);
    await cloudCode(bad({ type: 's.small' }), 'MissingParameter', /^name is required$/);
    await cloudCode(bad({ name: 'Bad_Name', type: 's.small' }), 'InvalidParameterValue', /^name "Bad_Name" is invalid: a lowercase RFC 1123 subdomain/);
    await cloudCode(bad({ name: 'x', type: 's.small', zone: 'mars-1' }), 'InvalidParameterValue', /^zone "mars-1" is unknown \(known: local-a, local-b, local-c\)/);
    await cloudCode(bad({ name: 'x', type: 's.small', userData: 42 }), 'InvalidParameterValue', /^userData must be a string/);
    await cloudCode(bad({ name: 'x', type: 's.small', tags: { a: 1 } }), 'InvalidParameterValue', /^tag "a" must have a string value/);
    await cloudCode(bad({ name: 'x', type: 's.small', colour: 'red' }), 'InvalidParameterValue', /^unknown field "colour"/);
    await cloudCode(bad([]), 'BadRequest', /must be a JSON object/);
    assert.deepEqual(cloud.list(), []);
    await cloud.close();
  });

  it('an Ignition error leaves the instance failed, with the reason, and no node started', async () => {
    const hooks = recorder();
    const cloud = await openCloud({ dataDir: await dataDir(), hooks, bootDelayMs: 0 });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.small', userData: '{"ignition":{"version":"3.4.0"},"systemd":{"units":[{"name":"kubelet"}]}}' });
    assert.equal(await settledState(cloud, id), 'failed');
    const reason = cloud.get(id)?.stateReason;
    assert.equal(reason?.code, 'Ignition.Failed');
    assert.match(reason?.message ?? '', /^Ignition failed: invalid Ignition config: systemd\.units\[0\]\.name: invalid systemd unit extension/);
    assert.deepEqual(hooks.events, []);
    await cloud.terminate(id);
    assert.equal(await settledState(cloud, id), 'terminated');
    await cloud.close();
  });

  it('a failing boot hook leaves the instance failed; start tries again', async () => {
    const hooks = recorder();
    hooks.failBoot = 'kubelet would not start';
    const cloud = await openCloud({ dataDir: await dataDir(), hooks, bootDelayMs: 0 });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.small' });
    assert.equal(await settledState(cloud, id), 'failed');
    assert.deepEqual(cloud.get(id)?.stateReason, { code: 'Boot.Failed', message: 'node failed to start: kubelet would not start' });
    hooks.failBoot = undefined;
    await cloud.start(id);
    assert.equal(await settledState(cloud, id), 'running');
    assert.equal(cloud.get(id)?.stateReason, undefined);
    assert.deepEqual(hooks.events.map((e) => e.split(' ')[0]), ['boot', 'stop', 'boot']);
    await cloud.close();
  });

  it('stopping an instance that waits for its config server cancels the boot', async () => {
    const hooks = recorder();
    let fetching!: () => void;
    const fetchStarted = new Promise<void>((resolve) => (fetching = resolve));
    const hang: Fetcher = (req) =>
      new Promise((_resolve, reject) => {
        fetching();
        req.signal?.addEventListener('abort', () => reject(req.signal?.reason));
      });
    const cloud = await openCloud({ dataDir: await dataDir(), hooks, bootDelayMs: 0, fetch: hang });
    const pointer = JSON.stringify({ ignition: { version: '3.4.0', config: { merge: [{ source: 'https://127.0.0.1:22623/config/worker' }] } } });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.small', userData: pointer });
    await fetchStarted; // the boot reached the config fetch
    await cloud.stop(id);
    assert.equal(await settledState(cloud, id), 'stopped');
    assert.deepEqual(hooks.events, []);
    await cloud.close();
  });

  it('persists state atomically and resumes it in a new engine', async () => {
    const dir = await dataDir();
    const hooks = recorder();
    const cloud = await openCloud({ dataDir: dir, hooks, bootDelayMs: 0 });
    const running = await cloud.runInstance({ name: 'running', type: 's.small', userData: userData({ '/etc/a': 'a' }) });
    const stopped = await cloud.runInstance({ name: 'stopped', type: 's.small' });
    await cloud.settled();
    await cloud.stop(stopped.id);
    await cloud.settled();
    await cloud.close();

    assert.equal((await stat(statePath(dir))).mode & 0o777, 0o600);
    assert.deepEqual((await readdir(join(dir, 'cloud'))).sort(), ['state.json']);
    const saved = JSON.parse(await readFile(statePath(dir), 'utf8')) as { instances: Instance[] };
    assert.deepEqual(saved.instances.map((i) => [i.name, i.state]), [['running', 'running'], ['stopped', 'stopped']]);

    // Simulate a crash mid-stop and mid-terminate: the next engine finishes them.
    saved.instances.push({ ...saved.instances[1]!, id: 'i-0123456789abcdef0', name: 'halfstopped', privateIP: '127.1.0.9', state: 'stopping' });
    saved.instances.push({ ...saved.instances[1]!, id: 'i-0123456789abcdef1', name: 'halfgone', privateIP: '127.1.0.10', state: 'shutting-down' });
    await writeFile(statePath(dir), JSON.stringify(saved));
    await rm(join(cloud.nodeRoot('running'), 'etc/a'));

    const hooks2 = recorder();
    const again = await openCloud({ dataDir: dir, hooks: hooks2, bootDelayMs: 0 });
    assert.equal(again.get(running.id)?.state, 'running');
    assert.deepEqual(hooks2.events, [], 'nothing boots before resume()');
    await again.resume();
    await again.settled();
    assert.deepEqual(hooks2.events, [`boot running ${again.nodeRoot('running')}`]);
    await assert.rejects(stat(join(again.nodeRoot('running'), 'etc/a')), 'Ignition did not run again');
    assert.equal(again.get('i-0123456789abcdef0')?.state, 'stopped');
    assert.equal(again.get('i-0123456789abcdef1')?.state, 'terminated');
    assert.equal(again.get(stopped.id)?.state, 'stopped');
    assert.equal((await again.runInstance({ name: 'new', type: 's.small' })).privateIP, '127.1.0.3', 'the address cursor survived');
    await again.settled();
    await again.close();
  });

  it('forgets terminated instances after the retention time', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const cloud = await openCloud({ dataDir: await dataDir(), hooks: recorder(), bootDelayMs: 0, now: () => new Date(now), terminatedRetentionMs: 60_000 });
    const { id } = await cloud.runInstance({ name: 'n1', type: 's.small' });
    await cloud.terminate(id);
    await cloud.settled();
    assert.equal(cloud.get(id)?.state, 'terminated');
    now += 61_000;
    await cloud.runInstance({ name: 'n2', type: 's.small' });
    await cloud.settled();
    assert.equal(cloud.get(id), undefined);
    await cloud.close();
  });
});
