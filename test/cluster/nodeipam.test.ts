/**
 * Node IPAM against the real API server: nodes that register together each get a range of
 * their own (ranges are chosen concurrently), and a deleted node's range is free again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1Node } from '@kubernetes/client-node';
import pino from 'pino';
import { createNodeIpamController } from '../../src/cluster/nodeipam/controller.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { realClock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('node IPAM', () => {
  let ts: TestServer;
  let client: ApiClient;
  const stop = new AbortController();
  let running: Promise<unknown>;

  const cidrs = async (): Promise<Map<string, string | undefined>> =>
    new Map((await client.list<V1Node>(resources.nodes)).items.map((n) => [n.metadata!.name!, n.spec?.podCIDR]));

  before(async () => {
    ts = await startTestServer();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: 'nodeipam-test' });
    const informers = new InformerFactory({ client, signal: stop.signal });
    const ctx: ControllerContext = { client, informers, recorder: { event: () => {} }, logger: pino({ level: 'silent' }), clock: realClock };
    const controller = createNodeIpamController(ctx, { clusterCIDR: '127.128.0.0/9', nodeCIDRMaskSize: 24 });
    await informers.waitForSync();
    running = controller.run(stop.signal);
  });

  after(async () => {
    stop.abort();
    await running;
    client.close();
    await ts.stop();
  });

  it('gives nodes registering together a range each, and a later node one no live node has', async () => {
    await Promise.all(Array.from({ length: 60 }, (_, i) => client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}` } })));
    const assigned = await until('every node to have a pod CIDR', async () => {
      const m = await cidrs();
      return [...m.values()].every(Boolean) && m.size === 60 ? m : undefined;
    });
    assert.equal(new Set(assigned.values()).size, 60, 'no range given twice');
    const freed = assigned.get('n7')!;
    await client.delete(resources.nodes, undefined, 'n7');
    await until('n7 gone', async () => ((await cidrs()).has('n7') ? undefined : true));
    await client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'late' } });
    const late = await until('a range for the late node', async () => (await cidrs()).get('late'));
    assert.ok(!new Set([...assigned.values()].filter((c) => c !== freed)).has(late), `${late} was already taken`);
  });
});
