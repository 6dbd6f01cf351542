/**
 * Process pods on a real kubelet against a real API server: each container is a real child
 * process of the test image (fixtures/node-app.mjs). Covers restart back-off, readiness,
 * startup probes and graceful deletion, all observed through the API (status and Events)
 * and, for deletion, through the process table.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { resources } from '../../src/runtime/resources.ts';
import { appContainer, boundPod, condition, containerStatus, pidGone, pidIn, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'worker-proc-0';

describe('kubelet: process pods', () => {
  let n: NodeUnderTest;

  before(async () => {
    n = await startNode({ nodeName: NODE, nodeIP: '127.1.41.7', podCIDR: '127.130.41.0/24' });
    mkdirSync(n.scratch, { recursive: true });
  });

  after(async () => {
    await n?.stop();
    assert.deepEqual([...(n?.liveGroups ?? [])], [], 'no container process outlives the node');
  });

  const create = (pod: V1Pod) => n.client.create(resources.pods, pod);
  const remove = async (name: string): Promise<void> => {
    await n.client.deleteIfExists(resources.pods, 'default', name);
    await until(`pod ${name} to be gone`, async () => !(await n.pod(name)));
  };
  const reasons = async (pod: string): Promise<string[]> => (await n.events(pod)).map((e) => `${e.type} ${e.reason}: ${e.message}`);

  it('restarts a crashing container with a growing CrashLoopBackOff', async () => {
    await create(boundPod('crasher', NODE, { containers: [appContainer('app', ['exit', '1'])] }));
    const backoffs: number[] = [];
    let restarts = 0;
    const seen = await until(
      'three restarts and growing back-offs',
      async () => {
        const cs = containerStatus(await n.pod('crasher'), 'app');
        restarts = Math.max(restarts, cs?.restartCount ?? 0);
        const m = /^back-off ([\d.]+)s restarting failed container=app pod=crasher_default\(/.exec(cs?.state?.waiting?.message ?? '');
        if (cs?.state?.waiting?.reason === 'CrashLoopBackOff' && m && backoffs.at(-1) !== Number(m[1])) backoffs.push(Number(m[1]));
        return restarts >= 3 && backoffs.length >= 3 && cs;
      },
      { timeoutMs: 60_000, everyMs: 15 },
    );
    // Each back-off doubles the last (300 ms initial in these tests), up to the maximum.
    for (let i = 1; i < backoffs.length; i++) assert.ok(backoffs[i]! > backoffs[i - 1]!, `back-offs grow: ${backoffs.join(', ')}`);
    assert.equal(backoffs[1], backoffs[0]! * 2, `back-off doubles: ${backoffs.join(', ')}`);
    assert.equal(seen.lastState?.terminated?.exitCode ?? seen.state?.terminated?.exitCode, 1);
    assert.equal(seen.ready, false);
    const pod = await n.pod('crasher');
    assert.equal(pod?.status?.phase, 'Running', 'restartPolicy Always keeps the pod Running');
    assert.equal(condition(pod, 'Ready'), 'False');
    await until('a BackOff event', async () => (await reasons('crasher')).some((r) => r.startsWith('Warning BackOff: Back-off restarting failed container')));
    await remove('crasher');
  });

  it('follows readiness probes both ways: httpGet and exec decide the Ready condition', async () => {
    const flag = join(n.scratch, 'ready-flag');
    await create(
      boundPod('toggle', NODE, {
        containers: [
          appContainer('web', ['serve', '--listen-after-ms', '1000'], { ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { httpGet: { path: '/healthz', port: 'http' as never }, periodSeconds: 1, failureThreshold: 1 } }),
          appContainer('flag', ['serve'], { env: [{ name: 'PORT', value: '8081' }], readinessProbe: { exec: { command: ['test', '-f', flag] }, periodSeconds: 1, failureThreshold: 1 } }),
        ],
      }),
    );
    const web = await until('web ready by its httpGet probe while flag is not', async () => {
      const p = await n.pod('toggle');
      return containerStatus(p, 'web')?.ready === true && p;
    });
    assert.equal(containerStatus(web, 'flag')?.ready, false);
    assert.equal(containerStatus(web, 'flag')?.started, true, 'without a startup probe, a running container has started');
    assert.equal(condition(web, 'Ready'), 'False');
    assert.equal(condition(web, 'ContainersReady'), 'False');
    assert.equal(web.status?.phase, 'Running');

    writeFileSync(flag, '');
    await until('the pod Ready once the exec probe passes', async () => condition(await n.pod('toggle'), 'Ready') === 'True');
    rmSync(flag);
    const unready = await until('the pod not Ready once it fails again', async () => {
      const p = await n.pod('toggle');
      return condition(p, 'Ready') === 'False' && p;
    });
    assert.equal(containerStatus(unready, 'web')?.ready, true);
    assert.equal(containerStatus(unready, 'flag')?.ready, false);
    assert.equal(containerStatus(unready, 'flag')?.restartCount, 0, 'readiness never restarts a container');
    await until('an Unhealthy event for the readiness probe', async () => (await reasons('toggle')).some((r) => r.startsWith('Warning Unhealthy: Readiness probe failed: command')));
    await remove('toggle');
  });

  it('kills and restarts a container whose startup probe never succeeds', async () => {
    const marker = join(n.scratch, 'never-readiness');
    await create(
      boundPod('never-starts', NODE, {
        terminationGracePeriodSeconds: 1,
        containers: [
          appContainer('app', ['serve', '--listen-after-ms', '600000'], {
            startupProbe: { httpGet: { path: '/healthz', port: 8080 as never }, periodSeconds: 1, failureThreshold: 2 },
            livenessProbe: { exec: { command: ['sh', '-c', `echo liveness >> ${marker}`] }, periodSeconds: 1 },
            readinessProbe: { exec: { command: ['sh', '-c', `echo readiness >> ${marker}`] }, periodSeconds: 1 },
          }),
        ],
      }),
    );
    let sawRunningUnstarted = false;
    const cs = await until('a restart after the startup probe failed', async () => {
      const s = containerStatus(await n.pod('never-starts'), 'app');
      if (s?.state?.running && s.started === false && s.ready === false) sawRunningUnstarted = true;
      return (s?.restartCount ?? 0) >= 1 && s;
    });
    assert.ok(sawRunningUnstarted, 'a running container whose startup probe has not passed reports started=false');
    assert.equal(cs.started, false);
    const events = await until('the Unhealthy and Killing events', async () => {
      const r = await reasons('never-starts');
      return r.some((x) => x.startsWith('Normal Killing:')) && r;
    });
    const unhealthy = events.findIndex((r) => /^Warning Unhealthy: Startup probe failed: Get "http:\/\/127\.130\.41\.\d+:8080\/healthz": connect ECONNREFUSED/.test(r));
    const killing = events.indexOf('Normal Killing: Container app failed startup probe, will be restarted');
    assert.ok(unhealthy >= 0, `Unhealthy event recorded: ${events.join(' | ')}`);
    assert.ok(killing > unhealthy, `Killing follows Unhealthy: ${events.join(' | ')}`);
    const failures = (await n.events('never-starts')).find((e) => e.reason === 'Unhealthy');
    assert.ok((failures?.count ?? 1) >= 2, 'one Unhealthy per failed attempt, up to failureThreshold');
    assert.ok(!events.some((r) => /Liveness|Readiness/.test(r)), 'no liveness or readiness verdicts before the container started');
    assert.equal(existsSync(marker), false, 'liveness and readiness probes never ran while the startup probe had not passed');
    await remove('never-starts');
  });

  it('starts liveness and readiness only once the startup probe succeeds', async () => {
    await create(
      boundPod('slow-start', NODE, {
        containers: [
          appContainer('app', ['serve', '--listen-after-ms', '1500'], {
            ports: [{ containerPort: 8080 }],
            startupProbe: { httpGet: { path: '/healthz', port: 8080 as never }, periodSeconds: 1, failureThreshold: 10 },
            // Either would fail at once against a server not yet listening: liveness by killing it.
            livenessProbe: { httpGet: { path: '/healthz', port: 8080 as never }, periodSeconds: 1, failureThreshold: 1 },
            readinessProbe: { tcpSocket: { port: 8080 as never }, periodSeconds: 1, failureThreshold: 1 },
          }),
        ],
      }),
    );
    let sawUnstarted = false;
    const pod = await until('the pod Ready', async () => {
      const p = await n.pod('slow-start');
      const s = containerStatus(p, 'app');
      if (s?.state?.running && s.started === false) {
        sawUnstarted = true;
        assert.equal(s.ready, false, 'not ready before started');
        assert.equal(condition(p, 'Ready'), 'False');
      }
      return condition(p, 'Ready') === 'True' && p;
    });
    assert.ok(sawUnstarted, 'the container was seen running and not yet started');
    const s = containerStatus(pod, 'app');
    assert.equal(s?.started, true);
    assert.equal(s?.ready, true);
    assert.equal(s?.restartCount, 0, 'liveness did not run (and kill it) while it was starting');
    const events = await reasons('slow-start');
    assert.ok(events.some((r) => r.startsWith('Warning Unhealthy: Startup probe failed:')), `the startup probe failed while it was starting: ${events.join(' | ')}`);
    assert.ok(!events.some((r) => /Liveness probe failed|Readiness probe failed|Killing/.test(r)), `neither liveness nor readiness ran early: ${events.join(' | ')}`);
    await remove('slow-start');
  });

  it('restarts a container whose liveness probe fails, in the kubelet\'s words', async () => {
    await create(
      boundPod('not-alive', NODE, {
        terminationGracePeriodSeconds: 1,
        containers: [appContainer('app', ['serve'], { livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 } })],
      }),
    );
    await until('a restart by the liveness probe', async () => (containerStatus(await n.pod('not-alive'), 'app')?.restartCount ?? 0) >= 1);
    const events = await until('the Killing event', async () => {
      const r = await reasons('not-alive');
      return r.includes('Normal Killing: Container app failed liveness probe, will be restarted') && r;
    });
    assert.ok(events.some((r) => r.startsWith('Warning Unhealthy: Liveness probe failed: command ["false"] exited with 1')), events.join(' | '));
    await remove('not-alive');
  });

  it('never starts a container again once its pod is force-deleted, even with a back-off pending', async () => {
    const pidFile = join(n.scratch, 'forced.pid');
    await create(
      boundPod('forced', NODE, {
        containers: [appContainer('crash', ['exit', '1']), appContainer('web', ['serve'], { env: [{ name: 'PID_FILE', value: pidFile }] })],
      }),
    );
    const inBackOff = await until('crash in back-off while web runs', async () => {
      const p = await n.pod('forced');
      return containerStatus(p, 'crash')?.state?.waiting?.reason === 'CrashLoopBackOff' && containerStatus(p, 'web')?.state?.running && pidIn(pidFile) !== undefined && p;
    });
    const pid = pidIn(pidFile)!;
    const r = await n.ts.kubectl(['delete', 'pod', 'forced', '-n', 'default', '--grace-period=0', '--force', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    await until('the web process killed', () => pidGone(pid));
    rmSync(pidFile);
    // The runtime forgets a process group once it has seen it exit, a little after it is gone.
    await until('no process of the deleted pod left', () => n.liveGroups.size === 0);
    // The back-off pending at the delete is 300 ms doubled per restart so far (2.4 s at most; one
    // more restart may have slipped in before the delete). A crashing pod started now has been
    // through back-offs adding up to more than that by its restart k: 300 ms × (2^k − 1). Its
    // restarts are timed by the same kubelet on the same busy machine, so by then the deleted
    // pod's back-off has run out too, and would have started its containers again.
    const k = Math.min((containerStatus(inBackOff, 'crash')?.restartCount ?? 0) + 2, 4);
    await create(boundPod('forced-witness', NODE, { containers: [appContainer('crash', ['exit', '1'])] }));
    await until(`the witness pod's restart ${k}`, async () => (containerStatus(await n.pod('forced-witness'), 'crash')?.restartCount ?? 0) >= k);
    assert.equal(existsSync(pidFile), false, 'no container of the deleted pod started again');
    await remove('forced-witness');
  });

  async function runningPid(name: string, pidFile: string): Promise<number> {
    return until(`${name} running`, async () => containerStatus(await n.pod(name), 'app')?.state?.running && pidIn(pidFile));
  }

  it('graceful deletion waits terminationGracePeriodSeconds for a process that ignores SIGTERM, then kills it', async () => {
    const pidFile = join(n.scratch, 'stubborn.pid');
    const termFile = join(n.scratch, 'stubborn.term');
    await create(
      boundPod('stubborn', NODE, {
        terminationGracePeriodSeconds: 2,
        containers: [
          appContainer('app', ['serve', '--ignore-term'], {
            env: [{ name: 'PID_FILE', value: pidFile }, { name: 'TERM_FILE', value: termFile }],
            // Fails once the process has had SIGTERM: the grace period is no time for a liveness restart.
            livenessProbe: { exec: { command: ['test', '!', '-f', termFile] }, periodSeconds: 1, failureThreshold: 1 },
          }),
        ],
      }),
    );
    const pid = await runningPid('stubborn', pidFile);
    assert.equal(pidGone(pid), false);
    const started = Date.now();
    const r = await n.ts.kubectl(['delete', 'pod', 'stubborn', '-n', 'default', '--timeout=20s']);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pod "stubborn" deleted/);
    // Timers fire late, never early: the grace period is a lower bound a busy machine cannot break.
    // That the process was then killed, not waited for, is kubectl's --timeout and the process table's to say.
    assert.ok(took >= 1900, `deletion took ${took} ms: the process had its 2 s grace period`);
    assert.ok(pidGone(pid), `process ${pid} is gone after the deletion`);
    assert.ok(existsSync(termFile), 'the process got SIGTERM first');
    const events = await reasons('stubborn');
    assert.ok(events.includes('Normal Killing: Stopping container app'), events.join(' | '));
    assert.ok(!events.some((r) => /Liveness probe failed|failed liveness probe/.test(r)), `no liveness verdict while terminating: ${events.join(' | ')}`);
  });

  it('FallbackToLogsOnError: a failed container without a message gets its log tail as the termination message', async () => {
    await create(
      boundPod('fails-loudly', NODE, {
        restartPolicy: 'Never',
        containers: [appContainer('tail', ['exit', '3'], { terminationMessagePolicy: 'FallbackToLogsOnError' }), appContainer('file', ['exit', '4'])],
      }),
    );
    const pod = await until('both containers terminated', async () => {
      const p = await n.pod('fails-loudly');
      return containerStatus(p, 'tail')?.state?.terminated && containerStatus(p, 'file')?.state?.terminated && p;
    });
    assert.equal(containerStatus(pod, 'tail')?.state?.terminated?.message, 'exiting with 3');
    assert.equal(containerStatus(pod, 'file')?.state?.terminated?.message, undefined, 'the default policy (File) takes nothing from the log');
    await remove('fails-loudly');
  });

  it('graceful deletion is quick for a process that exits on SIGTERM', async (t) => {
    const pidFile = join(n.scratch, 'polite.pid');
    // A grace period longer than kubectl waits: a deletion that completes did not wait it out.
    await create(boundPod('polite', NODE, { terminationGracePeriodSeconds: 120, containers: [appContainer('app', ['serve'], { env: [{ name: 'PID_FILE', value: pidFile }] })] }));
    const pid = await runningPid('polite', pidFile);
    const started = Date.now();
    const r = await n.ts.kubectl(['delete', 'pod', 'polite', '-n', 'default', '--timeout=60s']);
    assert.equal(r.code, 0, `not deleted within kubectl's 60 s, so the 120 s grace period was waited for: ${r.stderr}`);
    t.diagnostic(`deletion took ${Date.now() - started} ms`);
    assert.ok(pidGone(pid), `process ${pid} is gone after the deletion`);
  });
});
