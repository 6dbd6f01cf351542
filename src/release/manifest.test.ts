import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeProblem, parseManifests, runLevelOf } from './manifest.ts';

const include = `annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"`;

describe('parseManifests', () => {
  it('reads every document of a YAML stream with its identity, file name parts and annotations', () => {
    const text = `---
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-machine-api
  ${include}
---
# an empty document still counts
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: machine-api-operator
  namespace: openshift-machine-api
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
    release.openshift.io/create-only: "true"
spec:
  replicas: 1
`;
    const { manifests, problems } = parseManifests(text, '0000_30_machine-api-operator_01_objects.yaml');
    assert.deepEqual(problems, []);
    assert.equal(manifests.length, 2);
    const [ns, deploy] = manifests;
    assert.deepEqual([ns!.index, ns!.kind, ns!.namespace, ns!.name, ns!.gvk], [0, 'Namespace', undefined, 'openshift-machine-api', { group: '', version: 'v1', kind: 'Namespace' }]);
    assert.deepEqual([deploy!.index, deploy!.apiVersion, deploy!.gvk.group, deploy!.namespace, deploy!.name], [2, 'apps/v1', 'apps', 'openshift-machine-api', 'machine-api-operator']);
    assert.deepEqual([deploy!.runLevel, deploy!.component, deploy!.createOnly, deploy!.delete], ['30', 'machine-api-operator', true, false]);
    assert.equal(deploy!.annotations['include.release.openshift.io/self-managed-high-availability'], 'true');
    assert.deepEqual(deploy!.object.spec, { replicas: 1 });
  });

  it('keeps a YAML document as the compact, key-sorted, HTML-escaped JSON Go writes', () => {
    const text = `kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata:\n  z: "a<b & c>"\n  a: yes\n  num: 1.0\n`;
    const [m] = parseManifests(text, 'f.yaml').manifests;
    assert.equal(m!.raw, '{"apiVersion":"v1","data":{"a":true,"num":1,"z":"a\\u003cb \\u0026 c\\u003e"},"kind":"ConfigMap","metadata":{"name":"c"}}');
  });

  it('reads a stream of JSON values, keeping each as written', () => {
    const a = '{ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "a" } }';
    const b = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","annotations":{"x":"}{"}}}';
    const { manifests, problems } = parseManifests(`\n${a}\n\n${b}\n`, '0000_10_x_01_cm.json');
    assert.deepEqual(problems, []);
    assert.deepEqual(manifests.map((m) => [m.name, m.index, m.raw]), [['a', 0, a], ['b', 1, b]]);
  });

  it('names the file and document of a manifest it cannot read', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\nkind: ConfigMap\nmetadata: {}\n---\nfoo: [unclosed\n---\n- a list\n`;
    const { manifests, problems } = parseManifests(text, 'bad.yaml');
    assert.deepEqual(manifests.map((m) => m.name), ['ok']);
    assert.deepEqual(problems.map((p) => p.index), [1, 2, 3]);
    assert.match(describeProblem(problems[0]!), /^bad\.yaml document 1: missing apiVersion, metadata\.name$/);
    assert.match(describeProblem(problems[1]!), /^bad\.yaml document 2: invalid YAML/);
    assert.match(describeProblem(problems[2]!), /^bad\.yaml document 3: not an object$/);
  });

  it('refuses a delete annotation other than "true", and the same resource twice', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  namespace: n\n  annotations: {release.openshift.io/delete: "yes"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns, annotations: {release.openshift.io/delete: "true"}}\n`;
    const { manifests, problems } = parseManifests(text, 'x.yaml');
    assert.deepEqual(manifests.map((m) => [m.kind, m.delete]), [['ConfigMap', false]]);
    assert.equal(problems.length, 2);
    assert.match(describeProblem(problems[0]!), /x\.yaml document 0: invalid release\.openshift\.io\/delete value "yes"/);
    assert.match(describeProblem(problems[1]!), /x\.yaml document 2: duplicate resource ConfigMap ns\/c$/);
  });

  it('reads the delete annotation', () => {
    const [m] = parseManifests(`apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations: {release.openshift.io/delete: "true"}\n`, 'x.yaml').manifests;
    assert.equal(m!.delete, true);
  });
});

describe('runLevelOf', () => {
  it('reads 0000_<runlevel>_<component>_ and nothing else', () => {
    assert.deepEqual(runLevelOf('0000_00_cluster-version-operator_01_namespace.yaml'), { runLevel: '00', component: 'cluster-version-operator' });
    assert.deepEqual(runLevelOf('0000_50_config-operator_03_deployment.yaml'), { runLevel: '50', component: 'config-operator' });
    assert.equal(runLevelOf('0000_50_noseparator.yaml'), undefined);
    assert.equal(runLevelOf('extra.yaml'), undefined);
    assert.equal(runLevelOf('0001_50_a_b.yaml'), undefined);
  });
});
