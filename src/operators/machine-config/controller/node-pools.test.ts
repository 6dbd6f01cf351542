import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { nodesOfPool, primaryPoolForNode } from './node-pools.ts';
import { node, targetedPool } from './testing.ts';
import { renderedConfigsInUse, isRenderedConfig } from './rendered-gc.ts';
import { sshKeysOf } from './template-controller.ts';

const poolFor = (name: string): MachineConfigPool => targetedPool(name, `rendered-${name}-x`);
const roles = (...rs: string[]) => Object.fromEntries(rs.map((r) => [`node-role.kubernetes.io/${r}`, '']));
const nameOf = (r: ReturnType<typeof primaryPoolForNode>) => r.pool?.metadata?.name;

describe('primaryPoolForNode', () => {
  const pools = ['master', 'worker', 'infra', 'gpu'].map(poolFor);

  it('master beats worker, one custom pool beats worker, master beats a custom pool (with a warning)', () => {
    assert.equal(nameOf(primaryPoolForNode(node('n', { labels: roles('master') }), pools)), 'master');
    assert.equal(nameOf(primaryPoolForNode(node('n', { labels: roles('master', 'worker') }), pools)), 'master');
    assert.equal(nameOf(primaryPoolForNode(node('n', { labels: roles('infra') }), pools)), 'infra');
    assert.equal(nameOf(primaryPoolForNode(node('n'), pools)), 'worker');
    const both = primaryPoolForNode(node('n', { labels: roles('master', 'infra') }), pools);
    assert.equal(nameOf(both), 'master');
    assert.match(both.error ?? (both as { warning?: string }).warning ?? '', /custom pool infra, defaulting to master/);
  });

  it('a node in two custom pools belongs to none, and says why', () => {
    const r = primaryPoolForNode(node('n', { labels: roles('infra', 'gpu') }), pools);
    assert.equal(r.pool, undefined);
    assert.equal(r.error, 'node n belongs to 2 custom roles, cannot proceed with this Node (pools gpu, infra)');
    assert.deepEqual(nodesOfPool(pools[2]!, [node('n', { labels: roles('infra', 'gpu') })], pools), []);
  });

  it('a nil or empty node selector selects no node', () => {
    const nil = poolFor('nil');
    delete nil.spec.nodeSelector;
    const empty = poolFor('empty');
    empty.spec.nodeSelector = {};
    assert.deepEqual(primaryPoolForNode(node('n', { labels: {} }), [nil, empty]), {});
  });

  it('a pool\'s nodes are those whose primary pool it is', () => {
    const nodes = [node('w1'), node('i1', { labels: roles('infra') }), node('m1', { labels: roles('master') })];
    assert.deepEqual(nodesOfPool(pools[1]!, nodes, pools).map((n) => n.metadata?.name), ['w1']);
    assert.deepEqual(nodesOfPool(pools[2]!, nodes, pools).map((n) => n.metadata?.name), ['i1']);
  });
});

describe('rendered configs in use', () => {
  it('are those a pool targets or completed and those a node runs or is told to', () => {
    const pool = poolFor('worker');
    pool.status = { configuration: { name: 'rendered-worker-done' } };
    const inUse = renderedConfigsInUse([pool], [node('w1', { current: 'rendered-worker-cur', desired: 'rendered-worker-des' })]);
    assert.deepEqual([...inUse].sort(), ['rendered-worker-cur', 'rendered-worker-des', 'rendered-worker-done', 'rendered-worker-x']);
    const mc = (name: string, generated: boolean) => ({ metadata: { name, annotations: (generated ? { 'machineconfiguration.openshift.io/generated-by-controller-version': 'v' } : {}) as Record<string, string> }, spec: {} });
    assert.deepEqual([isRenderedConfig(mc('rendered-worker-a', true)), isRenderedConfig(mc('rendered-worker-a', false)), isRenderedConfig(mc('00-worker', true))], [true, false, false]);
  });
});

describe('the install configuration\'s sshKey', () => {
  it('gives one key a line, none when absent', () => {
    assert.deepEqual(sshKeysOf('apiVersion: v1\nsshKey: |\n  ssh-ed25519 AAAA1 a\n  ssh-rsa BBBB b\n'), ['ssh-ed25519 AAAA1 a', 'ssh-rsa BBBB b']);
    assert.deepEqual(sshKeysOf('sshKey: ssh-ed25519 AAAA1 a'), ['ssh-ed25519 AAAA1 a']);
    assert.deepEqual([sshKeysOf(undefined), sshKeysOf('baseDomain: x')], [[], []]);
    assert.throws(() => sshKeysOf('sshKey: [unclosed'), /install-config is not YAML/);
  });
});
