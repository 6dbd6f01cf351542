/**
 * The kube-apiserver operator's acceptance (issue 17) on a real `shipyard up` datacenter with
 * three masters and real kubectl: every master runs a replica at the operator's revision 1 or
 * later; the seed's developer workflow (its override patch pasted verbatim, then the pod image
 * patch) hands the operator over to an imported image, which runs the rest of the file; a valid
 * override rolls exactly one revision over the masters one at a time while a client polling the
 * load balancer every 100 ms sees no failure; invalid overrides never cut a revision and say
 * where; an override that crashes the replica stops at the first master with StaticPodsDegraded
 * and is rolled past once removed; a new service CIDR in the install-config and a new
 * forceRedeploymentReason each cut a revision; a write through one replica reaches a watch on
 * another.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { kubectlWith, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';
import { describeResult, fixture, parseTable, pollUntil, type Json } from './support.ts';

const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const LEGACY_NS = 'openshift-cluster-kube-apiserver-operator';
const OPERAND_NS = 'openshift-kube-apiserver';
const MASTERS = ['master-0', 'master-1', 'master-2'];
/** A rollout over three masters on a loaded 2-core machine: generous, never asserted as a duration. */
const ROLLOUT_MS = 420_000;
const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The seed's override, verbatim (shared/seeds/002): `group: apps/v1` is a group and a version. */
const SEED_OVERRIDE = readFileSync(fixture('seed-002-override.yaml'), 'utf8');

interface Access {
  readonly server: URL;
  readonly ca: Buffer;
  readonly headers: Record<string, string>;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** The admin kubeconfig's server and credentials, for requests this test makes itself. */
function accessFrom(kubeconfig: string): Access {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as Json;
  const cluster = kc.clusters[0].cluster;
  const user = kc.users[0].user;
  return {
    server: new URL(cluster.server),
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
    headers: user.token ? { authorization: `Bearer ${user.token}` } : {},
    cert: user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64') : undefined,
    key: user['client-key-data'] ? Buffer.from(user['client-key-data'], 'base64') : undefined,
  };
}

function send(a: Access, method: string, path: string, opts: { host?: string; port?: number; body?: unknown; timeoutMs?: number } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const o: RequestOptions = {
      method,
      host: opts.host ?? a.server.hostname,
      port: opts.port ?? Number(a.server.port),
      path,
      ca: a.ca,
      cert: a.cert,
      key: a.key,
      // A replica's certificate names its node address; the load balancer's name is the server's.
      servername: opts.host ?? a.server.hostname,
      agent: false,
      headers: { ...a.headers, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      timeout: opts.timeoutMs ?? 10_000,
    };
    const req = request(o, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A client of the load balancer making a request every 100 ms, as an admin's tooling would
 * during a rollout; every failure is kept with its time and error.
 */
function startPoller(a: Access): { stop(): Promise<{ requests: number; failures: string[] }> } {
  let stopped = false;
  let requests = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      requests++;
      try {
        const r = await send(a, 'GET', '/api/v1/namespaces/default');
        if (r.status !== 200) failures.push(`${new Date().toISOString()} HTTP ${r.status}: ${r.text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`${new Date().toISOString()} ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - started))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { requests, failures };
    },
  };
}

describe('kube-apiserver operator (e2e)', { timeout: 1_500_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-kas-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubectl = kubectlWith(kubeconfig);
  const { ok, json } = strictKubectl(kubectl);
  let up: UpProcess | undefined;
  let poller: ReturnType<typeof startPoller> | undefined;

  const cr = () => json(['kubeapiserver', 'cluster']);
  const cond = (o: Json, type: string): Json | undefined => (o.status?.conditions ?? []).find((c: Json) => c.type === type);
  const latest = async (): Promise<number> => (await cr()).status?.latestAvailableRevision ?? 0;
  /**
   * Where a rollout stands, for a timed-out wait's message: each master's revisions and last
   * failure, the operand namespace's pods, the operator's true Degraded/Progressing conditions
   * and its last warnings. A rollout once stalled here for 7 minutes and the timeout said nothing more.
   */
  const rolloutState = async (): Promise<string> => {
    try {
      const o = await cr();
      const nodes = ((o.status?.nodeStatuses ?? []) as Json[]).map(
        (n) => `${n.nodeName} current ${n.currentRevision ?? 0} target ${n.targetRevision ?? '-'}${n.lastFailedReason ? ` last failed ${n.lastFailedReason} rev ${n.lastFailedRevision} ×${n.lastFailedCount ?? 0} at ${n.lastFailedTime}` : ''}`,
      );
      const pods = ((await json(['pods', '-n', OPERAND_NS])).items as Json[]).map(
        (p) => `${p.metadata.name} ${p.status?.phase}${p.metadata.labels?.revision ? ` rev ${p.metadata.labels.revision}` : ''}${p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True') ? ' Ready' : ''}`,
      );
      const conditions = ((o.status?.conditions ?? []) as Json[]).filter((c) => c.status === 'True' && /Degraded|Progressing/.test(c.type)).map((c) => `${c.type}: ${c.message ?? ''}`);
      const warnings = ((await json(['events', '-n', OPERATOR_NS])).items as Json[]).filter((e) => e.type === 'Warning').slice(-5).map((e) => `${e.reason}: ${e.message}`);
      return [`latest revision ${o.status?.latestAvailableRevision}`, `nodes: ${nodes.join('; ')}`, `pods: ${pods.join(', ')}`, `conditions: ${conditions.join('; ')}`, `warnings: ${warnings.join('; ')}`].join('\n    ');
    } catch (err) {
      return `(unreadable: ${(err as Error).message})`;
    }
  };
  const waitFor = async <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> => {
    try {
      return await pollUntil(what, async () => (await probe()) || undefined, { timeoutMs, intervalMs: 1000 });
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('timed out')) err.message += `\n  the rollout then:\n    ${await rolloutState()}`;
      throw err;
    }
  };
  /** Every master at `revision`, idle, its mirror pod of that revision Ready. */
  const allAt = async (revision: number): Promise<boolean> => {
    const o = await cr();
    const nodes: Json[] = o.status?.nodeStatuses ?? [];
    if (nodes.length !== MASTERS.length || !nodes.every((n) => n.currentRevision === revision && !n.targetRevision)) return false;
    const pods: Json[] = (await json(['pods', '-n', OPERAND_NS, '-l', 'apiserver=true'])).items;
    return MASTERS.every((m) => {
      const p = pods.find((x) => x.spec.nodeName === m);
      return p?.metadata.labels?.revision === String(revision) && p.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True');
    });
  };
  /**
   * Rollout order from the operator's events (`Updating node "X" from revision A to B because …`,
   * `Updated node "X" from revision A to B because static pod is ready`) about `revision`.
   */
  const stepsTo = async (revision: number, ns = OPERATOR_NS): Promise<{ node: string; reason: string; time: number }[]> =>
    ((await json(['events', '-n', ns])).items as Json[])
      .filter((e) => (e.reason === 'NodeTargetRevisionChanged' || e.reason === 'NodeCurrentRevisionChanged') && new RegExp(`from revision \\d+ to ${revision}\\b`).test(e.message))
      .map((e) => ({ node: /node "([^"]+)"/.exec(e.message)?.[1] ?? '', reason: e.reason as string, time: Date.parse(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp) }))
      .sort((x, y) => x.time - y.time);

  before(async () => {
    up = startUp(dataDir, ['--masters', '3', '--workers', '0', '--masters-schedulable', '--cvo-reconcile-interval', '4s', '--api-port', '22443', '--cloud-port', '22080']);
    await up.ready(600_000);
  });

  after(async () => {
    await poller?.stop();
    await stopUp(up, dataDir);
  });

  it('after shipyard up --masters 3, every master runs a replica at revision 1 or later; kubectl shows it; the ClusterOperator is Available', async () => {
    const revision = await waitFor('every master at the latest revision', async () => {
      const l = await latest();
      return l >= 1 && (await allAt(l)) && l;
    }, ROLLOUT_MS);
    const table = parseTable(await ok(['get', 'kubeapiserver']));
    assert.deepEqual(table.header.slice(0, 3), ['NAME', 'LATEST REVISION', 'NODES AT LATEST']);
    assert.equal(table.rows[0]![0], 'cluster');
    assert.equal(table.rows[0]![1], String(revision));
    assert.match(table.rows[0]![2]!, /^3\/3$|^3 of 3$|^3$/, 'NODES AT LATEST counts all three masters');
    const co = await json(['clusteroperator', 'kube-apiserver']);
    assert.equal(cond(co, 'Available')?.status, 'True', JSON.stringify(co.status?.conditions));
    // The bootstrap API server was replaced: master-0 runs the operator's static pod, not kube-system's.
    const bootstrap = await kubectl(['get', 'pod', 'kube-apiserver-master-0', '-n', 'kube-system']);
    assert.notEqual(bootstrap.code, 0, 'no bootstrap kube-apiserver is left on master-0');
    // The load balancer lists every replica; a request reaches each master's replica directly too.
    const a = accessFrom(kubeconfig);
    for (const node of (await json(['nodes'])).items as Json[]) {
      const ip = node.status.addresses.find((x: Json) => x.type === 'InternalIP').address;
      const r = await send(a, 'GET', '/readyz', { host: ip, port: 6443 });
      assert.equal(r.status, 200, `${node.metadata.name}'s replica at ${ip}:6443 is ready`);
    }
  });

  it("the seed's workflow: its override patch pasted verbatim (with a warning about apps/v1), then the operator pod's image patched; nothing reverts it", async () => {
    const patched = await kubectl(['patch', 'clusterversion/version', '--type=merge', '-p', SEED_OVERRIDE]);
    assert.equal(patched.code, 0, describeResult(['patch'], patched));
    assert.match(patched.stderr, /Warning: spec\.overrides\[0\]\.group: "apps\/v1" names a group and a version; the group is "apps"/);
    // The CVO honours it: an edit of the operator's Deployment sticks (here: a shorter minimum
    // ready time, so this file's rollouts take seconds per master, not 30).
    await ok(['patch', 'deployment/kube-apiserver-operator', '-n', OPERATOR_NS, '--type=json', '-p', JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/0/command/-', value: '--min-ready-seconds=3' }])]);
    await waitFor('the Deployment rolled to the edited args', async () => {
      const d = await json(['deployment/kube-apiserver-operator', '-n', OPERATOR_NS]);
      return d.status?.updatedReplicas === 1 && d.status?.availableReplicas === 1 && d.status?.replicas === 1 && d.status?.observedGeneration === d.metadata.generation;
    });
    // A developer's image: here the operator's own launcher under a new reference.
    const imported = await runShipyard(['image', 'import', 'example.test/dev/cluster-kube-apiserver-operator:latest', '--entrypoint', join(repo, 'bin/components/cluster-kube-apiserver-operator.js'), '--data-dir', dataDir]);
    assert.equal(imported.code, 0, imported.stderr);
    const pods = async (): Promise<Json[]> => ((await json(['pods', '-n', OPERATOR_NS, '-l', 'app=kube-apiserver-operator'])).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
    const [pod] = await pods();
    assert.ok(pod, 'the operator pod');
    await ok(['patch', `pod/${pod.metadata.name}`, '-n', OPERATOR_NS, '-p', JSON.stringify({ spec: { containers: [{ name: 'kube-apiserver-operator', image: 'example.test/dev/cluster-kube-apiserver-operator:latest' }] } })]);
    await waitFor('the operator container running the imported image', async () => {
      const p = await json([`pod/${pod.metadata.name}`, '-n', OPERATOR_NS]);
      const s = p.status?.containerStatuses?.find((c: Json) => c.name === 'kube-apiserver-operator');
      return s?.image === 'example.test/dev/cluster-kube-apiserver-operator:latest' && s.ready === true && s.restartCount >= 1;
    });
    // Two CVO passes later (4 s each here) the pod still runs it, and the Deployment still has the edit.
    await new Promise((r) => setTimeout(r, 12_000));
    const again = await json([`pod/${pod.metadata.name}`, '-n', OPERATOR_NS]);
    assert.equal(again.spec.containers[0].image, 'example.test/dev/cluster-kube-apiserver-operator:latest');
    const d = await json(['deployment/kube-apiserver-operator', '-n', OPERATOR_NS]);
    assert.ok(d.spec.template.spec.containers[0].command.includes('--min-ready-seconds=3'), 'the unmanaged Deployment keeps the edit');
  });

  it('a valid override rolls exactly one revision over the masters one at a time; a client of the load balancer sees no failed request', async () => {
    const from = await latest();
    poller = startPoller(accessFrom(kubeconfig));
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=merge', '-p', JSON.stringify({ spec: { unsupportedConfigOverrides: { apiServerArguments: { v: ['3'] } } } })]);
    const to = from + 1;
    // One at a time: at no sample do two masters have a target.
    let maxTargets = 0;
    await waitFor(`every master at revision ${to}`, async () => {
      const o = await cr();
      maxTargets = Math.max(maxTargets, (o.status?.nodeStatuses ?? []).filter((n: Json) => n.targetRevision).length);
      // A second revision would roll every master again, and this wait would never end: said at once.
      const now = o.status?.latestAvailableRevision ?? 0;
      if (now > to) assert.fail(`revision ${to + 1} was cut too (reason "${(await json(['configmap', `revision-status-${to + 1}`, '-n', OPERAND_NS])).data?.reason}"), up to ${now}: one override must cut one revision`);
      return allAt(to);
    }, ROLLOUT_MS);
    assert.equal(await latest(), to, 'exactly one new revision');
    assert.ok(maxTargets <= 1, 'never two masters installing at once');
    const status = await json(['configmap', `revision-status-${to}`, '-n', OPERAND_NS]);
    assert.match(status.data.reason, /configmap\/config has changed/);
    // The events tell the order: each master current before the next one targeted. The last
    // one is sent after the status that made allAt true, so it is waited for.
    const everyMasterCurrent = (ns?: string) => async () => {
      const s = await stepsTo(to, ns);
      return MASTERS.every((m) => s.some((x) => x.node === m && x.reason === 'NodeCurrentRevisionChanged')) && s;
    };
    const steps = await waitFor(`a NodeCurrentRevisionChanged event to ${to} for every master`, everyMasterCurrent());
    const order = steps.filter((s) => s.reason === 'NodeCurrentRevisionChanged').map((s) => s.node);
    assert.deepEqual([...order].sort(), MASTERS, `each master updated once: ${JSON.stringify(steps)}`);
    for (let i = 1; i < order.length; i++) {
      const targeted = steps.find((s) => s.node === order[i] && s.reason === 'NodeTargetRevisionChanged');
      const prevDone = steps.find((s) => s.node === order[i - 1] && s.reason === 'NodeCurrentRevisionChanged');
      assert.ok(targeted && prevDone && targeted.time >= prevDone.time, `${order[i]} targeted after ${order[i - 1]} was current: ${JSON.stringify(steps)}`);
    }
    // The seed's debugging command, with the namespace's early name, tells the same story.
    const legacy = await waitFor(`the same events in ${LEGACY_NS}`, everyMasterCurrent(LEGACY_NS));
    assert.deepEqual(legacy.filter((s) => s.reason === 'NodeCurrentRevisionChanged').map((s) => s.node).sort(), MASTERS);
    const { requests, failures } = await poller.stop();
    poller = undefined;
    assert.ok(requests > 10, `the client kept asking (${requests} requests)`);
    assert.deepEqual(failures, [], `no failed request in ${requests}`);
  });

  it('an unknown field or a bad value in the overrides never cuts a revision and says where; removing it recovers', async () => {
    const from = await latest();
    const current = (await cr()).spec.unsupportedConfigOverrides;
    const degraded = async (message: RegExp): Promise<Json> =>
      waitFor(`TargetConfigControllerDegraded matching ${message}`, async () => {
        const c = cond(await cr(), 'TargetConfigControllerDegraded');
        return c?.status === 'True' && message.test(c.message ?? '') && c;
      });
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=merge', '-p', JSON.stringify({ spec: { unsupportedConfigOverrides: { servingInfo: { bindAddres: '127.0.0.1:6443' } } } })]);
    const unknown = await degraded(/unsupportedConfigOverrides: servingInfo\.bindAddres: unknown field/);
    assert.equal(unknown.reason, 'InvalidConfig');
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=merge', '-p', JSON.stringify({ spec: { unsupportedConfigOverrides: { servingInfo: null, servicesSubnet: '127.64.0.0/12' } } })]);
    await degraded(/unsupportedConfigOverrides: servicesSubnet: Invalid value: "127\.64\.0\.0\/12": must have a prefix length between \/16 and \/24/);
    const co = await json(['clusteroperator', 'kube-apiserver']);
    assert.equal(cond(co, 'Upgradeable')?.status, 'False', 'overrides make the cluster not upgradeable');
    assert.equal(await latest(), from, 'no revision while the config is invalid');
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/unsupportedConfigOverrides', value: current }])]);
    await waitFor('TargetConfigControllerDegraded False again', async () => cond(await cr(), 'TargetConfigControllerDegraded')?.status === 'False');
    assert.equal(await latest(), from, 'back to the config of the latest revision: nothing to roll');
  });

  it('an override that crashes the replica stops at the first master with StaticPodsDegraded; the others keep serving; removing it rolls past', async () => {
    const from = await latest();
    const current = (await cr()).spec.unsupportedConfigOverrides;
    // Valid as a config; the replica cannot start without the certificate it names.
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=merge', '-p', JSON.stringify({ spec: { unsupportedConfigOverrides: { servingInfo: { certFile: '/etc/kubernetes/static-pod-certs/no-such.crt', keyFile: '/etc/kubernetes/static-pod-certs/no-such.key' } } } })]);
    const bad = from + 1;
    const degraded = await waitFor('StaticPodsDegraded naming the crashing replica', async () => {
      const c = cond(await cr(), 'StaticPodsDegraded');
      return c?.status === 'True' && c;
    }, ROLLOUT_MS);
    assert.match(degraded.message, /pod\/kube-apiserver-master-\d container "kube-apiserver" is (waiting|terminated)/);
    assert.match(degraded.message, /no-such\.crt/, 'the log tail says why');
    const o = await cr();
    const onBad = (o.status.nodeStatuses as Json[]).filter((n) => n.currentRevision === bad || n.targetRevision === bad);
    assert.equal(onBad.length, 1, `only the first master tried revision ${bad}: ${JSON.stringify(o.status.nodeStatuses)}`);
    // The other two still serve, directly and through the load balancer.
    const a = accessFrom(kubeconfig);
    assert.equal((await send(a, 'GET', '/api/v1/namespaces/default')).status, 200);
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/unsupportedConfigOverrides', value: current }])]);
    const fixed = bad + 1;
    await waitFor(`every master at revision ${fixed}`, async () => (await latest()) === fixed && allAt(fixed), ROLLOUT_MS);
    await waitFor('StaticPodsDegraded False', async () => cond(await cr(), 'StaticPodsDegraded')?.status === 'False');
  });

  it('a new service CIDR in the install-config changes observedConfig (event with the diff) and cuts a revision; so does a new forceRedeploymentReason, with that reason', async () => {
    const from = await latest();
    const cm = await json(['configmap', 'cluster-config-v1', '-n', 'kube-system']);
    const install = parse(cm.data['install-config']) as Json;
    const serviceCIDR: string = install.networking.serviceNetwork?.[0] ?? install.networking.serviceCIDR;
    assert.match(serviceCIDR, /^127\.\d+\.0\.0\/16$/);
    const narrower = serviceCIDR.replace(/\/16$/, '/17');
    const edited = JSON.stringify(install).replaceAll(`"${serviceCIDR}"`, `"${narrower}"`);
    await ok(['patch', 'configmap', 'cluster-config-v1', '-n', 'kube-system', '--type=merge', '-p', JSON.stringify({ data: { 'install-config': edited } })]);
    await waitFor('observedConfig with the new services subnet', async () => (await cr()).spec.observedConfig?.servicesSubnet === narrower);
    // Sent after the write that made observedConfig what was waited for.
    const changed = await waitFor('an ObservedConfigChanged event showing the diff', async () => {
      const found = ((await json(['events', '-n', OPERATOR_NS])).items as Json[]).filter((e) => e.reason === 'ObservedConfigChanged' && e.message.includes(narrower));
      return found.length >= 1 && found;
    });
    assert.match(changed[0].message, /servicesSubnet/);
    await waitFor(`revision ${from + 1} cut`, async () => (await latest()) >= from + 1);
    assert.match((await json(['configmap', `revision-status-${from + 1}`, '-n', OPERAND_NS])).data.reason, /configmap\/config has changed/);

    const reason = `e2e-${Date.now()}`;
    await ok(['patch', 'kubeapiserver', 'cluster', '--type=merge', '-p', JSON.stringify({ spec: { forceRedeploymentReason: reason } })]);
    const forced = await waitFor('a revision carrying the forceRedeploymentReason', async () => {
      const l = await latest();
      const pod = await kubectl(['get', 'configmap', `kube-apiserver-pod-${l}`, '-n', OPERAND_NS, '-o', 'json']);
      return pod.code === 0 && JSON.parse(pod.stdout).data.forceRedeploymentReason === reason && l;
    });
    assert.ok(forced > from + 1);
    await waitFor(`every master at revision ${forced}`, async () => allAt(forced), ROLLOUT_MS);
    const cfg = await json(['configmap', `config-${forced}`, '-n', OPERAND_NS]);
    assert.match(cfg.data['config.yaml'], new RegExp(narrower.replaceAll('.', '\\.').replace('/', '\\/')), 'the rolled config has the new services subnet');
  });

  it('a write through one replica reaches a watch on another', async () => {
    const a = accessFrom(kubeconfig);
    const ips = ((await json(['nodes', '-l', 'node-role.kubernetes.io/master'])).items as Json[]).map((n) => n.status.addresses.find((x: Json) => x.type === 'InternalIP').address).sort();
    assert.equal(ips.length, 3);
    const [writer, watcher] = [ips[0]!, ips[1]!];
    const list = JSON.parse((await send(a, 'GET', '/api/v1/namespaces/default/configmaps', { host: watcher, port: 6443 })).text);
    const seen = new Map<string, number>();
    const watch = await new Promise<{ close(): void }>((resolve, reject) => {
      const req = request(
        { method: 'GET', host: watcher, port: 6443, servername: watcher, path: `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`, ca: a.ca, cert: a.cert, key: a.key, headers: a.headers, agent: false },
        (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              if (line.trim()) {
                const ev = JSON.parse(line);
                if (ev.type === 'ADDED') seen.set(ev.object.metadata.name, performance.now());
              }
            }
          });
          resolve({ close: () => req.destroy() });
        },
      );
      req.on('error', reject);
      req.end();
    });
    try {
      const sent = new Map<string, number>();
      for (let i = 0; i < 50; i++) {
        const name = `cross-replica-${i}`;
        sent.set(name, performance.now());
        const r = await send(a, 'POST', '/api/v1/namespaces/default/configmaps', { host: writer, port: 6443, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } } });
        assert.equal(r.status, 201, r.text);
      }
      await waitFor('every write seen by the other replica\'s watch', async () => [...sent.keys()].every((n) => seen.has(n)), 60_000);
      const lat = [...sent].map(([n, t]) => seen.get(n)! - t).sort((x, y) => x - y);
      // The figure the issue names (p99 < 100 ms) is judged by `npm run bench -- replicas`; shown here.
      console.log(`# cross-replica watch latency over ${lat.length} writes: p50 ${lat[Math.floor(lat.length / 2)]!.toFixed(1)} ms, max ${lat[lat.length - 1]!.toFixed(1)} ms`);
    } finally {
      watch.close();
    }
  });
});
