import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_WORKERS as MACHINE_WORKERS } from '../machine/component.ts';
import { DEFAULT_WORKERS as MACHINESET_WORKERS } from '../machineset/component.ts';
import { DEFAULT_WORKERS as NODELINK_WORKERS } from '../nodelink/component.ts';
import { controllersDeployment } from './controllers.ts';

const d = controllersDeployment({ operatorImage: 'shipyard.local/machine-api-operator:v0.1.0', providerImage: 'shipyard.local/machine-controller:v0.1.0', releaseVersion: '0.1.0' });
const spec = d.spec!.template.spec!;
const byName = (name: string) => spec.containers.find((c) => c.name === name)!;

describe('the machine-api-controllers Deployment', () => {
  it('one replica, owned by the operator, on a master, node-critical, as its own ServiceAccount', () => {
    assert.equal(d.metadata?.name, 'machine-api-controllers');
    assert.equal(d.metadata?.namespace, 'openshift-machine-api');
    assert.equal(d.metadata?.annotations?.['machine.openshift.io/owned'], '');
    assert.equal(d.spec?.replicas, 1);
    assert.deepEqual(d.spec?.selector.matchLabels, d.spec?.template.metadata?.labels, 'the selector selects the template');
    assert.equal(spec.priorityClassName, 'system-node-critical');
    assert.equal(spec.serviceAccountName, 'machine-api-controllers');
    assert.deepEqual(spec.nodeSelector, { 'node-role.kubernetes.io/master': '' });
    assert.ok(spec.tolerations?.some((t) => t.key === 'node-role.kubernetes.io/master' && t.effect === 'NoSchedule' && t.operator === 'Exists'), 'the masters\' taint is tolerated');
  });

  it('OpenShift\'s four containers and their programs: three of the operator\'s image, the machine controller the provider image\'s', () => {
    assert.deepEqual(spec.containers.map((c) => [c.name, c.image, c.command]), [
      ['machineset-controller', 'shipyard.local/machine-api-operator:v0.1.0', ['/machineset-controller']],
      ['machine-controller', 'shipyard.local/machine-controller:v0.1.0', ['/machine-controller-manager']],
      ['nodelink-controller', 'shipyard.local/machine-api-operator:v0.1.0', ['/nodelink-controller']],
      ['machine-healthcheck-controller', 'shipyard.local/machine-api-operator:v0.1.0', ['/machine-healthcheck']],
    ]);
  });

  it('every controller in openshift-machine-api, leader-elected, its metrics on the pod IP at a port of its own', () => {
    const ports = new Set<number>();
    for (const c of spec.containers) {
      assert.ok(c.args!.includes('--namespace=openshift-machine-api'), c.name);
      assert.ok(c.args!.includes('--leader-elect=true'), c.name);
      const port = c.ports!.find((p) => p.name === 'metrics')!.containerPort;
      ports.add(port);
      assert.ok(c.args!.includes(`--metrics-bind-address=$(POD_IP):${port}`), c.name);
      assert.deepEqual(c.env!.find((e) => e.name === 'POD_IP')?.valueFrom, { fieldRef: { fieldPath: 'status.podIP' } }, `${c.name}: POD_IP from the downward API`);
      assert.equal(c.env!.find((e) => e.name === 'RELEASE_VERSION')?.value, '0.1.0', c.name);
    }
    assert.deepEqual([...ports].sort(), [9441, 9442, 9443, 9444]);
    assert.equal(byName('machine-controller').env!.find((e) => e.name === 'NODE_NAME')?.valueFrom?.fieldRef?.fieldPath, 'spec.nodeName');
  });

  it('the machineset, machine and nodelink controllers are told their workers, the numbers their programs default to', () => {
    const workers = (name: string) => byName(name).args!.filter((a) => a.startsWith('--max-concurrent-reconciles='));
    assert.deepEqual(workers('machineset-controller'), [`--max-concurrent-reconciles=${MACHINESET_WORKERS}`]);
    assert.deepEqual(workers('machine-controller'), [`--max-concurrent-reconciles=${MACHINE_WORKERS}`]);
    assert.deepEqual(workers('nodelink-controller'), [`--max-concurrent-reconciles=${NODELINK_WORKERS}`]);
    assert.deepEqual(workers('machine-healthcheck-controller'), [], 'the health-check program takes no such flag');
    assert.deepEqual([MACHINESET_WORKERS, MACHINE_WORKERS, NODELINK_WORKERS], [3, 10, 5]);
  });

  it('a different image is a different Deployment: what the operator rolls when images.json changes', () => {
    const other = controllersDeployment({ operatorImage: 'example.test/mao:dev', providerImage: 'shipyard.local/machine-controller:v0.1.0', releaseVersion: '0.1.0' });
    assert.equal(other.spec!.template.spec!.containers.find((c) => c.name === 'nodelink-controller')!.image, 'example.test/mao:dev');
    assert.equal(other.spec!.template.spec!.containers.find((c) => c.name === 'machine-controller')!.image, 'shipyard.local/machine-controller:v0.1.0');
  });
});
