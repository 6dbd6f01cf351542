import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseImagesJson } from './images.ts';
import { builtinPools, controllerDeployment, daemonDaemonSet, serverDaemonSet } from './operands.ts';

const images = parseImagesJson(
  JSON.stringify(Object.fromEntries(['releaseVersion', 'machineConfigOperator', 'machineConfigController', 'machineConfigDaemon', 'machineConfigServer', 'oauthProxy', 'baseOSContainerImage', 'baseOSExtensionsContainerImage'].map((k) => [k, k === 'releaseVersion' ? '0.1.0' : `shipyard.local/${k}:v0.1.0`]))),
  'images.json',
);
const o = { images, releaseVersion: '0.1.0' };

describe('operands', () => {
  it('the daemon: every node, every taint tolerated, host network and PID, privileged, the node root at /rootfs, and the seed\'s oauth-proxy guarding its metrics', () => {
    const ds = daemonDaemonSet(o);
    const spec = ds.spec!.template.spec!;
    assert.deepEqual(spec.tolerations, [{ operator: 'Exists' }]);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.hostPID, true);
    assert.equal(spec.serviceAccountName, 'machine-config-daemon');
    assert.deepEqual(spec.containers.map((c) => c.name), ['machine-config-daemon', 'oauth-proxy'], 'the seed\'s two containers');
    const [daemon, proxy] = spec.containers;
    assert.equal(daemon!.image, 'shipyard.local/machineConfigDaemon:v0.1.0');
    assert.equal(daemon!.securityContext?.privileged, true);
    const rootfs = daemon!.volumeMounts!.find((m) => m.mountPath === '/rootfs')!;
    assert.deepEqual(spec.volumes!.find((v) => v.name === rootfs.name)?.hostPath, { path: '/' });
    assert.ok(daemon!.env!.some((e) => e.name === 'NODE_NAME' && e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName'));
    assert.deepEqual(daemon!.args, ['start'], 'the daemon itself serves no port');
    assert.equal(proxy!.image, 'shipyard.local/oauthProxy:v0.1.0');
    assert.ok(proxy!.args!.includes('--https-address=$(POD_IP):9001'));
    assert.ok(proxy!.args!.includes('--openshift-delegate-urls={"/": {"verb": "get"}}'));
    assert.ok(proxy!.env!.some((e) => e.name === 'POD_IP' && e.valueFrom?.fieldRef?.fieldPath === 'status.podIP'));
    assert.deepEqual(proxy!.ports, [{ name: 'metrics', containerPort: 9001, protocol: 'TCP' }]);
    const tls = proxy!.volumeMounts!.find((m) => m.mountPath === '/etc/tls/private')!;
    assert.equal(spec.volumes!.find((v) => v.name === tls.name)?.secret?.secretName, 'proxy-tls');
    const socket = proxy!.args!.find((a) => a.startsWith('--upstream='))!.slice('--upstream=unix://'.length);
    assert.ok(daemon!.env!.some((e) => e.name === 'METRICS_SOCKET' && e.value === socket), 'the daemon is told where the proxy looks');
    assert.equal(spec.volumes!.find((v) => v.name === 'metrics')?.emptyDir !== undefined, true, 'the socket is in a volume only the pod shares');
    assert.ok(!daemon!.volumeMounts!.some((m) => m.name === 'proxy-tls'), 'the serving key is the proxy\'s alone');
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
