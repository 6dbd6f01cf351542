/**
 * The review APIs and RBAC objects through a real kubectl, against one server: Subject and
 * LocalSubject access reviews created from JSON and YAML with kube's reasons and validation
 * errors, TokenReviews of a ServiceAccount token and of garbage, `kubectl auth can-i` for
 * non-resource URLs and `--list`, kube's bootstrap roles and bindings as `kubectl get` and
 * `describe` print them, and `kubectl create clusterrolebinding` / `rolebinding --clusterrole`
 * round trips.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, kubectlFails, kubectlOk, parseTable, type Json } from './support.ts';

const setup = `
apiVersion: v1
kind: Namespace
metadata: {name: ns1}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns2}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: ns1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: pod-reader}
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-reads-pods}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: eve-ghost}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ghost}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: eve}
`;

const sar = (spec: Json) => JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });

describe('access reviews and RBAC objects through kubectl (e2e)', () => {
  let ts: TestServer;
  /** `kubectl create -f - -o json` of `input`, parsed. */
  const created = async (input: string): Promise<Json> => JSON.parse((await kubectlOk(ts, ['create', '-f', '-', '-o', 'json'], { input })).stdout);
  const canI = async (args: string[]): Promise<string> => {
    const r = await ts.kubectl(['auth', 'can-i', ...args]);
    const answer = r.stdout.trim();
    assert.equal(r.code, answer === 'yes' ? 0 : 1, describeResult(['auth', 'can-i', ...args], r));
    return answer;
  };

  before(async () => {
    ts = await startTestServer();
    await kubectlOk(ts, ['apply', '-f', '-'], { input: setup });
  });
  after(async () => {
    await ts.stop();
  });

  it('a SubjectAccessReview (JSON) answers with kube’s reason, or a bare denial', async () => {
    const allowed = await created(sar({ user: 'alice', resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'ns2' } }));
    assert.equal(allowed.kind, 'SubjectAccessReview');
    assert.deepEqual(allowed.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads-pods" of ClusterRole "pod-reader" to User "alice"' });
    assert.deepEqual(allowed.spec.resourceAttributes, { verb: 'list', resource: 'pods', namespace: 'ns2' });
    const denied = await created(sar({ user: 'alice', resourceAttributes: { verb: 'delete', resource: 'pods', namespace: 'ns2', name: 'p' } }));
    assert.deepEqual(denied.status, { allowed: false });
    const masters = await created(sar({ user: 'someone', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } }));
    assert.deepEqual(masters.status, { allowed: true });
  });

  it('a binding to a missing ClusterRole denies with “RBAC: clusterrole… not found”', async () => {
    const r = await created(sar({ user: 'eve', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns1' } }));
    assert.deepEqual(r.status, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found' });
  });

  it('a SubjectAccessReview of a non-resource URL, and one naming no one', async () => {
    const health = await created(sar({ user: 'alice', groups: ['system:authenticated'], nonResourceAttributes: { verb: 'get', path: '/healthz' } }));
    assert.equal(health.status.allowed, true);
    assert.match(health.status.reason, /^RBAC: allowed by ClusterRoleBinding "system:(discovery|public-info-viewer)" of ClusterRole "system:(discovery|public-info-viewer)" to Group "system:authenticated"$/);
    const metrics = await created(sar({ user: 'alice', groups: ['system:authenticated'], nonResourceAttributes: { verb: 'get', path: '/metrics' } }));
    assert.deepEqual(metrics.status, { allowed: false });
    const nobody = await kubectlFails(ts, ['create', '-f', '-'], { input: sar({ resourceAttributes: { verb: 'get', resource: 'pods' } }) });
    assert.match(nobody.stderr, /The SubjectAccessReview "" is invalid: spec\.user: Invalid value: "": at least one of user or group must be specified/);
  });

  it('a LocalSubjectAccessReview (YAML) answers in its namespace; another namespace in its spec is kube’s 422', async () => {
    const lsar = (specNamespace: string) => `
apiVersion: authorization.k8s.io/v1
kind: LocalSubjectAccessReview
metadata: {namespace: ns1}
spec:
  user: alice
  resourceAttributes: {verb: get, resource: pods, name: p, namespace: ${specNamespace}}
`;
    const ok = await created(lsar('ns1'));
    assert.equal(ok.kind, 'LocalSubjectAccessReview');
    assert.equal(ok.metadata.namespace, 'ns1');
    assert.deepEqual(ok.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads-pods" of ClusterRole "pod-reader" to User "alice"' });
    const mismatch = await kubectlFails(ts, ['create', '-f', '-', '-o', 'json'], { input: lsar('ns2') });
    assert.match(mismatch.stderr, /The LocalSubjectAccessReview "" is invalid: spec\.resourceAttributes\.namespace: Invalid value: "ns2": must match metadata\.namespace/);
  });

  it('a TokenReview of a ServiceAccount token authenticates it with its user and groups; garbage authenticates no one', async () => {
    const token = (await kubectlOk(ts, ['create', 'token', 'builder', '-n', 'ns1'])).stdout.trim();
    const saUid = (await kubectlOk(ts, ['get', 'sa', 'builder', '-n', 'ns1', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const review = (t: string) => JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: t } });
    const good = await created(review(token));
    assert.equal(good.kind, 'TokenReview');
    assert.equal(good.status.authenticated, true);
    assert.equal(good.status.user.username, 'system:serviceaccount:ns1:builder');
    assert.equal(good.status.user.uid, saUid);
    assert.deepEqual([...good.status.user.groups].sort(), ['system:authenticated', 'system:serviceaccounts', 'system:serviceaccounts:ns1']);
    const garbage = await created(review('not-a-token'));
    // kube's `authenticated` is omitempty: false is absent, and no authenticator erred.
    assert.deepEqual(garbage.status, { user: {} });
    const forged = await created(review(`${token.slice(0, -4)}AAAA`));
    assert.notEqual(forged.status.authenticated, true, 'a token with a broken signature');
  });

  it('kubectl auth can-i for non-resource URLs', async () => {
    assert.equal(await canI(['get', '/healthz']), 'yes');
    assert.equal(await canI(['get', '/healthz', '--as', 'alice']), 'yes');
    assert.equal(await canI(['get', '/apis/apps/v1', '--as', 'alice']), 'yes', 'system:discovery grants /apis/*');
    assert.equal(await canI(['get', '/metrics', '--as', 'alice']), 'no');
    assert.equal(await canI(['post', '/healthz', '--as', 'alice']), 'no');
    assert.equal(await canI(['get', '/metrics', '--as', 'alice', '--as-group', 'system:monitoring']), 'yes');
  });

  it('kubectl auth can-i --list as the admin shows everything as *.*', async () => {
    const out = (await kubectlOk(ts, ['auth', 'can-i', '--list'])).stdout;
    const { header, rows } = parseTable(out);
    assert.deepEqual(header, ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    assert.deepEqual(rows[0], ['*.*', '[]', '[]', '[*]'], out);
    assert.deepEqual(rows[1], ['', '[*]', '[]', '[*]'], out);
    assert.ok(rows.some((r) => r[0] === 'selfsubjectaccessreviews.authorization.k8s.io' && r[3] === '[create]'), out);
  });

  it('kubectl get clusterroles / clusterrolebindings list kube’s bootstrap policy with kube’s columns', async () => {
    const roles = parseTable((await kubectlOk(ts, ['get', 'clusterroles'])).stdout);
    assert.deepEqual(roles.header, ['NAME', 'CREATED AT']);
    const roleNames = roles.rows.map((r) => r[0]);
    for (const name of ['admin', 'cluster-admin', 'edit', 'view', 'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:auth-delegator', 'system:basic-user', 'system:discovery', 'system:kube-controller-manager', 'system:kube-scheduler', 'system:monitoring', 'system:node', 'system:public-info-viewer']) {
      assert.ok(roleNames.includes(name), `${name} in ${roleNames.join(' ')}`);
    }
    assert.match(roles.rows.find((r) => r[0] === 'cluster-admin')![1]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const bindings = parseTable((await kubectlOk(ts, ['get', 'clusterrolebindings', '-o', 'wide'])).stdout);
    assert.deepEqual(bindings.header, ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    const row = (name: string) => bindings.rows.find((r) => r[0] === name);
    assert.deepEqual(row('cluster-admin')?.slice(0, 2), ['cluster-admin', 'ClusterRole/cluster-admin']);
    assert.equal(row('cluster-admin')?.[4], 'system:masters');
    assert.equal(row('system:public-info-viewer')?.[4], 'system:authenticated, system:unauthenticated');
    assert.equal(row('system:kube-scheduler')?.[3], 'system:kube-scheduler');
    for (const name of ['system:basic-user', 'system:discovery', 'system:kube-controller-manager', 'system:monitoring', 'system:node']) assert.ok(row(name), name);
  });

  it('kubectl describe clusterrole cluster-admin prints kube’s text', async () => {
    const out = (await kubectlOk(ts, ['describe', 'clusterrole', 'cluster-admin'])).stdout;
    assert.equal(
      out,
      [
        'Name:         cluster-admin',
        'Labels:       kubernetes.io/bootstrapping=rbac-defaults',
        'Annotations:  rbac.authorization.kubernetes.io/autoupdate: true',
        'PolicyRule:',
        '  Resources  Non-Resource URLs  Resource Names  Verbs',
        '  ---------  -----------------  --------------  -----',
        '  *.*        []                 []              [*]',
        '             [*]                []              [*]',
        '',
      ].join('\n'),
    );
  });

  it('kubectl create clusterrolebinding: stored as kubectl built it, in force at once, gone when deleted', async () => {
    const create = await kubectlOk(ts, ['create', 'clusterrolebinding', 'carol-reads', '--clusterrole=pod-reader', '--user=carol', '--group=readers', '--serviceaccount=ns1:builder']);
    assert.equal(create.stdout.trim(), 'clusterrolebinding.rbac.authorization.k8s.io/carol-reads created');
    const obj = JSON.parse((await kubectlOk(ts, ['get', 'clusterrolebinding', 'carol-reads', '-o', 'json'])).stdout);
    assert.deepEqual(obj.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' });
    assert.deepEqual(obj.subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' },
    ]);
    assert.equal(await canI(['list', 'pods', '-n', 'ns2', '--as', 'carol']), 'yes');
    assert.equal(await canI(['list', 'pods', '-A', '--as', 'someone', '--as-group', 'readers']), 'yes');
    assert.equal(await canI(['get', 'pods', '-n', 'ns2', '--as', 'system:serviceaccount:ns1:builder']), 'yes');
    const viaSa = await created(sar({ user: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns2' } }));
    assert.equal(viaSa.status.reason, 'RBAC: allowed by ClusterRoleBinding "carol-reads" of ClusterRole "pod-reader" to ServiceAccount "builder/ns1"');
    const del = await kubectlOk(ts, ['delete', 'clusterrolebinding', 'carol-reads']);
    assert.equal(del.stdout.trim(), 'clusterrolebinding.rbac.authorization.k8s.io "carol-reads" deleted');
    assert.equal(await canI(['list', 'pods', '-n', 'ns2', '--as', 'carol']), 'no');
  });

  it('kubectl create rolebinding --clusterrole grants the ClusterRole in that namespace only', async () => {
    const create = await kubectlOk(ts, ['create', 'rolebinding', 'dave-reads', '--clusterrole=pod-reader', '--user=dave', '-n', 'ns1']);
    assert.equal(create.stdout.trim(), 'rolebinding.rbac.authorization.k8s.io/dave-reads created');
    const obj = JSON.parse((await kubectlOk(ts, ['get', 'rolebinding', 'dave-reads', '-n', 'ns1', '-o', 'json'])).stdout);
    assert.deepEqual(obj.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' });
    const table = parseTable((await kubectlOk(ts, ['get', 'rolebindings', '-n', 'ns1'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'ROLE', 'AGE']);
    assert.deepEqual(table.rows.find((r) => r[0] === 'dave-reads')?.slice(0, 2), ['dave-reads', 'ClusterRole/pod-reader']);
    assert.equal(await canI(['list', 'pods', '-n', 'ns1', '--as', 'dave']), 'yes');
    assert.equal(await canI(['list', 'pods', '-n', 'ns2', '--as', 'dave']), 'no');
    assert.equal(await canI(['list', 'pods', '-A', '--as', 'dave']), 'no');
    const lsar = await created(`
apiVersion: authorization.k8s.io/v1
kind: LocalSubjectAccessReview
metadata: {namespace: ns1}
spec:
  user: dave
  resourceAttributes: {verb: list, resource: pods, namespace: ns1}
`);
    assert.deepEqual(lsar.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "dave-reads/ns1" of ClusterRole "pod-reader" to User "dave"' });
  });
});
