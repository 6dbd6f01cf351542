/**
 * Authorization end to end with a real kubectl: RBAC Roles and bindings in force on every
 * request, kube's 403 wording, `kubectl auth can-i [--list]` and `whoami`, impersonation,
 * escalation prevention, a pod's own token held to what it was granted, and the Node
 * authorizer keeping a kubelet to the Secrets of its own pods.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueClientCertificate } from '../../src/apiserver/auth/client-certs.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, kubectlFails, kubectlOk } from './support.ts';

const sa = 'system:serviceaccount:a:reader';
const manifests = `
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
apiVersion: v1
kind: Namespace
metadata: {name: b}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reader, namespace: a}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: a}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader-reads-cms, namespace: a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects:
- {kind: ServiceAccount, name: reader, namespace: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: a}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: b}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: hidden, namespace: a}
stringData: {password: hunter2}
`;

describe('RBAC and the Node authorizer (e2e)', () => {
  let ts: TestServer;
  before(async () => {
    ts = await startTestServer();
    await kubectlOk(ts, ['apply', '-f', '-'], { input: manifests });
  });
  after(async () => {
    await ts.stop();
  });

  it('a ServiceAccount bound to a Role reads ConfigMaps in its namespace and gets kube’s 403 elsewhere', async () => {
    const ok = await kubectlOk(ts, ['--as', sa, 'get', 'cm', '-n', 'a', '-o', 'name']);
    assert.match(ok.stdout, /configmap\/settings/);
    const denied = await kubectlFails(ts, ['--as', sa, 'get', 'cm', '-n', 'b']);
    assert.match(denied.stderr, /configmaps is forbidden: User "system:serviceaccount:a:reader" cannot list resource "configmaps" in API group "" in the namespace "b"/);
    const one = await kubectlFails(ts, ['--as', sa, 'get', 'secret', 'hidden', '-n', 'a']);
    assert.match(one.stderr, /secrets "hidden" is forbidden: User "system:serviceaccount:a:reader" cannot get resource "secrets" in API group "" in the namespace "a"/);
    const cluster = await kubectlFails(ts, ['--as', sa, 'get', 'nodes']);
    assert.match(cluster.stderr, /nodes is forbidden: User "system:serviceaccount:a:reader" cannot list resource "nodes" in API group "" at the cluster scope/);
  });

  it('kubectl auth can-i answers yes and no, and --list shows exactly the granted rules', async () => {
    assert.equal((await kubectlOk(ts, ['auth', 'can-i', 'list', 'configmaps', '-n', 'a', '--as', sa])).stdout.trim(), 'yes');
    const no = await ts.kubectl(['auth', 'can-i', 'delete', 'configmaps', '-n', 'a', '--as', sa]);
    assert.equal(no.stdout.trim(), 'no', describeResult(['auth', 'can-i'], no));
    const list = await kubectlOk(ts, ['auth', 'can-i', '--list', '-n', 'a', '--as', sa]);
    const rows = list.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s{2,}/));
    const resources = rows.filter((r) => !r[0]!.startsWith('[') && r[0] !== '');
    const cm = resources.find((r) => r[0] === 'configmaps');
    assert.deepEqual(cm?.at(-1), '[get list]', list.stdout);
    // Besides its Role, only what every authenticated user holds (system:basic-user).
    assert.deepEqual(resources.map((r) => r[0]).sort(), ['configmaps', 'selfsubjectaccessreviews.authorization.k8s.io', 'selfsubjectreviews.authentication.k8s.io', 'selfsubjectrulesreviews.authorization.k8s.io'], list.stdout);
    assert.match(list.stdout, /\/api\/\*/, 'system:discovery non-resource URLs are listed');
  });

  it('kubectl auth whoami reports the impersonated identity with its groups', async () => {
    const out = await kubectlOk(ts, ['auth', 'whoami', '--as', sa, '-o', 'json']);
    const info = JSON.parse(out.stdout).status.userInfo;
    assert.equal(info.username, sa);
    assert.deepEqual([...info.groups].sort(), ['system:authenticated', 'system:serviceaccounts', 'system:serviceaccounts:a']);
  });

  it('binding cluster-admin is refused to a user who holds less, even with rights on rolebindings', async () => {
    await kubectlOk(ts, ['create', 'role', 'binder', '-n', 'a', '--verb=create,get,list', '--resource=rolebindings.rbac.authorization.k8s.io']);
    await kubectlOk(ts, ['create', 'rolebinding', 'reader-binds', '-n', 'a', '--role=binder', '--serviceaccount=a:reader']);
    const refused = await kubectlFails(ts, ['--as', sa, 'create', 'rolebinding', 'grab', '-n', 'a', '--clusterrole=cluster-admin', `--serviceaccount=a:reader`]);
    assert.match(refused.stderr, /rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "system:serviceaccount:a:reader" \(groups=\[.*\]\) is attempting to grant RBAC permissions not currently held/);
    // Binding what it holds is allowed.
    await kubectlOk(ts, ['--as', sa, 'create', 'rolebinding', 'share', '-n', 'a', '--role=cm-reader', '--serviceaccount=a:default']);
    const role = await kubectlFails(ts, ['--as', sa, 'create', 'role', 'more', '-n', 'a', '--verb=get', '--resource=secrets']);
    assert.match(role.stderr, /roles.rbac.authorization.k8s.io is forbidden|cannot create resource "roles"/);
  });

  it('impersonation needs the impersonate verb', async () => {
    const r = await kubectlFails(ts, ['--as', sa, 'get', 'cm', '-n', 'a', '--as', 'someone-else']);
    assert.match(r.stderr, /forbidden/);
    const viaReader = await ts.request('GET', '/api/v1/namespaces/a/configmaps', { token: (await kubectlOk(ts, ['create', 'token', 'reader', '-n', 'a'])).stdout.trim() });
    assert.equal(viaReader.status, 200);
    const token = (await kubectlOk(ts, ['create', 'token', 'reader', '-n', 'a'])).stdout.trim();
    const escalate = await ts.kubectl(['--token', token, '--as', 'admin', 'get', 'secrets', '-n', 'a']);
    assert.notEqual(escalate.code, 0);
    assert.match(escalate.stderr, /users "admin" is forbidden: User "system:serviceaccount:a:reader" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });

  it('a pod’s own token reads only what its ServiceAccount was granted', async () => {
    const token = (await kubectlOk(ts, ['create', 'token', 'reader', '-n', 'a'])).stdout.trim();
    const ok = await ts.kubectl(['--token', token, 'get', 'cm', 'settings', '-n', 'a', '-o', 'name']);
    assert.equal(ok.code, 0, describeResult(['get', 'cm'], ok));
    const secret = await ts.kubectl(['--token', token, 'get', 'secret', 'hidden', '-n', 'a']);
    assert.notEqual(secret.code, 0);
    assert.match(secret.stderr, /secrets "hidden" is forbidden: User "system:serviceaccount:a:reader" cannot get resource "secrets"/);
  });

  it('a kubelet reads the Secrets of pods on its node only, and writes only its own Node', async () => {
    const pki = join(ts.dataDir, 'pki');
    const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
    const kubeconfigFor = async (node: string): Promise<string> => {
      const cert = await issueClientCertificate(ca, `system:node:${node}`, ['system:nodes']);
      const path = join(ts.dataDir, `${node}.kubeconfig`);
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      writeFileSync(path, JSON.stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
        clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority-data': b64(ca.certPem) } }],
        users: [{ name: 'u', user: { 'client-certificate-data': b64(cert.certPem), 'client-key-data': b64(cert.keyPem) } }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      }), { mode: 0o600 });
      return path;
    };
    const [one, two] = [await kubeconfigFor('node-one'), await kubeconfigFor('node-two')];
    const asNode = (kc: string, args: string[]) => ts.kubectl(['--kubeconfig', kc, ...args]);
    await kubectlOk(ts, ['apply', '-f', '-'], {
      input: `
apiVersion: v1
kind: Secret
metadata: {name: db-password, namespace: a}
stringData: {password: s3cret}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: a}
spec:
  nodeName: node-one
  containers:
  - name: c
    image: busybox
    env:
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: db-password, key: password}}
`,
    });
    const who = await asNode(one, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout, 'system:node:node-one', describeResult(['auth', 'whoami'], who));
    const own = await asNode(one, ['get', 'secret', 'db-password', '-n', 'a', '-o', 'jsonpath={.metadata.name}']);
    assert.equal(own.stdout, 'db-password', describeResult(['get', 'secret'], own));
    const other = await asNode(two, ['get', 'secret', 'db-password', '-n', 'a']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /secrets "db-password" is forbidden: User "system:node:node-two" cannot get resource "secrets" in API group "" in the namespace "a": no relationship found between node 'node-two' and this object/);
    const unrelated = await asNode(one, ['get', 'secret', 'hidden', '-n', 'a']);
    assert.notEqual(unrelated.code, 0);
    const list = await asNode(one, ['get', 'secrets', '-n', 'a']);
    assert.notEqual(list.code, 0);
    // NodeRestriction: node-two may not label node-one's Node, but may create its own.
    await kubectlOk(ts, ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: Node\nmetadata: {name: node-one}\n' });
    const foreign = await asNode(two, ['label', 'node', 'node-one', 'x=y']);
    assert.notEqual(foreign.code, 0);
    assert.match(foreign.stderr, /node "node-two" is not allowed to modify node "node-one"/);
    const mine = await asNode(one, ['label', 'node', 'node-one', 'x=y']);
    assert.equal(mine.code, 0, describeResult(['label'], mine));
  });
});
