/**
 * Node IPAM against the real API server: nodes that register together each get a range of
 * their own (ranges are chosen concurrently), and a deleted node's range is free again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { createNodeIpamController } from '../../src/cluster/nodeipam/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until, type UntilOptions } from '../support/until.ts';

const POLL: UntilOptions = { timeoutMs: 20_000, everyMs: 50 };

describe('node IPAM', () => {
  let cluster: RunningControllers;
  let client: ApiClient;

  const cidrs = async (): Promise<Map<string, string | undefined>> =>
    new Map((await client.list<V1Node>(resources.nodes)).items.map((n) => [n.metadata!.name!, n.spec?.podCIDR]));

  before(async () => {
    cluster = await startControllers({ userAgent: 'nodeipam-test' }, (ctx) => [createNodeIpamController(ctx, { clusterCIDR: '127.128.0.0/9', nodeCIDRMaskSize: 24 })]);
    ({ client } = cluster);
  });

  after(() => cluster?.stop());

  it('gives nodes registering together a range each, and a later node one no live node has', async () => {
    await Promise.all(Array.from({ length: 60 }, (_, i) => client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: `n${i}` } })));
    const assigned = await until('every node to have a pod CIDR', async () => {
      const m = await cidrs();
      return [...m.values()].every(Boolean) && m.size === 60 ? m : undefined;
    }, POLL);
    assert.equal(new Set(assigned.values()).size, 60, 'no range given twice');
    const freed = assigned.get('n7')!;
    await client.delete(resources.nodes, undefined, 'n7');
    await until('n7 gone', async () => ((await cidrs()).has('n7') ? undefined : true), POLL);
    await client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'late' } });
    const late = await until('a range for the late node', async () => (await cidrs()).get('late'), POLL);
    assert.ok(!new Set([...assigned.values()].filter((c) => c !== freed)).has(late), `${late} was already taken`);
  });
});
