import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImagesJson } from './images.ts';
import { builtinPools, controllerDeployment, daemonDaemonSet, serverDaemonSet } from './operands.ts';

const images = parseImagesJson(
  JSON.stringify(Object.fromEntries(['releaseVersion', 'machineConfigOperator', 'machineConfigController', 'machineConfigDaemon', 'machineConfigServer', 'baseOSContainerImage', 'baseOSExtensionsContainerImage'].map((k) => [k, k === 'releaseVersion' ? '0.1.0' : `shipyard.local/${k}:v0.1.0`]))),
  'images.json',
);
const o = { images, releaseVersion: '0.1.0' };

describe('operands', () => {
  it('the daemon: every node, every taint tolerated, host network and PID, privileged, the node root at /rootfs, and its metrics guarded in-process', () => {
    const ds = daemonDaemonSet(o);
    const spec = ds.spec!.template.spec!;
    assert.deepEqual(spec.tolerations, [{ operator: 'Exists' }]);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.hostPID, true);
    assert.equal(spec.serviceAccountName, 'machine-config-daemon');
    // The seed's oauth-proxy container is gone: the daemon guards its metrics itself, one process less per node.
    assert.deepEqual(spec.containers.map((c) => c.name), ['machine-config-daemon']);
    const [daemon] = spec.containers;
    assert.equal(daemon!.image, 'shipyard.local/machineConfigDaemon:v0.1.0');
    assert.equal(daemon!.securityContext?.privileged, true);
    const rootfs = daemon!.volumeMounts!.find((m) => m.mountPath === '/rootfs')!;
    assert.deepEqual(spec.volumes!.find((v) => v.name === rootfs.name)?.hostPath, { path: '/' });
    assert.ok(daemon!.env!.some((e) => e.name === 'NODE_NAME' && e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName'));
    assert.deepEqual(daemon!.args, ['start', '--metrics-bind-address=$(POD_IP):9001', '--tls-cert-file=/etc/tls/private/tls.crt', '--tls-private-key-file=/etc/tls/private/tls.key']);
    assert.ok(daemon!.env!.some((e) => e.name === 'POD_IP' && e.valueFrom?.fieldRef?.fieldPath === 'status.podIP'));
    assert.deepEqual(daemon!.ports, [{ name: 'metrics', containerPort: 9001, protocol: 'TCP' }]);
    const tls = daemon!.volumeMounts!.find((m) => m.mountPath === '/etc/tls/private')!;
    assert.equal(spec.volumes!.find((v) => v.name === tls.name)?.secret?.secretName, 'proxy-tls');
    assert.deepEqual(spec.volumes!.map((v) => v.name).sort(), ['proxy-tls', 'rootfs'], 'no socket volume: nothing else in the pod reads the metrics');
  });

  it('the server: the masters, host network, port 22623, its certificate and bootstrap token mounted where it reads them', () => {
    const spec = serverDaemonSet(o).spec!.template.spec!;
    assert.deepEqual(spec.nodeSelector, { 'node-role.kubernetes.io/master': '' });
    assert.equal(spec.hostNetwork, true);
    const c = spec.containers[0]!;
    assert.deepEqual(c.ports, [{ name: 'https', containerPort: 22623, protocol: 'TCP' }]);
    assert.ok(c.env!.some((e) => e.name === 'HOST_IP' && e.valueFrom?.fieldRef?.fieldPath === 'status.hostIP'));
    const mounts = Object.fromEntries(c.volumeMounts!.map((m) => [m.mountPath, spec.volumes!.find((v) => v.name === m.name)?.secret?.secretName]));
    assert.deepEqual(mounts, { '/etc/ssl/mcs': 'machine-config-server-tls', '/etc/mcs/bootstrap-token': 'machine-config-server-bootstrap-token' });
  });

  it('the controller: one replica on the masters, as its own ServiceAccount, at the release version', () => {
    const d = controllerDeployment(o);
    assert.equal(d.spec!.replicas, 1);
    assert.equal(d.spec!.template.spec!.serviceAccountName, 'machine-config-controller');
    assert.deepEqual(d.spec!.template.spec!.nodeSelector, { 'node-role.kubernetes.io/master': '' });
    assert.ok(d.spec!.template.spec!.containers[0]!.env!.some((e) => e.name === 'RELEASE_VERSION' && e.value === '0.1.0'));
  });

  it('the pools: configs by role label, nodes by role, master required for an upgrade', () => {
    const [master, worker] = builtinPools();
    assert.deepEqual(master!.spec!.machineConfigSelector, { matchLabels: { 'machineconfiguration.openshift.io/role': 'master' } });
    assert.deepEqual(master!.spec!.nodeSelector, { matchLabels: { 'node-role.kubernetes.io/master': '' } });
    assert.deepEqual(worker!.spec!.nodeSelector, { matchLabels: { 'node-role.kubernetes.io/worker': '' } });
    assert.ok('operator.machineconfiguration.openshift.io/required-for-upgrade' in master!.metadata!.labels!);
    assert.ok(!('operator.machineconfiguration.openshift.io/required-for-upgrade' in worker!.metadata!.labels!));
    assert.equal(master!.spec!.paused, undefined, 'paused and maxUnavailable are their users\'');
  });
});
