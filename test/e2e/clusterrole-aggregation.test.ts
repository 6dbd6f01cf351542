/**
 * ClusterRole aggregation end to end with a real kubectl: the clusterrole-aggregation controller,
 * running under the controller-manager's own identity (a client certificate for
 * `system:kube-controller-manager`, so its bootstrap role must allow writing rules it does not
 * hold), fills the bootstrap `view` role, and a user bound to `view` in one namespace can read
 * pods there but not create them; a role labelled aggregate-to-view extends what `view` grants.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { parse } from 'yaml';
import { issueClientCertificate } from '../../src/apiserver/auth/client-certs.ts';
import { createClusterRoleAggregationController } from '../../src/cluster/clusterroleaggregation/controller.ts';
import { loadKubeConfig } from '../../src/runtime/kubeconfig.ts';
import { startManager } from '../../src/runtime/manager.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, kubectlFails, kubectlOk, pollUntil, type Json } from './support.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function controllerManagerKubeconfig(ts: TestServer): Promise<string> {
  const pki = join(ts.dataDir, 'pki');
  const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
  const cert = await issueClientCertificate(ca, 'system:kube-controller-manager');
  const path = join(ts.dataDir, 'kube-controller-manager.kubeconfig');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority-data': b64(ca.certPem) } }],
      users: [{ name: 'u', user: { 'client-certificate-data': b64(cert.certPem), 'client-key-data': b64(cert.keyPem) } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    }),
    { mode: 0o600 },
  );
  return path;
}

describe('ClusterRole aggregation (e2e)', () => {
  let ts: TestServer;
  const stopController = new AbortController();
  let controller: Promise<void> = Promise.resolve();

  before(async () => {
    ts = await startTestServer();
  });
  after(async () => {
    stopController.abort();
    await controller.catch(() => {});
    await ts?.stop();
  });

  it('view starts empty, and gains the aggregated rules once the controller runs as the controller-manager', async () => {
    const empty = parse((await kubectlOk(ts, ['get', 'clusterrole', 'view', '-o', 'yaml'])).stdout) as Json;
    assert.deepEqual(empty.rules ?? [], [], 'nothing fills view before the controller runs');
    assert.deepEqual(empty.aggregationRule.clusterRoleSelectors, [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }]);

    const kubeConfig = loadKubeConfig({ kubeconfig: await controllerManagerKubeconfig(ts) });
    controller = startManager({
      component: 'kube-controller-manager',
      kubeConfig,
      signal: stopController.signal,
      logger: pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' }),
      controllers: (ctx) => [createClusterRoleAggregationController(ctx)],
    }).done;

    const view = await pollUntil('view aggregated', async () => {
      const y = parse((await kubectlOk(ts, ['get', 'clusterrole', 'view', '-o', 'yaml'])).stdout) as Json;
      return y.rules?.length ? y : undefined;
    });
    const source = parse((await kubectlOk(ts, ['get', 'clusterrole', 'system:aggregate-to-view', '-o', 'yaml'])).stdout) as Json;
    assert.deepEqual(view.rules, source.rules);
    assert.ok(
      view.rules.some((r: Json) => r.apiGroups?.includes('') && r.resources?.includes('pods') && r.verbs?.includes('list')),
      JSON.stringify(view.rules),
    );
    // The chain continues: edit holds what view holds, admin what edit holds.
    await pollUntil('edit and admin aggregated', async () => {
      const [edit, admin] = await Promise.all(['edit', 'admin'].map(async (n) => parse((await kubectlOk(ts, ['get', 'clusterrole', n, '-o', 'yaml'])).stdout) as Json));
      const has = (role: Json, rules: Json[]) => rules.every((r) => (role.rules ?? []).some((x: Json) => JSON.stringify(x) === JSON.stringify(r)));
      return has(edit, view.rules) && has(admin, edit.rules);
    });
  });

  it('a user bound to view in a namespace lists pods there, but cannot create them, nor list elsewhere', async () => {
    await kubectlOk(ts, ['create', 'namespace', 'team']);
    await kubectlOk(ts, ['create', 'namespace', 'other']);
    await kubectlOk(ts, ['create', 'rolebinding', 'alice-view', '-n', 'team', '--clusterrole=view', '--user=alice']);
    await kubectlOk(ts, ['run', 'web', '-n', 'team', '--image=example.com/web:1']);

    const list = await kubectlOk(ts, ['--as', 'alice', 'get', 'pods', '-n', 'team', '-o', 'name']);
    assert.match(list.stdout, /pod\/web/);
    const create = await kubectlFails(ts, ['--as', 'alice', 'run', 'mine', '-n', 'team', '--image=example.com/web:1']);
    assert.match(create.stderr, /pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "team"/, describeResult(['run'], create));
    const elsewhere = await kubectlFails(ts, ['--as', 'alice', 'get', 'pods', '-n', 'other']);
    assert.match(elsewhere.stderr, /pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "other"/);
  });

  it('a ClusterRole labelled aggregate-to-view extends view to a custom resource', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], {
      input: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`,
    });
    await kubectlOk(ts, ['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=60s']);
    const canI = async () => (await ts.kubectl(['auth', 'can-i', 'list', 'widgets.example.com', '-n', 'team', '--as', 'alice'])).stdout.trim();
    assert.equal(await canI(), 'no');
    await kubectlOk(ts, ['apply', '-f', '-'], {
      input: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
`,
    });
    await pollUntil('alice may list widgets', async () => (await canI()) === 'yes');
    const list = await ts.kubectl(['--as', 'alice', 'get', 'widgets', '-n', 'team']);
    assert.equal(list.code, 0, describeResult(['get', 'widgets'], list));
    await kubectlOk(ts, ['delete', 'clusterrole', 'widgets-view']);
    await pollUntil('alice may no longer list widgets', async () => (await canI()) === 'no');
  });
});
