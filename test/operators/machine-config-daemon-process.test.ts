/**
 * The machine-config-daemon component as its pod runs it: the launcher with `start`, NODE_NAME
 * from the environment, the node root as its root mount, metrics on a Unix socket, as its
 * ServiceAccount with the payload's role, against a real API server, in real time. Its container
 * log is klog text with the seed's wording; its metrics answer on the socket; and SIGKILLed at
 * random moments of an update (and stopped by the reboots it asks for, which the test plays as
 * the kubelet), each time started again, it converges to Done with the right files. A SIGTERM
 * stops it cleanly (exit 0).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nodeAnnotations } from '../../src/api/machineconfiguration/index.ts';
import { readCurrentConfig, readJournal } from '../../src/operators/machine-config/daemon/node-files.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { readRebootRequest } from '../../src/runtime/node-reboot.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { A, adminOf, B, DaemonProcess, name, NodeUnderTest, prepare, SCRIPT } from './machine-config-daemon-support.ts';

const SLOW = { timeoutMs: 60_000 };

function metricsOver(socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const req = request({ socketPath, path: '/metrics', agent: false, headers: { connection: 'close' } }, (res) => res.on('data', (c: Buffer) => chunks.push(c)));
    req.on('error', reject);
    req.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.end();
  });
}

describe('the machine-config-daemon process', () => {
  let ts: TestServer;
  let admin: ApiClient;
  let base: string;
  let kubeconfig: string;
  const running: NodeUnderTest[] = [];

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'shipyard-mcd-process-'));
    ts = await startTestServer();
    admin = adminOf(ts);
    kubeconfig = (await prepare(ts, admin, base)).path;
  });

  after(async () => {
    for (const n of running) await n.stop();
    admin?.close();
    await ts?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('logs klog text, serves metrics on its socket, and killed at random moments of an update still converges', async () => {
    const daemon = new DaemonProcess(kubeconfig, join(base, 'metrics.sock'));
    const n = new NodeUnderTest(admin, 'worker-process', base, daemon);
    running.push(n);
    await n.boot(A);
    n.start();
    await until('Done at A from the first annotations', () => n.doneAt(A), SLOW);

    // The container log: klog headers and the daemon's words.
    await until('the first lines', () => daemon.lines().some((l) => l.endsWith(`Setting initial node config: ${name(A)}`)), SLOW);
    const header = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ \S+\] /;
    for (const l of daemon.lines()) assert.match(l, header, l);
    await until('metrics on the socket', async () => /mcd_state\{state="Done",reason=""\} 1/.test(await metricsOver(daemon.metricsSocket).catch(() => '')), SLOW);

    // Kill it at random moments of its work: a few tens of ms after it is up, about what a whole
    // update takes here. A reboot it asks for stops it too (the kubelet's part is played here).
    const up = () => until('the daemon up', () => daemon.lines({ current: true }).some((l) => l.includes('] Starting MachineConfigDaemon on node')), SLOW);
    await n.setDesired(B);
    let kills = 0;
    const deadline = Date.now() + 120_000;
    while (!(await n.doneAt(B))) {
      assert.ok(Date.now() < deadline, `not Done at B after ${kills} kills: ${JSON.stringify(await n.annotations())}`);
      if (readRebootRequest(n.root)) {
        await n.reboot();
        await up();
        continue;
      }
      if (kills < 8) {
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
        if (readRebootRequest(n.root)) continue;
        await daemon.kill();
        kills++;
        n.start();
        await up();
        continue;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(kills > 0);
    assert.equal(await n.file('usr/local/bin/kubeinit_kubevirt_extra_config_script'), SCRIPT);
    assert.equal((await readCurrentConfig(n.root))?.metadata.name, name(B));
    // Done is the update's commit point; the daemon removes its journal right after writing it.
    await until('the update journal removed', async () => (await readJournal(n.root)) === undefined, SLOW);
    const node = await n.node();
    assert.equal(node.spec?.unschedulable, undefined, 'uncordoned');
    assert.equal(node.metadata?.annotations?.[nodeAnnotations.reason], '');
    assert.ok(daemon.exits.filter((e) => e === 'SIGKILL').length === kills, daemon.exits.join(' '));
    const log = daemon.lines().map((l) => l.replace(header, ''));
    assert.ok(log.includes(`Checking Reconcilable for config ${name(A)} to ${name(B)}`), log.join('\n'));
    assert.ok(log.includes('Update prepared; beginning drain'), log.join('\n'));

    // The last one started may still be loading (a SIGTERM then ends it as any process): let it come up first.
    await until('the last daemon started', () => daemon.lines({ current: true }).some((l) => l.includes('] Starting MachineConfigDaemon on node')), SLOW);
    await n.stop();
    assert.equal(daemon.exits.at(-1), '0', `a SIGTERM stops it cleanly: ${daemon.stderr.join('')}`);
  });
});
