/**
 * Acceptance suite: an unmodified kubectl 1.32 against the embedded API server. Every case
 * reads the resulting objects back (kubectl -o json or a raw request) rather than trusting
 * exit codes. The cases run in order and share one server: later cases use the Widget CRD,
 * the widgets and the `web` Deployment created by earlier ones.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, fixture, getObject, kubectlFails, kubectlJson, kubectlOk, parseTable, pollUntil, sendJson, withTimeout, type Json } from './support.ts';

const W = '/apis/example.com/v1/namespaces/default/widgets';
const uidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const agePattern = /^(\d+[smhd])+$/;

describe('kubectl against the embedded API server', { timeout: 110_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer({ controllers: true });
  });
  after(async () => {
    await ts?.stop();
  });

  const json = (args: readonly string[]) => kubectlJson(ts, args);
  const ok = (args: readonly string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }) => kubectlOk(ts, args, opts);
  const fails = (args: readonly string[], opts?: { input?: string; env?: Record<string, string> }) => kubectlFails(ts, args, opts);
  const apply = (obj: unknown, extra: readonly string[] = []) => ok(['apply', ...extra, '-f', '-'], { input: JSON.stringify(obj) });
  const create = (obj: unknown) => ok(['create', '-f', '-'], { input: JSON.stringify(obj) });

  it('api-resources lists the built-in resources with short names, groups and scope', async () => {
    const names = (await ok(['api-resources', '-o', 'name'])).stdout.split('\n').map((l) => l.trim());
    for (const n of ['pods', 'deployments.apps', 'customresourcedefinitions.apiextensions.k8s.io', 'poddisruptionbudgets.policy', 'leases.coordination.k8s.io', 'events.events.k8s.io', 'namespaces', 'nodes', 'configmaps', 'replicasets.apps']) {
      assert.ok(names.includes(n), `api-resources -o name lacks ${n}: ${JSON.stringify(names)}`);
    }
    const table = parseTable((await ok(['api-resources'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const row = (name: string, apiVersion: string) => table.rows.find((r) => r[0] === name && r[2] === apiVersion);
    assert.deepEqual(row('pods', 'v1'), ['pods', 'po', 'v1', 'true', 'Pod']);
    assert.deepEqual(row('deployments', 'apps/v1'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    assert.deepEqual(row('customresourcedefinitions', 'apiextensions.k8s.io/v1'), ['customresourcedefinitions', 'crd,crds', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition']);
    assert.deepEqual(row('poddisruptionbudgets', 'policy/v1'), ['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']);
    assert.deepEqual(row('leases', 'coordination.k8s.io/v1'), ['leases', '', 'coordination.k8s.io/v1', 'true', 'Lease']);
    assert.deepEqual(row('events', 'events.k8s.io/v1'), ['events', 'ev', 'events.k8s.io/v1', 'true', 'Event']);
    assert.deepEqual(row('nodes', 'v1'), ['nodes', 'no', 'v1', 'false', 'Node']);
    // The legacy discovery document agrees (drain depends on it, including pods/eviction).
    const core = await getObject(ts, '/api/v1');
    const pods = core.resources.find((r: Json) => r.name === 'pods');
    assert.equal(pods.namespaced, true);
    assert.deepEqual(pods.shortNames, ['po']);
    assert.ok(core.resources.some((r: Json) => r.name === 'pods/eviction'), 'GET /api/v1 lacks pods/eviction');
    assert.ok(core.resources.some((r: Json) => r.name === 'pods/status'), 'GET /api/v1 lacks pods/status');
  });

  it('apply -f of a CRD establishes it; apply -f of Widgets stores them with schema defaults', async () => {
    await ok(['apply', '-f', fixture('widget-crd.yaml')]);
    await pollUntil('CRD Established=True', async () => {
      const r = await ts.kubectl(['get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
      return r.code === 0 && r.stdout.trim() === 'True';
    });
    const crd = await json(['crd', 'widgets.example.com']);
    assert.equal(crd.spec.group, 'example.com');
    assert.equal(crd.status.acceptedNames.kind, 'Widget');
    assert.deepEqual(crd.status.acceptedNames.shortNames, ['wd']);
    assert.equal(crd.status.conditions.find((c: Json) => c.type === 'NamesAccepted')?.status, 'True');
    assert.deepEqual(crd.status.storedVersions, ['v1']);

    const applied = await ok(['apply', '-f', fixture('widgets.yaml')]);
    assert.match(applied.stdout, /widget\.example\.com\/w1 created/);
    assert.match(applied.stdout, /widget\.example\.com\/w2 created/);
    const list = await json(['widgets']);
    assert.equal(list.kind, 'List');
    const byName = new Map<string, Json>(list.items.map((i: Json) => [i.metadata.name, i]));
    assert.deepEqual([...byName.keys()].sort(), ['w1', 'w2']);
    assert.deepEqual(byName.get('w1').spec, { size: 'S', color: 'red', replicas: 1 }, 'replicas defaults to 1 when omitted');
    assert.deepEqual(byName.get('w2').spec, { size: 'L', color: 'blue', replicas: 3 });
    // The default is persisted, not only shown.
    const raw = await getObject(ts, `${W}/w1`);
    assert.equal(raw.spec.replicas, 1);
    assert.equal(raw.apiVersion, 'example.com/v1');
    assert.equal(raw.kind, 'Widget');
    assert.ok(raw.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], 'client-side apply stores last-applied-configuration');

    // Discovery now lists the new resource.
    const table = parseTable((await ok(['api-resources', '--api-group=example.com'])).stdout);
    assert.deepEqual(table.rows.find((r) => r[0] === 'widgets'), ['widgets', 'wd', 'example.com/v1', 'true', 'Widget']);
    const names = (await ok(['api-resources', '-o', 'name'])).stdout.split('\n');
    assert.ok(names.includes('widgets.example.com'), 'api-resources -o name lacks widgets.example.com');
  });

  it('get widgets prints the CRD printer columns; get pods and deployments print the usual headers', async () => {
    const widgets = parseTable((await ok(['get', 'widgets'])).stdout);
    assert.deepEqual(widgets.header, ['NAME', 'SIZE', 'REPLICAS', 'AGE']);
    assert.equal(widgets.rows.length, 2, JSON.stringify(widgets.rows));
    const [w1, w2] = widgets.rows;
    assert.deepEqual(w1.slice(0, 3), ['w1', 'S', '1']);
    assert.match(w1[3], agePattern);
    assert.deepEqual(w2.slice(0, 3), ['w2', 'L', '3']);
    const short = parseTable((await ok(['get', 'wd', 'w2'])).stdout);
    assert.deepEqual(short.rows.map((r) => r.slice(0, 3)), [['w2', 'L', '3']]);

    await ok(['apply', '-f', fixture('deployment-web.yaml')]);
    await create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    const deploys = parseTable((await ok(['get', 'deployments'])).stdout);
    assert.deepEqual(deploys.header, ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    const web = deploys.rows.find((r) => r[0] === 'web');
    assert.ok(web, `no web row: ${JSON.stringify(deploys.rows)}`);
    assert.deepEqual(web.slice(0, 4), ['web', '0/1', '0', '0']);
    assert.match(web[4], agePattern);
    const wide = parseTable((await ok(['get', 'deployments', '-o', 'wide'])).stdout);
    assert.deepEqual(wide.header, ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(wide.rows.find((r) => r[0] === 'web')?.slice(5), ['nginx', 'nginx:1.27', 'app=web']);

    const pods = parseTable((await ok(['get', 'pods'])).stdout);
    assert.deepEqual(pods.header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const solo = pods.rows.find((r) => r[0] === 'solo');
    assert.ok(solo, `no solo row: ${JSON.stringify(pods.rows)}`);
    assert.deepEqual(solo.slice(0, 4), ['solo', '0/1', 'Pending', '0']);
    const pod = await json(['pod', 'solo']);
    assert.equal(pod.status.phase, 'Pending', 'a new pod starts Pending');
  });

  it('get widget w1 -o yaml shows the fields and server-set metadata', async () => {
    const out = (await ok(['get', 'widget', 'w1', '-o', 'yaml'])).stdout;
    const w = parseYaml(out);
    assert.equal(w.apiVersion, 'example.com/v1');
    assert.equal(w.kind, 'Widget');
    assert.equal(w.metadata.name, 'w1');
    assert.equal(w.metadata.namespace, 'default');
    assert.match(w.metadata.uid, uidPattern);
    assert.match(String(w.metadata.resourceVersion), /^[1-9]\d*$/);
    assert.match(String(w.metadata.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(w.metadata.generation, 1);
    assert.deepEqual(w.spec, { size: 'S', color: 'red', replicas: 1 });
    for (const line of ['uid:', 'resourceVersion:', 'creationTimestamp:', 'generation: 1', 'size: S', 'color: red', 'replicas: 1']) assert.ok(out.includes(line), `yaml lacks ${line}:\n${out}`);
  });

  it('get widgets -w prints a change made by another kubectl', async () => {
    await ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3', namespace: 'default' }, spec: { size: 'S', replicas: 2 } }) });
    const child = ts.spawnKubectl(['get', 'widgets', '-w', '--output-watch-events']);
    let out = '';
    let err = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await pollUntil('initial watch rows', async () => /ADDED\s+w3\s+S\s+2\s/.test(out), { timeoutMs: 20_000 });
      await ok(['patch', 'widget', 'w3', '--type=merge', '-p', '{"spec":{"size":"M"}}']);
      await pollUntil('MODIFIED row for w3', async () => /MODIFIED\s+w3\s+M\s+2\s/.test(out), { timeoutMs: 15_000 }).catch((e: Error) => {
        throw new Error(`${e.message}\nwatch stdout:\n${out}\nwatch stderr:\n${err}`);
      });
      await ok(['label', 'widget', 'w3', 'seen=yes']);
      await pollUntil('second MODIFIED row for w3', async () => (out.match(/MODIFIED\s+w3\s/g) ?? []).length >= 2, { timeoutMs: 15_000 }).catch((e: Error) => {
        throw new Error(`${e.message}\nwatch stdout:\n${out}\nwatch stderr:\n${err}`);
      });
      assert.equal(child.exitCode, null, `the watch should still be running; stderr: ${err}`);
    } finally {
      child.kill('SIGTERM');
      await withTimeout(exited, 5_000, 'kubectl get -w exit').catch(() => child.kill('SIGKILL'));
    }
    const w3 = await getObject(ts, `${W}/w3`);
    assert.equal(w3.spec.size, 'M');
    assert.equal(w3.metadata.labels?.seen, 'yes');
  });

  it('edit through KUBE_EDITOR rewrites the stored object (and bumps generation)', async () => {
    const before = await getObject(ts, `${W}/w1`);
    const editor = join(ts.dataDir, 'edit-size.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i -E \'s/^( *)size: S$/\\1size: M/\' "$1"\n');
    chmodSync(editor, 0o755);
    const r = await ok(['edit', 'widget', 'w1'], { env: { KUBE_EDITOR: editor, EDITOR: editor } });
    assert.match(r.stdout, /widget\.example\.com\/w1 edited/, describeResult(['edit', 'widget', 'w1'], r));
    const after = await getObject(ts, `${W}/w1`);
    assert.equal(after.spec.size, 'M');
    assert.equal(after.spec.color, 'red', 'untouched fields survive');
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.equal(after.metadata.generation, before.metadata.generation + 1, 'a spec change bumps generation');
    assert.ok(Number(after.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    assert.ok(after.metadata.managedFields?.some((m: Json) => m.manager === 'kubectl-edit' && m.operation === 'Update'), `no kubectl-edit managedFields entry: ${JSON.stringify(after.metadata.managedFields)}`);
  });

  it('patch --type=json, --type=merge and --type=strategic change the stored objects; strategic on a CR is refused', async () => {
    await ok(['patch', 'widget', 'w2', '--type=json', '-p', '[{"op":"replace","path":"/spec/color","value":"green"},{"op":"add","path":"/metadata/labels","value":{"tier":"gold"}}]']);
    let w2 = await getObject(ts, `${W}/w2`);
    assert.equal(w2.spec.color, 'green');
    assert.equal(w2.metadata.labels.tier, 'gold');

    await ok(['patch', 'widget', 'w2', '--type=merge', '-p', '{"spec":{"size":"S","color":null}}']);
    w2 = await getObject(ts, `${W}/w2`);
    assert.equal(w2.spec.size, 'S');
    assert.equal('color' in w2.spec, false, 'merge patch null removes the key');
    assert.equal(w2.spec.replicas, 3);

    const patch = { spec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'B', value: '2' }] }] } } } };
    await ok(['patch', 'deployment', 'web', '--type=strategic', '-p', JSON.stringify(patch)]);
    const web = await json(['deployment', 'web']);
    const containers = web.spec.template.spec.containers;
    assert.equal(containers.length, 1, `containers merged by name: ${JSON.stringify(containers)}`);
    const c = containers[0];
    assert.equal(c.name, 'nginx');
    assert.equal(c.image, 'nginx:1.27', 'image survives the strategic merge');
    assert.equal(c.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    // Merged by name: both entries, each once. (Upstream places patch-only items before
    // server-only ones when no $setElementOrder is sent, so the order is not asserted.)
    assert.deepEqual([...c.env].sort((x: Json, y: Json) => x.name.localeCompare(y.name)), [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], 'env merged by name');
    assert.equal(web.metadata.generation, 2, 'a template change bumps the Deployment generation');

    const before = await getObject(ts, `${W}/w2`);
    const r = await fails(['patch', 'widget', 'w2', '--type=strategic', '-p', '{"spec":{"size":"M"}}']);
    assert.match(r.stderr, /UnsupportedMediaType|415|strategic/i, describeResult(['patch', '--type=strategic'], r));
    const raw = await ts.request('PATCH', `${W}/w2`, { body: '{"spec":{"size":"M"}}', contentType: 'application/strategic-merge-patch+json' });
    assert.equal(raw.status, 415, raw.body);
    assert.equal(JSON.parse(raw.body).reason, 'UnsupportedMediaType');
    const unchanged = await getObject(ts, `${W}/w2`);
    assert.equal(unchanged.spec.size, 'S');
    assert.equal(unchanged.metadata.resourceVersion, before.metadata.resourceVersion);
  });

  it('apply --server-side: a second manager conflicts, --force-conflicts takes the field over', async () => {
    const cm = (key: string, extra: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-cm', namespace: 'default' }, data: { key, ...extra } });
    const first = await apply(cm('one', { 'owned-by-a': 'yes' }), ['--server-side', '--field-manager=mgr-a']);
    assert.match(first.stdout, /configmap\/ssa-cm serverside-applied/);
    // kubectl get hides managedFields unless --show-managed-fields; read them raw.
    const readCm = () => getObject(ts, '/api/v1/namespaces/default/configmaps/ssa-cm');
    let stored = await readCm();
    assert.deepEqual(stored.data, { key: 'one', 'owned-by-a': 'yes' });
    const a = stored.metadata.managedFields.find((m: Json) => m.manager === 'mgr-a');
    assert.ok(a, `no mgr-a entry: ${JSON.stringify(stored.metadata.managedFields)}`);
    assert.equal(a.operation, 'Apply');
    assert.equal(a.fieldsType, 'FieldsV1');
    assert.ok(a.fieldsV1?.['f:data']?.['f:key'], `mgr-a should own f:data.f:key: ${JSON.stringify(a.fieldsV1)}`);

    const conflictArgs = ['apply', '--server-side', '--field-manager=mgr-b', '-f', '-'];
    const conflict = await ts.kubectl(conflictArgs, { input: JSON.stringify(cm('two')) });
    assert.notEqual(conflict.code, 0, describeResult(conflictArgs, conflict));
    assert.match(conflict.stderr, /conflict/i);
    assert.match(conflict.stderr, /\.data\.key/, 'the conflict names the field');
    assert.match(conflict.stderr, /mgr-a/, 'the conflict names the owner');
    stored = await readCm();
    assert.equal(stored.data.key, 'one', 'a conflicting apply changes nothing');

    await apply(cm('two'), ['--server-side', '--field-manager=mgr-b', '--force-conflicts']);
    stored = await readCm();
    const shown = await ok(['get', 'configmap', 'ssa-cm', '-o', 'json', '--show-managed-fields']);
    assert.ok(JSON.parse(shown.stdout).metadata.managedFields.some((m: Json) => m.manager === 'mgr-b'), 'kubectl --show-managed-fields shows the new owner');
    assert.equal(stored.data.key, 'two');
    assert.equal(stored.data['owned-by-a'], 'yes', "mgr-b's apply leaves mgr-a's other field alone");
    const owners = stored.metadata.managedFields.filter((m: Json) => m.fieldsV1?.['f:data']?.['f:key']).map((m: Json) => m.manager);
    assert.deepEqual(owners, ['mgr-b'], `only mgr-b owns .data.key now: ${JSON.stringify(stored.metadata.managedFields)}`);
    const b = stored.metadata.managedFields.find((m: Json) => m.manager === 'mgr-b');
    assert.equal(b.operation, 'Apply');
    const aAfter = stored.metadata.managedFields.find((m: Json) => m.manager === 'mgr-a');
    assert.ok(aAfter?.fieldsV1?.['f:data']?.['f:owned-by-a'], 'mgr-a keeps owning its other field');
  });

  it('scale changes spec.replicas of a Deployment and, through the scale subresource, of a Widget', async () => {
    await ok(['scale', 'deployment', 'web', '--replicas=3']);
    const web = await json(['deployment', 'web']);
    assert.equal(web.spec.replicas, 3);

    await ok(['scale', 'widget', 'w1', '--replicas=4']);
    const w1 = await getObject(ts, `${W}/w1`);
    assert.equal(w1.spec.replicas, 4);
    const scale = await getObject(ts, `${W}/w1/scale`);
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.metadata.name, 'w1');
    assert.equal(scale.metadata.uid, w1.metadata.uid);
    assert.equal(scale.spec.replicas, 4);
    const deployScale = await getObject(ts, '/apis/apps/v1/namespaces/default/deployments/web/scale');
    assert.equal(deployScale.spec.replicas, 3);
    assert.equal(deployScale.status.selector, 'app=web');
    // A scale beyond the schema maximum is refused.
    const r = await fails(['scale', 'widget', 'w1', '--replicas=11']);
    assert.match(r.stderr, /spec\.replicas/, r.stderr);
    assert.equal((await getObject(ts, `${W}/w1`)).spec.replicas, 4);
  });

  describe('delete --cascade of a Deployment owning ReplicaSets', () => {
    const deployment = (name: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
    const replicaSet = (name: string, owner: Json, extra: { finalizers?: string[] } = {}) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: 'default',
        labels: { app: owner.metadata.name },
        ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas: 0, selector: { matchLabels: { app: owner.metadata.name } }, template: { metadata: { labels: { app: owner.metadata.name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
    const D = '/apis/apps/v1/namespaces/default/deployments';
    const RS = '/apis/apps/v1/namespaces/default/replicasets';
    const setup = async (name: string, rsNames: string[], finalizers?: string[]) => {
      await create(deployment(name));
      const owner = await json(['deployment', name]);
      for (const rs of rsNames) await create(replicaSet(rs, owner, { finalizers }));
      for (const rs of rsNames) assert.equal((await json(['replicaset', rs])).metadata.ownerReferences[0].uid, owner.metadata.uid);
      return owner;
    };

    it('background: the Deployment goes at once and its ReplicaSets are garbage-collected', async () => {
      await setup('d-bg', ['d-bg-1', 'd-bg-2']);
      await ok(['delete', 'deployment', 'd-bg', '--cascade=background', '--timeout=30s']);
      assert.equal(await getObject(ts, `${D}/d-bg`), undefined, 'the Deployment is gone');
      await pollUntil('ReplicaSets d-bg-1 and d-bg-2 garbage-collected', async () => (await getObject(ts, `${RS}/d-bg-1`)) === undefined && (await getObject(ts, `${RS}/d-bg-2`)) === undefined);
    });

    it('foreground: the Deployment waits (foregroundDeletion) until its blocking ReplicaSet is gone', async () => {
      await setup('d-fg', ['d-fg-1'], ['example.com/hold']);
      await ok(['delete', 'deployment', 'd-fg', '--cascade=foreground', '--wait=false']);
      const rs = await pollUntil('the GC deletes the dependent ReplicaSet (deletionTimestamp set)', async () => {
        const o = await getObject(ts, `${RS}/d-fg-1`);
        return o?.metadata.deletionTimestamp ? o : undefined;
      });
      // The dependent is deleted in foreground too, so it may briefly carry foregroundDeletion itself.
      assert.ok(rs.metadata.finalizers.includes('example.com/hold'), `dependent finalizers: ${JSON.stringify(rs.metadata.finalizers)}`);
      const owner = await getObject(ts, `${D}/d-fg`);
      assert.ok(owner, 'the owner must stay while a blockOwnerDeletion dependent exists');
      assert.ok(owner.metadata.deletionTimestamp, 'the owner is marked for deletion');
      assert.ok(owner.metadata.finalizers?.includes('foregroundDeletion'), `owner finalizers: ${JSON.stringify(owner.metadata.finalizers)}`);
      await ok(['patch', 'replicaset', 'd-fg-1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
      await pollUntil('ReplicaSet d-fg-1 gone', async () => (await getObject(ts, `${RS}/d-fg-1`)) === undefined);
      await pollUntil('Deployment d-fg gone after its dependent', async () => (await getObject(ts, `${D}/d-fg`)) === undefined);
    });

    it('foreground without blockers: kubectl waits until both are gone', async () => {
      await setup('d-fg2', ['d-fg2-1']);
      await ok(['delete', 'deployment', 'd-fg2', '--cascade=foreground', '--timeout=30s']);
      assert.equal(await getObject(ts, `${D}/d-fg2`), undefined);
      assert.equal(await getObject(ts, `${RS}/d-fg2-1`), undefined, 'in foreground deletion the dependent goes before the owner');
    });

    it('orphan: the Deployment goes, the ReplicaSet stays without ownerReferences', async () => {
      await setup('d-or', ['d-or-1']);
      await ok(['delete', 'deployment', 'd-or', '--cascade=orphan', '--timeout=30s']);
      assert.equal(await getObject(ts, `${D}/d-or`), undefined, 'the Deployment is gone');
      const rs = await pollUntil('ownerReferences stripped from d-or-1', async () => {
        const o = await getObject(ts, `${RS}/d-or-1`);
        assert.ok(o, 'the orphaned ReplicaSet must survive');
        return (o.metadata.ownerReferences ?? []).length === 0 ? o : undefined;
      });
      assert.equal(rs.metadata.deletionTimestamp, undefined);
      // It is not collected later either: its owner is gone but it no longer has one.
      await ok(['label', 'replicaset', 'd-or-1', 'orphaned=yes']);
      assert.equal((await getObject(ts, `${RS}/d-or-1`))?.metadata.labels.orphaned, 'yes');
    });
  });

  it('explain prints CRD fields with their types', async () => {
    const size = (await ok(['explain', 'widgets.spec.size'])).stdout;
    assert.match(size, /KIND:\s+Widget/);
    assert.match(size, /VERSION:\s+v1/);
    assert.match(size, /FIELD:\s+size\s+<string>/);
    assert.match(size, /The size of the widget, one of S, M or L\./);
    const spec = (await ok(['explain', 'widget.spec'])).stdout;
    assert.match(spec, /FIELD:\s+spec\s+<Object>/);
    assert.match(spec, /The desired state of the widget\./);
    assert.match(spec, /^\s+color\s+<string>/m);
    assert.match(spec, /^\s+replicas\s+<integer>/m);
    assert.match(spec, /^\s+size\s+<string>/m);
    const builtin = (await ok(['explain', 'deployment.spec.replicas'])).stdout;
    assert.match(builtin, /FIELD:\s+replicas\s+<integer>/);
  });

  it('label and annotate, with --overwrite and key- removal', async () => {
    const gen = (await getObject(ts, `${W}/w2`)).metadata.generation;
    await ok(['label', 'widget', 'w2', 'env=prod']);
    assert.equal((await getObject(ts, `${W}/w2`)).metadata.labels.env, 'prod');
    const refused = await fails(['label', 'widget', 'w2', 'env=dev']);
    assert.match(refused.stderr, /already has a value/);
    assert.equal((await getObject(ts, `${W}/w2`)).metadata.labels.env, 'prod');
    await ok(['label', 'widget', 'w2', 'env=dev', '--overwrite']);
    assert.equal((await getObject(ts, `${W}/w2`)).metadata.labels.env, 'dev');
    await ok(['label', 'widget', 'w2', 'env-']);
    const w2 = await getObject(ts, `${W}/w2`);
    assert.equal(w2.metadata.labels?.env, undefined);
    assert.equal(w2.metadata.labels?.tier, 'gold', 'other labels survive');
    assert.equal(w2.metadata.generation, gen, 'label changes do not bump generation');
    const selected = await json(['widgets', '-l', 'tier=gold']);
    assert.deepEqual(selected.items.map((i: Json) => i.metadata.name), ['w2']);

    // (apply -f sends JSON; `kubectl create configmap` sends protobuf and is covered by the namespace case.)
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'notes', namespace: 'default' }, data: { a: 'b' } });
    await ok(['annotate', 'configmap', 'notes', 'owner=team-a', 'example.com/ticket=42']);
    let cm = await json(['configmap', 'notes']);
    assert.equal(cm.metadata.annotations.owner, 'team-a');
    assert.equal(cm.metadata.annotations['example.com/ticket'], '42');
    const refusedA = await fails(['annotate', 'configmap', 'notes', 'owner=team-b']);
    assert.match(refusedA.stderr, /already has a value/);
    await ok(['annotate', 'configmap', 'notes', 'owner=team-b', '--overwrite']);
    cm = await json(['configmap', 'notes']);
    assert.equal(cm.metadata.annotations.owner, 'team-b');
    await ok(['annotate', 'configmap', 'notes', 'owner-']);
    cm = await json(['configmap', 'notes']);
    assert.equal(cm.metadata.annotations?.owner, undefined);
    assert.equal(cm.metadata.annotations?.['example.com/ticket'], '42');
    assert.deepEqual(cm.data, { a: 'b' });
  });

  it('cordon and uncordon a Node; get nodes shows SchedulingDisabled', async () => {
    await ok(['create', '-f', fixture('node.yaml')]);
    let node = await json(['node', 'node-a']);
    assert.ok(!node.spec.unschedulable);
    await ok(['cordon', 'node-a']);
    node = await json(['node', 'node-a']);
    assert.equal(node.spec.unschedulable, true);
    const nodes = parseTable((await ok(['get', 'nodes'])).stdout);
    assert.deepEqual(nodes.header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const row = nodes.rows.find((r) => r[0] === 'node-a');
    assert.ok(row, JSON.stringify(nodes.rows));
    assert.match(row[1], /SchedulingDisabled/);
    await ok(['uncordon', 'node-a']);
    node = await json(['node', 'node-a']);
    assert.ok(!node.spec.unschedulable, `spec.unschedulable after uncordon: ${JSON.stringify(node.spec)}`);
    const again = parseTable((await ok(['get', 'nodes'])).stdout);
    assert.doesNotMatch(again.rows.find((r) => r[0] === 'node-a')?.[1] ?? '', /SchedulingDisabled/);
  });

  it('a PodDisruptionBudget refuses evictions (drain and raw POST) until it allows one', async () => {
    const ns = 'evict';
    const P = `/api/v1/namespaces/${ns}/pods`;
    await create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b' } });
    for (const name of ['p1', 'p2']) {
      await create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app: 'web' } }, spec: { nodeName: 'node-b', containers: [{ name: 'c', image: 'nginx:1.27' }] } });
      await ok(['patch', 'pod', name, '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}']);
      const pod = await getObject(ts, `${P}/${name}`);
      assert.equal(pod.status.phase, 'Running');
      assert.equal(pod.spec.nodeName, 'node-b');
    }
    await create({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web-pdb', namespace: ns }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } });
    const PDB = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web-pdb`;
    const pdbWhere = async (what: string, pred: (s: Json) => boolean) =>
      pollUntil(what, async () => {
        const o = await getObject(ts, PDB);
        return o?.status && (o.status.observedGeneration ?? 0) >= o.metadata.generation && pred(o.status) ? o : undefined;
      });
    const pdb = await pdbWhere('PDB status currentHealthy 2, disruptionsAllowed 0', (s) => s.currentHealthy === 2 && s.disruptionsAllowed === 0);
    assert.equal(pdb.status.desiredHealthy, 2);
    assert.equal(pdb.status.expectedPods, 2);
    assert.equal(pdb.status.conditions?.find((c: Json) => c.type === 'DisruptionAllowed')?.status, 'False');

    const drainArgs = ['drain', 'node-b', '--ignore-daemonsets', '--timeout=5s', '--force'];
    const drain = await ts.kubectl(drainArgs, { timeoutMs: 45_000 });
    assert.notEqual(drain.code, 0, describeResult(drainArgs, drain));
    assert.match(drain.stdout + drain.stderr, /disruption budget/i, describeResult(drainArgs, drain));
    assert.equal((await getObject(ts, '/api/v1/nodes/node-b')).spec.unschedulable, true, 'drain cordons first');
    for (const name of ['p1', 'p2']) {
      const pod = await getObject(ts, `${P}/${name}`);
      assert.ok(pod, `${name} must survive the refused drain`);
      assert.equal(pod.metadata.deletionTimestamp, undefined, `${name} must not be deleting`);
    }

    const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } });
    const refused = await sendJson(ts, 'POST', `${P}/p1/eviction`, eviction('p1'));
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.kind, 'Status');
    assert.equal(refused.body.reason, 'TooManyRequests');
    assert.match(refused.body.message, /disruption budget/);
    const cause = refused.body.details?.causes?.find((c: Json) => c.reason === 'DisruptionBudget');
    assert.ok(cause, `no DisruptionBudget cause: ${refused.text}`);
    assert.match(cause.message, /web-pdb/);

    await ok(['patch', 'pdb', 'web-pdb', '-n', ns, '--type=merge', '-p', '{"spec":{"minAvailable":1}}']);
    await pdbWhere('PDB status disruptionsAllowed 1 after minAvailable 1', (s) => s.disruptionsAllowed === 1 && s.desiredHealthy === 1);
    const evicted = await sendJson(ts, 'POST', `${P}/p1/eviction`, eviction('p1'));
    assert.equal(evicted.status, 201, evicted.text);
    assert.equal(evicted.body.kind, 'Status');
    assert.equal(evicted.body.status, 'Success');
    const p1 = await getObject(ts, `${P}/p1`);
    if (p1) assert.ok(p1.metadata.deletionTimestamp, 'an evicted pod is gone or terminating');
    // The budget is spent: the next eviction is refused.
    await pdbWhere('PDB disruptionsAllowed back to 0', (s) => s.disruptionsAllowed === 0);
    const second = await sendJson(ts, 'POST', `${P}/p2/eviction`, eviction('p2'));
    assert.equal(second.status, 429, second.text);
    assert.equal((await getObject(ts, `${P}/p2`))?.metadata.deletionTimestamp, undefined);
    // An evicted pod that lingers (graceful deletion) carries DisruptionTarget=True.
    const p1Now = await getObject(ts, `${P}/p1`);
    if (p1Now) {
      const cond = p1Now.status.conditions?.find((c: Json) => c.type === 'DisruptionTarget');
      assert.equal(cond?.status, 'True', `evicted pod conditions: ${JSON.stringify(p1Now.status.conditions)}`);
      assert.equal(cond?.reason, 'EvictionByEvictionAPI');
    }
  });

  it('kubectl create namespace and create configmap (typed clients, protobuf bodies) create the objects', async () => {
    const created = await ok(['create', 'namespace', 'x0']);
    assert.match(created.stdout, /namespace\/x0 created/);
    const x0 = await json(['namespace', 'x0']);
    assert.equal(x0.status.phase, 'Active');
    const cm = await ok(['create', 'configmap', 'c0', '-n', 'x0', '--from-literal=a=b']);
    assert.match(cm.stdout, /configmap\/c0 created/);
    assert.deepEqual((await json(['configmap', 'c0', '-n', 'x0'])).data, { a: 'b' });
    await ok(['delete', 'namespace', 'x0', '--timeout=30s']);
    assert.equal(await getObject(ts, '/api/v1/namespaces/x0'), undefined);
    assert.equal(await getObject(ts, '/api/v1/namespaces/x0/configmaps/c0'), undefined);
  });

  it('get ns; delete namespace removes what is inside it (and refuses new content meanwhile)', async () => {
    const list = parseTable((await ok(['get', 'ns'])).stdout);
    assert.deepEqual(list.header, ['NAME', 'STATUS', 'AGE']);
    for (const n of ['default', 'kube-system']) assert.equal(list.rows.find((r) => r[0] === n)?.[1], 'Active', `${n}: ${JSON.stringify(list.rows)}`);

    // `create -f` sends JSON (see the previous case for the protobuf-sending `create namespace`).
    const created = await create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x1' } });
    assert.match(created.stdout, /namespace\/x1 created/);
    const x1 = await json(['namespace', 'x1']);
    assert.equal(x1.status.phase, 'Active');
    assert.ok(x1.spec.finalizers?.includes('kubernetes'), `spec.finalizers: ${JSON.stringify(x1.spec)}`);
    await create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'x1' }, data: { a: 'b' } });
    await create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2', namespace: 'x1', finalizers: ['example.com/hold'] }, data: { b: 'c' } });

    await ok(['delete', 'namespace', 'x1', '--wait=false']);
    const NS = '/api/v1/namespaces/x1';
    await pollUntil('namespace x1 Terminating, c1 gone, c2 deleting', async () => {
      const n = await getObject(ts, NS);
      const c1 = await getObject(ts, `${NS}/configmaps/c1`);
      const c2 = await getObject(ts, `${NS}/configmaps/c2`);
      return n?.status.phase === 'Terminating' && n.metadata.deletionTimestamp && c1 === undefined && c2?.metadata.deletionTimestamp ? true : undefined;
    });
    const refused = await sendJson(ts, 'POST', `${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c3' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.reason, 'Forbidden');
    assert.match(refused.body.message, /being terminated/);
    assert.ok(refused.body.details?.causes?.some((c: Json) => c.reason === 'NamespaceTerminating'), refused.text);

    await ok(['patch', 'configmap', 'c2', '-n', 'x1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await pollUntil('namespace x1 and its configmaps gone', async () => (await getObject(ts, NS)) === undefined && (await getObject(ts, `${NS}/configmaps/c2`)) === undefined, { timeoutMs: 20_000 });
    const after = parseTable((await ok(['get', 'ns'])).stdout);
    assert.equal(after.rows.find((r) => r[0] === 'x1'), undefined);
    const notFound = await fails(['get', 'configmap', 'c1', '-n', 'x1']);
    assert.match(notFound.stderr, /NotFound|not found/);
  });
});
