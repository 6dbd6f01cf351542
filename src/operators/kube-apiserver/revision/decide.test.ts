import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { confirmedDecision, decideRevision, latestReadyRevision, newRevisionMessage, type DataGetter, type DataObject, type RevisionDecision, type RevisionInput } from './decide.ts';

const status = (n: number, ready: string | undefined, name = `revision-status-${n}`): DataObject => ({
  metadata: { name, annotations: ready === undefined ? {} : { 'operator.openshift.io/revision-ready': ready } },
  data: { revision: String(n) },
});

describe('latestReadyRevision', () => {
  const cases: { name: string; cms: DataObject[]; want: number }[] = [
    { name: 'none', cms: [], want: 0 },
    { name: 'highest ready wins', cms: [status(1, 'true'), status(3, 'true'), status(2, 'true')], want: 3 },
    { name: 'an unready one is not a revision yet', cms: [status(1, 'true'), status(2, 'false')], want: 1 },
    { name: 'no annotation is not ready', cms: [status(4, undefined)], want: 0 },
    { name: 'other ConfigMaps are ignored', cms: [status(9, 'true', 'config-9'), status(1, 'true')], want: 1 },
    { name: 'a garbled revision is ignored', cms: [{ metadata: { name: 'revision-status-x', annotations: { 'operator.openshift.io/revision-ready': 'true' } }, data: { revision: 'x' } }], want: 0 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(latestReadyRevision(c.cms), c.want));
});

describe('decideRevision', () => {
  const inputs: RevisionInput[] = [
    { kind: 'configmap', name: 'kube-apiserver-pod' },
    { kind: 'configmap', name: 'config' },
    { kind: 'configmap', name: 'oauth-metadata', optional: true },
    { kind: 'secret', name: 'etcd-client' },
    { kind: 'secret', name: 'encryption-config', optional: true },
  ];
  const base: Record<string, Record<string, string>> = {
    'configmap/kube-apiserver-pod': { 'pod.yaml': 'p1' },
    'configmap/config': { 'config.yaml': 'c1' },
    'secret/etcd-client': { 'tls.key': 'a2V5' },
  };
  const withCopies = (objs: Record<string, Record<string, string>>, rev: number) =>
    Object.fromEntries(Object.entries(objs).flatMap(([k, v]) => [[k, v], [`${k}-${rev}`, v]]));
  const cases: { name: string; objs: Record<string, Record<string, string> | undefined>; latest: number; want: RevisionDecision }[] = [
    { name: 'revision 1: the pod copy of revision 0 is missing', objs: base, latest: 0, want: { kind: 'new', reason: 'configmaps "kube-apiserver-pod-0" not found' } },
    { name: 'everything equal', objs: withCopies(base, 3), latest: 3, want: { kind: 'current' } },
    { name: 'required ConfigMap changed', objs: { ...withCopies(base, 3), 'configmap/config': { 'config.yaml': 'c2' } }, latest: 3, want: { kind: 'new', reason: 'required configmap/config has changed' } },
    { name: 'a key added counts as changed', objs: { ...withCopies(base, 3), 'configmap/config': { 'config.yaml': 'c1', extra: '' } }, latest: 3, want: { kind: 'new', reason: 'required configmap/config has changed' } },
    {
      name: 'secrets are listed first',
      objs: { ...withCopies(base, 3), 'configmap/config': { 'config.yaml': 'c2' }, 'secret/etcd-client': { 'tls.key': 'bmV3' } },
      latest: 3,
      want: { kind: 'new', reason: 'required secret/etcd-client has changed,required configmap/config has changed' },
    },
    { name: 'optional input created', objs: { ...withCopies(base, 3), 'secret/encryption-config': { key: 'eA==' } }, latest: 3, want: { kind: 'new', reason: 'optional secret/encryption-config has been created' } },
    {
      name: 'optional input changed',
      objs: { ...withCopies(base, 3), 'configmap/oauth-metadata': { m: '2' }, 'configmap/oauth-metadata-3': { m: '1' } },
      latest: 3,
      want: { kind: 'new', reason: 'optional configmap/oauth-metadata has changed' },
    },
    { name: 'optional input removed', objs: { ...withCopies(base, 3), 'configmap/oauth-metadata-3': { m: '1' } }, latest: 3, want: { kind: 'new', reason: 'optional configmap/oauth-metadata has changed' } },
    { name: 'required input missing blocks', objs: { ...withCopies(base, 3), 'configmap/config': undefined }, latest: 3, want: { kind: 'blocked', message: 'configmaps "config" not found' } },
    { name: 'required secret missing blocks', objs: { ...withCopies(base, 3), 'secret/etcd-client': undefined }, latest: 3, want: { kind: 'blocked', message: 'secrets "etcd-client" not found' } },
    { name: 'a missing required copy is the reason', objs: { ...withCopies(base, 3), 'secret/etcd-client-3': undefined }, latest: 3, want: { kind: 'new', reason: 'secrets "etcd-client-3" not found' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const get = (kind: string, name: string): DataObject | undefined => {
        const data = c.objs[`${kind}/${name}`];
        return data === undefined ? undefined : { metadata: { name }, data };
      };
      assert.deepEqual(decideRevision(inputs, c.latest, get), c.want);
    });
  }
});

it('newRevisionMessage quotes the reason as upstream (%q)', () => {
  assert.equal(newRevisionMessage(2, 'required configmap/config has changed'), 'new revision 2 triggered by "required configmap/config has changed"');
});

describe('confirmedDecision', () => {
  const inputs: RevisionInput[] = [
    { kind: 'configmap', name: 'kube-apiserver-pod' },
    { kind: 'configmap', name: 'config' },
  ];
  const objects = (o: Record<string, Record<string, string>>) => new Map<string, DataObject>(Object.entries(o).map(([name, data]) => [`configmap/${name}`, { metadata: { name }, data }]));
  const getter = (m: Map<string, DataObject>): DataGetter => (kind, name) => m.get(`${kind}/${name}`);
  const reader = (m: Map<string, DataObject>) => {
    const reads: string[] = [];
    return { reads, read: async (kind: RevisionInput['kind'], name: string) => (reads.push(name), m.get(`${kind}/${name}`)) };
  };
  const pod = { 'pod.yaml': 'p' };
  const v3 = { 'config.yaml': '{"v":3}' };
  const v1 = { 'config.yaml': '{"v":1}' };

  it('cuts nothing when only the cache lacks the latest revision\'s copies (its status seen before its ConfigMaps)', async () => {
    const cache = objects({ 'kube-apiserver-pod': pod, config: v3, 'kube-apiserver-pod-1': pod, 'config-1': v1 });
    const live = objects({ 'kube-apiserver-pod': pod, config: v3, 'kube-apiserver-pod-2': pod, 'config-2': v3 });
    assert.deepEqual(decideRevision(inputs, 2, getter(cache)), { kind: 'new', reason: 'configmaps "kube-apiserver-pod-2" not found' }, 'what the cache alone would do');
    const { decision } = await confirmedDecision(inputs, 2, getter(cache), reader(live).read);
    assert.deepEqual(decision, { kind: 'current' });
  });

  it('a change the API server confirms is cut, copied from what it read rather than from an older cache', async () => {
    const cache = objects({ 'kube-apiserver-pod': pod, config: { 'config.yaml': '{"v":2}' }, 'kube-apiserver-pod-1': pod, 'config-1': v1 });
    const live = objects({ 'kube-apiserver-pod': pod, config: v3, 'kube-apiserver-pod-1': pod, 'config-1': v1 });
    const r = reader(live);
    const { decision, get } = await confirmedDecision(inputs, 1, getter(cache), r.read);
    assert.deepEqual(decision, { kind: 'new', reason: 'required configmap/config has changed' });
    assert.deepEqual(get('configmap', 'config')?.data, v3);
    assert.deepEqual(r.reads.sort(), ['config', 'config-1', 'kube-apiserver-pod', 'kube-apiserver-pod-1']);
  });

  it('reads nothing while the cache finds the revision current', async () => {
    const cache = objects({ 'kube-apiserver-pod': pod, config: v1, 'kube-apiserver-pod-1': pod, 'config-1': v1 });
    const r = reader(new Map());
    assert.deepEqual((await confirmedDecision(inputs, 1, getter(cache), r.read)).decision, { kind: 'current' });
    assert.deepEqual(r.reads, []);
  });
});
