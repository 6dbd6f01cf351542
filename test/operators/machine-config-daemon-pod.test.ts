/**
 * The machine-config daemon as a pod on a real kubelet, shaped as the operator's DaemonSet runs
 * it (the built-in image's launcher, `start`, NODE_NAME from the downward API, the node's `/` as
 * a hostPath at /rootfs, its metrics socket in an emptyDir), as its ServiceAccount with the
 * payload's role. A file change goes all the way round: the daemon cordons and drains (its own
 * DaemonSet pod left), writes the node root, asks the node to reboot; the kubelet honours it
 * (the daemon's pod stops, the Node gets a new bootID), starts the pod again, and the daemon
 * validates, uncordons and reports Done. Its container log holds klog text with the seed's
 * wording, as `kubectl logs -c machine-config-daemon` shows it, and its metrics answer on the
 * socket in the volume the oauth-proxy container would share (test/operators/oauth-proxy.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { nodeAnnotations } from '../../src/api/machineconfiguration/index.ts';
import { applyUpdate, emptyConfig, fromMachineConfig } from '../../src/noderoot/index.ts';
import { containerLogDir, currentLogPath, previousLogPath, readLog } from '../../src/node/logs.ts';
import { resources } from '../../src/runtime/resources.ts';
import { socketPath } from '../../src/runtime/unix-socket.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startNode, until, type NodeUnderTest } from '../node/support.ts';
import { A, adminOf, B, name, NS, prepare, SCRIPT } from './machine-config-daemon-support.ts';

const IMAGE = 'shipyard.local/machine-config-daemon:v0.1.0';
const launcher = fileURLToPath(new URL('../../bin/components/machine-config-daemon.js', import.meta.url));
const NODE = 'worker-mcd-pod';
const SLOW = { timeoutMs: 90_000 };

async function logLines(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const l of readLog(path)) out.push(l.trimEnd());
  return out;
}

describe('the machine-config daemon as a pod on a real kubelet', () => {
  let ts: TestServer;
  let n: NodeUnderTest;
  let kubeconfig: string;

  before(async () => {
    ts = await startTestServer({ controllers: true });
    const admin = adminOf(ts);
    try {
      // Not the data directory itself: the server's admin kubeconfig is there, under the same name.
      kubeconfig = (await prepare(ts, admin, mkdtempSync(join(ts.dataDir, 'mcd-')))).path;
    } finally {
      admin.close();
    }
    n = await startNode({ server: ts, nodeName: NODE, nodeIP: '127.1.45.9', timings: { rebootRequestPollMs: 100, bootDelayMs: 500 } });
    n.images.import(IMAGE, { entrypoint: launcher });
  });

  after(async () => {
    await n?.stop();
    await ts?.stop();
  });

  it('updates its node through a real reboot and logs as the seed shows', async () => {
    const root = join(n.nodeDir, 'root');
    await applyUpdate(root, emptyConfig(), fromMachineConfig(A));
    mkdirSync(join(root, 'etc/machine-config-daemon'), { recursive: true });
    writeFileSync(join(root, 'etc/machine-config-daemon/node-annotations.json'), JSON.stringify({ [nodeAnnotations.currentConfig]: name(A), [nodeAnnotations.desiredConfig]: name(A), [nodeAnnotations.state]: 'Done' }));
    const bootBefore = (await until('the Node registered', () => n.node().catch(() => undefined), SLOW)).status?.nodeInfo?.bootID;
    assert.ok(bootBefore);

    const labels = { 'k8s-app': 'machine-config-daemon' };
    // No DaemonSet controller runs here: the object exists so the drain knows the pod is a DaemonSet's.
    const ds = await n.client.create<V1DaemonSet>(resources.daemonSets, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'machine-config-daemon', namespace: NS },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'machine-config-daemon', image: IMAGE }] } } },
    });
    const pod = await n.client.create<V1Pod>(resources.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'machine-config-daemon-vwh4d', namespace: NS, labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'machine-config-daemon', uid: ds.metadata!.uid!, controller: true }] },
      spec: {
        nodeName: NODE,
        hostNetwork: true,
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 5,
        tolerations: [{ operator: 'Exists' }],
        containers: [
          {
            name: 'machine-config-daemon',
            image: IMAGE,
            // The ServiceAccount's token, as a kubeconfig: no token projection in these tests.
            args: ['start', '--kubeconfig', kubeconfig],
            env: [
              { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
              { name: 'METRICS_SOCKET', value: '/var/run/machine-config-daemon/metrics.sock' },
            ],
            volumeMounts: [
              { name: 'rootfs', mountPath: '/rootfs' },
              { name: 'metrics', mountPath: '/var/run/machine-config-daemon' },
            ],
          },
        ],
        volumes: [
          { name: 'rootfs', hostPath: { path: '/' } },
          { name: 'metrics', emptyDir: {} },
        ],
      },
    });
    const annotations = async () => (await n.node()).metadata?.annotations ?? {};
    await until('the daemon Done at A', async () => (await annotations())[nodeAnnotations.state] === 'Done' && (await annotations())[nodeAnnotations.reason] === '', SLOW);

    await n.client.patch(resources.nodes, undefined, NODE, { metadata: { annotations: { [nodeAnnotations.desiredConfig]: name(B) } } }, { type: 'merge' });
    await until('Done at B after a reboot', async () => {
      const node = await n.node();
      const a = node.metadata?.annotations ?? {};
      return a[nodeAnnotations.currentConfig] === name(B) && a[nodeAnnotations.state] === 'Done' && node.status?.nodeInfo?.bootID !== bootBefore && !node.spec?.unschedulable;
    }, SLOW);
    const script = join(root, 'usr/local/bin/kubeinit_kubevirt_extra_config_script');
    assert.equal(statSync(script).mode & 0o777, 0o755);
    assert.equal(readFileSync(script, 'utf8'), SCRIPT);

    // The container log: the run before the reboot is the previous one.
    const dir = containerLogDir(n.nodeDir, { namespace: NS, name: pod.metadata!.name!, uid: pod.metadata!.uid! }, 'machine-config-daemon');
    const before = await logLines(previousLogPath(dir));
    const header = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+\] /;
    for (const l of before) assert.match(l, header, l);
    const text = before.map((l) => l.replace(header, ''));
    let at = -1;
    for (const want of [
      `Checking Reconcilable for config ${name(A)} to ${name(B)}`,
      `Starting update from ${name(A)} to ${name(B)}: &{osUpdate:false kargs:false fips:false passwd:false files:true units:false kernelType:false extensions:false}`,
      'Update prepared; beginning drain',
      `WARNING: ignoring DaemonSet-managed Pods: ${NS}/machine-config-daemon-vwh4d`,
      'drain complete',
      `Rebooting node into config ${name(B)} (file /usr/local/bin/kubeinit_kubevirt_extra_config_script changed)`,
    ]) {
      const i = text.findIndex((l, k) => k > at && l === want);
      assert.ok(i > at, `"${want}" in order in:\n${text.join('\n')}`);
      at = i;
    }
    // The daemon logs it before it sets Done, but its output reaches the file through the kubelet, which may come later.
    const completedLine = `Update completed for config ${name(B)} and node has been successfully uncordoned`;
    let afterReboot: string[] = [];
    await until('the completion in the container log', async () => {
      afterReboot = (await logLines(currentLogPath(dir))).map((l) => l.replace(header, ''));
      return afterReboot.includes(completedLine);
    }, SLOW).catch(() => undefined);
    assert.ok(afterReboot.includes(completedLine), afterReboot.join('\n'));

    // Its metrics, on the socket in the volume it shares with the oauth-proxy (a path longer than a socket address holds).
    const socketFile = join(n.nodeDir, 'pods', pod.metadata!.uid!, 'rootfs', 'machine-config-daemon', 'var/run/machine-config-daemon/metrics.sock');
    assert.ok(afterReboot.some((l) => l.startsWith('Serving metrics on unix:')), afterReboot.join('\n'));
    const socket = socketPath(socketFile);
    try {
      const scrape = () =>
        new Promise<string>((resolve, reject) => {
          const chunks: Buffer[] = [];
          const req = request({ socketPath: socket.path, path: '/metrics', agent: false, headers: { connection: 'close' } }, (res) => res.on('data', (c: Buffer) => chunks.push(c)));
          req.on('error', reject);
          req.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
          req.end();
        });
      // Set just after the Done patch this test waited for: scraped until it shows.
      let body = '';
      await until('mcd_state Done on the socket', async () => /mcd_state\{state="Done",reason=""\} 1/.test((body = await scrape().catch((err: Error) => `scrape failed: ${err.message}`))), SLOW).catch(() => undefined);
      assert.match(body, /mcd_state\{state="Done",reason=""\} 1/);
    } finally {
      socket.close();
    }
  });
});
