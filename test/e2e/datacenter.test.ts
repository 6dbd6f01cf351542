/**
 * The acceptance scenario of the local datacenter (issue 6): `shipyard up --masters 3
 * --workers 1` in a temporary directory, driven with kubectl like a user would, then killed
 * with SIGKILL and resumed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeResult, fixture, pollUntil, type Json } from './support.ts';
import { cidrContains } from '../../src/api/cidr.ts';
import { addressBlock } from '../../src/cli/up/address-block.ts';
import { kubectlWith, processesUsing, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';

const APP_IMAGE = 'example.test/e2e/app:1';
const GRACE_SECONDS = 10;

function httpText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time (Node's global agent keeps connections alive), so the
    // service proxy gets to choose an endpoint for every request.
    httpGet(url, { timeout: 5000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('shipyard up: the local datacenter (e2e)', { timeout: 900_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-dc-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubectl = kubectlWith(kubeconfig);
  let up: UpProcess | undefined;

  const { ok, json } = strictKubectl(kubectl);
  const apply = (doc: unknown): Promise<string> => ok(['apply', '-f', '-'], JSON.stringify(doc));

  before(async () => {
    const imported = await runShipyard(['image', 'import', APP_IMAGE, '--entrypoint', fixture('e2e-app.mjs'), '--data-dir', dataDir]);
    assert.equal(imported.code, 0, imported.stderr);
    up = startUp(dataDir, ['--masters', '3', '--workers', '1', '--node-monitor-grace-period', `${GRACE_SECONDS}s`, '--api-port', '16443', '--cloud-port', '16080']);
    await up.ready(240_000);
  });

  after(() => stopUp(up, dataDir));

  /** The cluster's own addresses: block 0's unless another cluster on this machine holds them. */
  const addresses = () => addressBlock((JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as { block?: number }).block);

  it('shows 4 Ready nodes with their roles and internal IPs from its address block (127.1.x.x in block 0)', async () => {
    const out = await ok(['get', 'nodes', '-o', 'wide']);
    const lines = out.trim().split('\n').slice(1);
    assert.equal(lines.length, 4, out);
    for (const line of lines) {
      const cols = line.split(/\s+/);
      assert.equal(cols[1], 'Ready', line);
      assert.ok(cidrContains(addresses().nodeCIDR, cols[5]!), `${line}: an address of ${addresses().nodeCIDR}`);
    }
    assert.equal(lines.filter((l) => /^master-\d\s+Ready\s+control-plane,master\s/.test(l)).length, 3, out);
    assert.equal(lines.filter((l) => /^worker-0\s+Ready\s+worker\s/.test(l)).length, 1, out);
  });

  it('installs the Machine Config Operator as OpenShift does: nodes at their pools\' rendered configs, operands running, config server behind the load balancer', async () => {
    const co = await json(['clusteroperator', 'machine-config']);
    const cond = (type: string) => co.status.conditions.find((c: Json) => c.type === type)?.status;
    assert.deepEqual([cond('Available'), cond('Progressing'), cond('Degraded')], ['True', 'False', 'False'], JSON.stringify(co.status.conditions));
    assert.equal(co.status.versions.find((v: Json) => v.name === 'operator').version, '0.1.0');
    // Every node booted from its pool's rendered config and the daemon's first sync changed nothing.
    const pools = Object.fromEntries(((await json(['mcp'])).items as Json[]).map((p) => [p.metadata.name, p]));
    for (const node of (await json(['nodes'])).items as Json[]) {
      const pool = pools[node.metadata.name.startsWith('master-') ? 'master' : 'worker'];
      const a = node.metadata.annotations;
      assert.equal(a['machineconfiguration.openshift.io/currentConfig'], pool.status.configuration.name, node.metadata.name);
      assert.equal(a['machineconfiguration.openshift.io/desiredConfig'], pool.status.configuration.name, node.metadata.name);
      assert.equal(a['machineconfiguration.openshift.io/state'], 'Done', node.metadata.name);
      assert.equal(node.status.conditions.find((c: Json) => c.type === 'Ready').status, 'True');
    }
    const mcp = await ok(['get', 'mcp']);
    assert.match(mcp, /\nmaster\s+rendered-master-[0-9a-f]{32}\s+True\s+False\s+False\s+3\s+3\s+3\s+0\s/, mcp);
    assert.match(mcp, /\nworker\s+rendered-worker-[0-9a-f]{32}\s+True\s+False\s+False\s+1\s+1\s+1\s+0\s/, mcp);
    assert.equal(((await json(['mc'])).items as Json[]).filter((m) => m.metadata.name.startsWith('rendered-')).length, 2, 'the controller found the install\'s rendered configs and made no others');
    const pods = (await json(['pods', '-n', 'openshift-machine-config-operator'])).items as Json[];
    const running = (prefix: string) => pods.filter((p) => p.metadata.name.startsWith(prefix) && p.status.phase === 'Running');
    assert.equal(running('machine-config-operator-').length, 1);
    assert.equal(running('machine-config-controller-').length, 1);
    assert.deepEqual(running('machine-config-server-').map((p) => p.spec.nodeName).sort(), ['master-0', 'master-1', 'master-2']);
    const daemons = running('machine-config-daemon-');
    assert.deepEqual(daemons.map((p) => p.spec.nodeName).sort(), ['master-0', 'master-1', 'master-2', 'worker-0']);
    assert.deepEqual(daemons[0]!.spec.containers.map((c: Json) => c.name), ['machine-config-daemon', 'oauth-proxy']);
    const logs = await kubectl(['logs', daemons[0]!.metadata.name, '-n', 'openshift-machine-config-operator', '-c', 'machine-config-daemon']);
    assert.equal(logs.code, 0, describeResult(['logs'], logs));
    // The config server, through the load balancer, answers only the bootstrap token (TLS verified against the cluster CA).
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'));
    const mcs = (path: string, token?: string) =>
      new Promise<number>((resolve, reject) => {
        httpsGet({ host: addresses().host, port: 22623, path, ca, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
    assert.equal(await pollUntil('the config server behind the load balancer', async () => (await mcs('/healthz').catch(() => 0)) === 200 || undefined, { timeoutMs: 30_000, intervalMs: 500 }), true);
    assert.equal(await mcs('/config/worker'), 401);
    const token = Buffer.from((await json(['secret', 'machine-config-server-bootstrap-token', '-n', 'openshift-machine-config-operator'])).data.token, 'base64').toString();
    assert.equal(await mcs('/config/worker', token), 200);
  });

  it('runs the control plane as static pods with mirror pods', async () => {
    // The bootstrap API server from `shipyard render`, in the operand's namespace as upstream's.
    const expected = ['openshift-kube-apiserver/bootstrap-kube-apiserver-master-0'];
    for (let i = 0; i < 3; i++) expected.push(`kube-system/kube-controller-manager-master-${i}`, `kube-system/kube-scheduler-master-${i}`);
    const pods = await pollUntil(
      'a Running mirror pod for every static pod',
      async () => {
        const items = (await json(['pods', '-A'])).items as Json[];
        const running = items.filter((p) => p.status?.phase === 'Running').map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
        return expected.every((n) => running.includes(n)) ? items : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    for (const p of pods.filter((p: Json) => expected.includes(`${p.metadata.namespace}/${p.metadata.name}`))) {
      assert.equal(p.metadata.annotations['kubernetes.io/config.source'], 'file');
      assert.ok(p.metadata.annotations['kubernetes.io/config.mirror']);
      assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'Node');
    }
  });

  it('boots the API server from `shipyard render` output, and holds the facts the kube-apiserver operator observes', async () => {
    const pod = await json(['pod', 'bootstrap-kube-apiserver-master-0', '-n', 'openshift-kube-apiserver']);
    const args = pod.spec.containers[0].args as string[];
    assert.equal(args[0], '--config=/etc/kubernetes/config/kube-apiserver-config.yaml', args.join(' '));
    assert.ok(!args.some((a) => a.startsWith('--data-dir') || a.startsWith('--service-cluster-ip-range')), 'the store and the Service range come from the config');
    const config = readFileSync(join(dataDir, 'nodes', 'master-0', 'root', 'etc', 'kubernetes', 'bootstrap-configs', 'kube-apiserver-config.yaml'), 'utf8');
    assert.match(config, new RegExp(`file://${join(dataDir, 'store')}`));
    assert.match(config, new RegExp(`servicesSubnet: ${addresses().serviceCIDR.replace(/[.]/g, '\\.')}`));
    const ep = await json(['endpoints', 'host-etcd', '-n', 'kube-system']);
    assert.equal(ep.metadata.annotations['storage.shipyard.io/sqlite-store'], join(dataDir, 'store'));
    const installConfig = (await json(['configmap', 'cluster-config-v1', '-n', 'kube-system'])).data['install-config'];
    assert.match(installConfig, new RegExp(`- ${addresses().serviceCIDR.replace(/[.]/g, '\\.')}`));
    assert.doesNotMatch(installConfig, /sshKey/, 'none: the nodes booted from configs rendered without one');
  });

  it('places one pod of an anti-affine Deployment and explains why the other is Pending; drain is refused by the PDB', async () => {
    await ok(['create', 'namespace', 'spread']);
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'spread', namespace: 'spread' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'spread' } },
        template: {
          metadata: { labels: { app: 'spread' } },
          spec: {
            affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'spread' } }, topologyKey: 'kubernetes.io/hostname' }] } },
            containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }],
          },
        },
      },
    });
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'spread-pdb', namespace: 'spread' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'spread' } } } });
    const [running, pending] = await pollUntil(
      'one spread pod Running on worker-0 and one Pending',
      async () => {
        const pods = (await json(['pods', '-n', 'spread'])).items as Json[];
        const r = pods.filter((p) => p.status?.phase === 'Running');
        const p = pods.filter((p) => p.status?.phase === 'Pending' && !p.spec.nodeName);
        return r.length === 1 && p.length === 1 ? [r[0], p[0]] : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    assert.equal(running.spec.nodeName, 'worker-0');
    const event = await pollUntil(
      'a FailedScheduling event on the pending pod',
      async () => {
        const events = (await json(['events', '-n', 'spread', '--field-selector', `involvedObject.name=${pending.metadata.name},reason=FailedScheduling`])).items as Json[];
        return events[0];
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^0\/4 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules, 3 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/master: \}\./, event.message);

    await pollUntil('the PDB allows no disruption', async () => (await json(['pdb', 'spread-pdb', '-n', 'spread'])).status?.disruptionsAllowed === 0 || undefined, { timeoutMs: 30_000 });
    const drain = await kubectl(['drain', 'worker-0', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=8s'], { timeoutMs: 60_000 });
    assert.notEqual(drain.code, 0, describeResult(['drain'], drain));
    assert.match(drain.stdout + drain.stderr, /disruption budget/i);
    assert.match(drain.stdout + drain.stderr, /spread-pdb/);
    // Cordoned now: the pending pod's reasons include the unschedulable worker.
    await pollUntil(
      'FailedScheduling names the cordoned node',
      async () => {
        const events = (await json(['events', '-n', 'spread', '--field-selector', `involvedObject.name=${pending.metadata.name},reason=FailedScheduling`])).items as Json[];
        return events.some((e) => /^0\/4 nodes are available: 1 node\(s\) were unschedulable, 3 node\(s\) had untolerated taint/.test(e.message)) || undefined;
      },
      { timeoutMs: 40_000, intervalMs: 1000 },
    );
    await ok(['uncordon', 'worker-0']);
    await ok(['delete', 'namespace', 'spread', '--wait=false']);
  });

  it('puts one DaemonSet pod on each node', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { tolerations: [{ operator: 'Exists' }], containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10' }] } },
      },
    });
    const nodes = await pollUntil(
      'a Running agent pod on each of the 4 nodes',
      async () => {
        const pods = (await json(['pods', '-l', 'app=agent'])).items as Json[];
        const on = new Set(pods.filter((p) => p.status?.phase === 'Running').map((p) => p.spec.nodeName));
        return pods.length === 4 && on.size === 4 ? [...on].sort() : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    assert.deepEqual(nodes, ['master-0', 'master-1', 'master-2', 'worker-0']);
    const ds = await json(['daemonset', 'agent']);
    assert.equal(ds.status.desiredNumberScheduled, 4);
  });

  it('runs an imported image as real processes behind a Service: pod IP, ClusterIP from host and from a pod, logs, in-cluster config', async () => {
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default' }, data: { message: 'hello from a configmap' } });
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: APP_IMAGE,
                args: ['serve'],
                env: [
                  { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                ],
                ports: [{ name: 'http', containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
                volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'web-config' } }],
          },
        },
      },
    });
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } });
    await ok(['rollout', 'status', 'deployment/web', '--timeout=90s']);
    const pods = (await json(['pods', '-l', 'app=web'])).items as Json[];
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.ok(cidrContains(addresses().podCIDR, p.status.podIP), `pod IP ${p.status.podIP} in ${addresses().podCIDR}`);
      const body = await httpText(`http://${p.status.podIP}:8080/`);
      assert.match(body, new RegExp(`hello from a configmap from ${p.metadata.name} at ${p.status.podIP.replace(/\./g, '\\.')}`));
    }
    const logs = await ok(['logs', pods[0].metadata.name]);
    assert.match(logs, /listening on 127\.\d+\.\d+\.\d+:8080 with message "hello from a configmap"/);

    const svc = await json(['service', 'web']);
    const clusterIP: string = svc.spec.clusterIP;
    assert.ok(cidrContains(addresses().serviceCIDR, clusterIP), `ClusterIP ${clusterIP} in ${addresses().serviceCIDR}`);
    await pollUntil('endpoints list both pods', async () => ((await json(['endpoints', 'web'])).subsets?.[0]?.addresses?.length === 2) || undefined, { timeoutMs: 30_000 });
    const seen = new Set<string>();
    const answers: string[] = [];
    await pollUntil(
      'the ClusterIP answers from the host, from both pods',
      async () => {
        const body = await httpText(`http://${clusterIP}/`).catch((err: Error) => `error: ${err.message}`);
        answers.push(body.trim());
        const m = /from (web-\S+) at/.exec(body);
        if (m) seen.add(m[1]!);
        if (seen.size < 2) {
          const ep = await json(['endpoints', 'web']);
          const log = readFileSync(join(dataDir, 'logs', 'datacenter.log'), 'utf8').split('\n').filter((l) => l.includes('service-proxy') || l.includes('"web"') || l.includes('default/web')).slice(-5).join('\n');
          throw new Error(`answers so far: ${answers.slice(-3).join(' | ')}; endpoints: ${JSON.stringify(ep.subsets)}; proxy log: ${log}`);
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );

    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'fetcher', namespace: 'default' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'fetch', image: APP_IMAGE, args: ['fetch', `http://${clusterIP}/`] }] },
    });
    await pollUntil('fetcher pod Succeeded', async () => (await json(['pod', 'fetcher'])).status?.phase === 'Succeeded' || undefined, { timeoutMs: 60_000, intervalMs: 500 });
    assert.ok((await ok(['logs', 'fetcher'])).includes(`fetched http://${clusterIP}/: 200 hello from a configmap from web-`), await ok(['logs', 'fetcher']));

    // A pod's ServiceAccount holds only what it is granted: this one may list namespaces.
    await apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'namespace-lister' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }] });
    await apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'default-lists-namespaces' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-lister' },
      subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
    });
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'in-cluster', namespace: 'default' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'list', image: APP_IMAGE, args: ['list-namespaces'] }] },
    });
    await pollUntil('in-cluster pod Succeeded', async () => (await json(['pod', 'in-cluster'])).status?.phase === 'Succeeded' || undefined, { timeoutMs: 60_000, intervalMs: 500 });
    const listed = await ok(['logs', 'in-cluster']);
    assert.ok(new RegExp(`namespaces via ${addresses().kubernetesIP.replaceAll('.', '\\.')}:443: .*default`).test(listed), listed);
    assert.match(listed, /kube-system/);
  });

  it('turns a node NotReady and tainted unreachable once its kubelet stops, and Ready again when it starts', async () => {
    const stopped = await runShipyard(['node', 'stop-kubelet', 'worker-0', '--data-dir', dataDir]);
    assert.equal(stopped.code, 0, stopped.stderr);
    // The grace period itself is timed on a fake clock (test/cluster/nodelifecycle.test.ts); here
    // only a deadline generous for a loaded machine.
    await pollUntil(
      'worker-0 Ready=Unknown',
      async () => (await json(['node', 'worker-0'])).status.conditions.find((c: Json) => c.type === 'Ready')?.status === 'Unknown' || undefined,
      { timeoutMs: (GRACE_SECONDS + 50) * 1000, intervalMs: 250 },
    );
    // The taint is a later write than the condition: waited for, not read once.
    await pollUntil('worker-0 tainted unreachable', async () => (await json(['node', 'worker-0'])).spec.taints?.some((t: Json) => t.key === 'node.kubernetes.io/unreachable') || undefined, { timeoutMs: 30_000 });
    const started = await runShipyard(['node', 'start-kubelet', 'worker-0', '--data-dir', dataDir]);
    assert.equal(started.code, 0, started.stderr);
    await pollUntil('worker-0 Ready again', async () => (await json(['node', 'worker-0'])).status.conditions.find((c: Json) => c.type === 'Ready')?.status === 'True' || undefined, { timeoutMs: 30_000 });
  });

  it('reboots a node: NotReady, back Ready with kubelet.conf re-read, its pods running again', async () => {
    const conf = join(dataDir, 'nodes', 'worker-0', 'root', 'etc', 'kubernetes', 'kubelet.conf');
    writeFileSync(conf, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 60\n');
    const before = (await json(['pods', '-l', 'app=web'])).items.map((p: Json) => p.status.containerStatuses[0].restartCount as number);
    const rebooted = await runShipyard(['node', 'reboot', 'worker-0', '--data-dir', dataDir], 60_000);
    assert.equal(rebooted.code, 0, rebooted.stderr);
    // Sent as the reboot began, by a recorder that retries an API server it cannot reach: waited for, then counted.
    const events = await pollUntil('the Rebooted event', async () => {
      const found = (await json(['events', '--field-selector', 'involvedObject.name=worker-0,reason=Rebooted'])).items as Json[];
      return found.length > 0 ? found : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    assert.equal(events.length, 1);
    await pollUntil('worker-0 Ready with maxPods 60', async () => {
      const node = await json(['node', 'worker-0']);
      return (node.status.conditions.find((c: Json) => c.type === 'Ready')?.status === 'True' && node.status.allocatable.pods === '60') || undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const after = (await json(['pods', '-l', 'app=web'])).items.map((p: Json) => p.status.containerStatuses[0].restartCount as number);
    assert.ok(after.every((n: number, i: number) => n > (before[i] ?? 0)), `restart counts ${before} → ${after}`);
  });

  it('survives SIGKILL: no orphaned process, and a resume brings back the same nodes, objects and running pods', async () => {
    const before = (await json(['nodes'])).items.map((n: Json) => `${n.metadata.name}=${n.status.addresses.find((a: Json) => a.type === 'InternalIP').address}`).sort();
    up!.child.kill('SIGKILL');
    await up!.exited();
    await pollUntil('every process of the killed datacenter is gone', async () => processesUsing(dataDir).length === 0 || undefined, { timeoutMs: 15_000, intervalMs: 250 }).catch(() => {
      assert.fail(`orphans: ${JSON.stringify(processesUsing(dataDir))}`);
    });
    up = startUp(dataDir, []);
    await up.ready(240_000);
    const after = (await json(['nodes'])).items.map((n: Json) => `${n.metadata.name}=${n.status.addresses.find((a: Json) => a.type === 'InternalIP').address}`).sort();
    assert.deepEqual(after, before);
    await ok(['get', 'deployment', 'web']);
    // The pods' last status (Ready) survives in the API until the resumed kubelets rewrite it,
    // so ask the processes themselves, as a user would.
    const pods = (await json(['pods', '-l', 'app=web'])).items as Json[];
    assert.equal(pods.length, 2);
    for (const p of pods) {
      const body = await pollUntil(`pod ${p.metadata.name} serving again on ${p.status.podIP}`, async () => (await httpText(`http://${p.status.podIP}:8080/`).catch(() => '')) || undefined, { timeoutMs: 60_000, intervalMs: 250 });
      assert.match(body, /hello from a configmap/);
    }
    await ok(['rollout', 'status', 'deployment/web', '--timeout=90s']);
  });
});
