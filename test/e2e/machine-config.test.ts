/**
 * The Machine Config Operator's acceptance (issue 15) on real `shipyard up` datacenters with real
 * kubectl. Two datacenters run side by side so the file stays within minutes: A is the seed's
 * (`--masters 3 --workers 1`: a drain blocked by the router's PodDisruptionBudget, the worker
 * pool Degraded, `shipyard explain`, recovery once the router has room); B (`--masters 1
 * --workers 5`) rolls changes out across five workers with `maxUnavailable: 2`: pause and
 * resume, two configs writing one path, rendered names, SSH keys without a reboot, a KubeletConfig,
 * a hand edit and the force file, an unreconcilable user, daemon pods killed mid-update, the
 * config server through the load balancer, and each daemon's own guarded metrics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addressBlock } from '../../src/cli/up/address-block.ts';
import { kubectlWith, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';
import { fixture, parseTable, pollUntil, type Json } from './support.ts';

const MCO_NS = 'openshift-machine-config-operator';
const ANN = 'machineconfiguration.openshift.io/';
const SEED_FILE = 'usr/local/bin/kubeinit_kubevirt_extra_config_script';
const SEED_SCRIPT = Buffer.from(
  'IyEvdXNyL2Jpbi9iYXNoCnNldCAteAptYWluKCkgewpzdWRvIHJwbS1vc3RyZWUgaW5zdGFsbCBwb2xpY3ljb3JldXRpbHMtcHl0aG9uLXV0aWxzCnN1ZG8gc2VkIC1pICdzL2VuZm9yY2luZy9kaXNhYmxlZC9nJyAvZXRjL3NlbGludXgvY29uZmlnIC9ldGMvc2VsaW51eC9jb25maWcKfQptYWluCg==',
  'base64',
).toString();
/** A rollout of reboots across nodes on a loaded 2-core machine: generous, never asserted as a duration. */
const ROLLOUT_MS = 240_000;

interface Datacenter {
  dataDir: string;
  up?: UpProcess;
  kubectl: ReturnType<typeof kubectlWith>;
  ok: (args: string[], input?: string) => Promise<string>;
  json: (args: string[]) => Promise<Json>;
}

function datacenter(prefix: string): Datacenter {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const kubectl = kubectlWith(join(dataDir, 'kubeconfig'));
  return { dataDir, kubectl, ...strictKubectl(kubectl) };
}

const ann = (node: Json, key: string): string | undefined => node.metadata.annotations?.[ANN + key];
const ready = (node: Json): boolean => node.status?.conditions?.find((c: Json) => c.type === 'Ready')?.status === 'True';
const cond = (pool: Json, type: string): Json => pool.status?.conditions?.find((c: Json) => c.type === type);
const machineConfig = (name: string, config: Json, role = 'worker') => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfig',
  metadata: { name, labels: { [`${ANN}role`]: role } },
  spec: { config: { ignition: { version: '3.4.0' }, ...config } },
});
const fileConfig = (path: string, text: string) => ({ storage: { files: [{ path, mode: 0o644, overwrite: true, contents: { source: `data:,${encodeURIComponent(text)}` } }] } });

async function workers(dc: Datacenter): Promise<Json[]> {
  return ((await dc.json(['nodes', '-l', 'node-role.kubernetes.io/worker'])).items as Json[]).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** The pool once Updated at a target other than `from` (or at `to`), every machine updated. */
async function poolUpdated(dc: Datacenter, pool: string, target: { from?: string; to?: string }, timeoutMs = ROLLOUT_MS): Promise<Json> {
  return pollUntil(
    `pool ${pool} Updated at ${target.to ?? `a config other than ${target.from}`}`,
    async () => {
      const p = await dc.json(['mcp', pool]);
      const name = p.status?.configuration?.name;
      const at = target.to ? name === target.to : name !== target.from;
      return (at && cond(p, 'Updated')?.status === 'True' && p.status.updatedMachineCount === p.status.machineCount && p.spec.configuration?.name === name) ? p : undefined;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}

/** The pool's target once the render controller moved it away from `from`. */
async function newTarget(dc: Datacenter, pool: string, from: string): Promise<string> {
  return pollUntil(`pool ${pool} targets a config other than ${from}`, async () => {
    const name = (await dc.json(['mcp', pool])).spec?.configuration?.name as string | undefined;
    return name && name !== from ? name : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
}

function configServer(dc: Datacenter, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const host = addressBlock((JSON.parse(readFileSync(join(dc.dataDir, 'cluster.json'), 'utf8')) as { block?: number }).block).host;
  const ca = readFileSync(join(dc.dataDir, 'pki', 'ca.crt'));
  return new Promise((resolve, reject) => {
    httpsGet({ host, port: 22623, path, ca, agent: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** GET on a daemon's own metrics endpoint, TLS verified against the cluster CA (its certificate's signer chains to it). */
function daemonMetrics(dc: Datacenter, host: string, token?: string): Promise<{ status: number; body: string }> {
  const ca = readFileSync(join(dc.dataDir, 'pki', 'ca.crt'));
  return new Promise((resolve, reject) => {
    httpsGet({ host, port: 9001, path: '/metrics', ca, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

const nodeRoot = (dc: Datacenter, node: string, path: string): string => join(dc.dataDir, 'nodes', node, 'root', path);

describe('machine-config operator acceptance (e2e)', { timeout: 900_000, concurrency: true }, () => {
  // Both clusters boot at the same moment: each claims an address block of its own (block-claim.ts).
  describe('the seed: a PodDisruptionBudget blocks the worker\'s drain (--masters 3 --workers 1)', { concurrency: 1 }, () => {
    const dc = datacenter('shipyard-mco-seed-');
    before(async () => {
      dc.up = startUp(dc.dataDir, ['--masters', '3', '--workers', '1', '--api-port', '17443', '--cloud-port', '17080']);
      await dc.up.ready(300_000);
    });
    after(() => stopUp(dc.up, dc.dataDir));

    it('the pool goes Updating then Degraded naming the pod and the PDB; once the router has room the daemon finishes alone', async () => {
      const { ok, json } = dc;
      const before = await poolUpdated(dc, 'worker', { from: '' }, 120_000);
      await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-ingress' } }));
      await ok(['apply', '-f', '-'], JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'router-default', namespace: 'openshift-ingress' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'router-default' } },
          template: {
            metadata: { labels: { app: 'router-default' } },
            spec: {
              affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'router-default' } }, topologyKey: 'kubernetes.io/hostname' }] } },
              containers: [{ name: 'router', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        },
      }));
      await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'router-default', namespace: 'openshift-ingress' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'router-default' } } } }));
      const routerPod = await pollUntil('one router pod Running on worker-0, the other Pending', async () => {
        const pods = (await json(['pods', '-n', 'openshift-ingress'])).items as Json[];
        const running = pods.filter((p) => p.status?.phase === 'Running' && p.spec.nodeName === 'worker-0');
        return running.length === 1 && pods.length === 2 ? (running[0].metadata.name as string) : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500 });
      await pollUntil('the PDB allows no disruption', async () => (await json(['pdb', 'router-default', '-n', 'openshift-ingress'])).status?.disruptionsAllowed === 0 || undefined, { timeoutMs: 30_000 });

      const applied = await ok(['apply', '-f', fixture('99-kubeinit-extra-config-worker.yaml')]);
      assert.match(applied, /machineconfig\.machineconfiguration\.openshift\.io\/99-kubeinit-extra-config-worker created/);
      const mcpRow = async () => {
        const t = parseTable(await ok(['get', 'mcp', 'worker']));
        return Object.fromEntries(t.header.map((h, i) => [h, t.rows[0]![i]]));
      };
      await pollUntil('kubectl get mcp worker: UPDATING True', async () => (await mcpRow()).UPDATING === 'True' || undefined, { timeoutMs: 60_000, intervalMs: 500 });
      const degraded = await pollUntil('kubectl get mcp worker: DEGRADED True, DEGRADEDMACHINECOUNT 1', async () => {
        const row = await mcpRow();
        return row.DEGRADED === 'True' && row.DEGRADEDMACHINECOUNT === '1' ? row : undefined;
      }, { timeoutMs: 200_000, intervalMs: 1000 });
      assert.equal(degraded.CONFIG, before.status.configuration.name, 'CONFIG stays the last completed config');
      assert.equal(degraded.UPDATED, 'False');
      assert.equal(degraded.MACHINECOUNT, '1');
      const nodes = parseTable(await ok(['get', 'node', 'worker-0']));
      assert.equal(nodes.rows[0]![1], 'Ready,SchedulingDisabled');

      const pool = await json(['mcp', 'worker']);
      const message = cond(pool, 'NodeDegraded')?.message as string;
      assert.equal(cond(pool, 'NodeDegraded')?.reason, '1 nodes are reporting degraded status on sync');
      assert.ok(message.includes(`Node worker-0 is reporting: "failed to drain node worker-0`), message);
      assert.ok(message.includes(`openshift-ingress/${routerPod}`), message);
      assert.ok(message.includes('PodDisruptionBudget openshift-ingress/router-default'), message);
      assert.equal(cond(pool, 'Degraded')?.status, 'True');
      const explained = await runShipyard(['explain', 'mcp/worker', '--data-dir', dc.dataDir]);
      assert.equal(explained.code, 0, explained.stderr);
      assert.match(explained.stdout, /^MachineConfigPool worker: Updating, Degraded; 1 node\(s\)$/m, explained.stdout);
      assert.match(explained.stdout, new RegExp(`blocked by: pod (openshift-ingress/)?${routerPod} cannot be evicted: it would violate PodDisruptionBudget openshift-ingress/router-default`), explained.stdout);
      assert.match(explained.stdout, /cannot be scheduled elsewhere: 0\/4 nodes are available/, explained.stdout);
      const logs = await ok(['logs', '-n', MCO_NS, '-c', 'machine-config-daemon', await daemonPod(dc, 'worker-0')]);
      assert.match(logs, /Checking Reconcilable for config rendered-worker-[0-9a-f]{32} to rendered-worker-[0-9a-f]{32}/, logs);
      assert.match(logs, /Update prepared; beginning drain/, logs);
      assert.match(logs, /Cannot evict pod as it would violate the pod's disruption budget/, logs);

      // One router is enough, and a budget that lets it move (with minAvailable 1, a lone pod
      // may never be evicted, in Kubernetes as here): the daemon's retries get through alone.
      await ok(['scale', 'deployment', 'router-default', '-n', 'openshift-ingress', '--replicas=1']);
      await ok(['patch', 'pdb', 'router-default', '-n', 'openshift-ingress', '--type=merge', '-p', '{"spec":{"minAvailable":0}}']);
      const done = await poolUpdated(dc, 'worker', { from: before.status.configuration.name });
      assert.match(done.status.configuration.name, /^rendered-worker-[0-9a-f]{32}$/);
      assert.ok(done.status.configuration.source.some((s: Json) => s.name === '99-kubeinit-extra-config-worker'));
      const file = nodeRoot(dc, 'worker-0', SEED_FILE);
      assert.equal(readFileSync(file, 'utf8'), SEED_SCRIPT);
      assert.equal(statSync(file).mode & 0o7777, 0o755);
      const worker = await json(['node', 'worker-0']);
      assert.equal(worker.spec.unschedulable ?? false, false);
      assert.equal(ann(worker, 'state'), 'Done');
    });
  });

  describe('rollouts across five workers with maxUnavailable 2 (--masters 1 --workers 5)', { concurrency: 1 }, () => {
    const dc = datacenter('shipyard-mco-five-');
    before(async () => {
      dc.up = startUp(dc.dataDir, ['--masters', '1', '--workers', '5', '--api-port', '18443', '--cloud-port', '18080']);
      await dc.up.ready(300_000);
      await poolUpdated(dc, 'worker', { from: '' }, 120_000);
      await dc.ok(['patch', 'mcp', 'worker', '--type=merge', '-p', '{"spec":{"maxUnavailable":2}}']);
    });
    after(() => stopUp(dc.up, dc.dataDir));

    it('the config server: 401 without the token, 403 with a wrong one, Accept 3.4.0 a 3.4.0 config, none 2.2.0', async () => {
      await pollUntil('the config server behind the load balancer', async () => (await configServer(dc, '/healthz', {}).catch(() => ({ status: 0 }))).status === 200 || undefined, { timeoutMs: 60_000, intervalMs: 500 });
      assert.equal((await configServer(dc, '/config/worker', {})).status, 401);
      assert.equal((await configServer(dc, '/config/worker', { authorization: 'Bearer not-the-token' })).status, 403);
      const token = Buffer.from((await dc.json(['secret', 'machine-config-server-bootstrap-token', '-n', MCO_NS])).data.token, 'base64').toString();
      const v34 = await configServer(dc, '/config/worker', { authorization: `Bearer ${token}`, accept: 'application/vnd.coreos.ignition+json;version=3.4.0' });
      assert.equal(v34.status, 200, v34.body);
      assert.equal(JSON.parse(v34.body).ignition.version, '3.4.0');
      const plain = await configServer(dc, '/config/worker', { authorization: `Bearer ${token}` });
      assert.equal(plain.status, 200, plain.body);
      assert.equal(JSON.parse(plain.body).ignition.version, '2.2.0');
    });

    it('every daemon\'s oauth-proxy guards its metrics on its node\'s address :9001: 401 without a token, 403 without GET /metrics, 200 for system:monitoring', async () => {
      await dc.ok(['create', 'serviceaccount', 'scraper', '-n', 'default']);
      await dc.ok(['create', 'serviceaccount', 'nobody', '-n', 'default']);
      await dc.ok(['create', 'clusterrolebinding', 'e2e-scraper-monitoring', '--clusterrole=system:monitoring', '--serviceaccount=default:scraper']);
      const scraper = (await dc.ok(['create', 'token', 'scraper', '-n', 'default'])).trim();
      const nobody = (await dc.ok(['create', 'token', 'nobody', '-n', 'default'])).trim();
      const pods = ((await dc.json(['pods', '-n', MCO_NS, '-l', 'k8s-app=machine-config-daemon'])).items as Json[]).filter((p) => p.status.phase === 'Running');
      assert.equal(pods.length, 6, 'one daemon per node');
      for (const pod of pods) {
        const host = pod.status.podIP as string;
        assert.deepEqual(pod.spec.containers.map((c: Json) => c.name), ['machine-config-daemon', 'oauth-proxy']);
        await pollUntil(`${pod.spec.nodeName}'s daemon serving`, async () => (await daemonMetrics(dc, host).catch(() => ({ status: 0 }))).status === 401 || undefined, { timeoutMs: 60_000, intervalMs: 500 });
        assert.deepEqual(await daemonMetrics(dc, host), { status: 401, body: 'Unauthorized\n' });
        assert.equal((await daemonMetrics(dc, host, 'not-a-token')).status, 401);
        assert.equal((await daemonMetrics(dc, host, nobody)).body, 'Forbidden (user=system:serviceaccount:default:nobody, verb=get, resource=, subresource=)\n');
        const allowed = await daemonMetrics(dc, host, scraper);
        assert.equal(allowed.status, 200, allowed.body);
        assert.match(allowed.body, /^mcd_state\{state="[A-Za-z]+",reason="[^"]*"\} 1$/m, `${pod.spec.nodeName}: ${allowed.body.slice(0, 400)}`);
      }
    });

    it('an SSH key change completes with no reboot (bootIDs unchanged)', async () => {
      const before = await workers(dc);
      const from = (await dc.json(['mcp', 'worker'])).status.configuration.name;
      const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eE2eE2eE2eE2eE2eE2eE2eE2eE2eE2eE2eE2eE2e e2e@shipyard';
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machineConfig('99-worker-e2e-ssh', { passwd: { users: [{ name: 'core', sshAuthorizedKeys: [key] }] } })));
      await poolUpdated(dc, 'worker', { from });
      const after = await workers(dc);
      for (const [i, n] of after.entries()) {
        assert.equal(n.status.nodeInfo.bootID, before[i].status.nodeInfo.bootID, `${n.metadata.name} did not reboot`);
        assert.ok(readFileSync(nodeRoot(dc, n.metadata.name, 'home/core/.ssh/authorized_keys.d/ignition'), 'utf8').includes(key), n.metadata.name);
      }
    });

    it('two configs writing one path: paused, the rendered name follows content (stable for equal content); resumed, the later by name wins on every worker, never more than 2 unavailable, each rebooted, daemon pods killed mid-update', async (t) => {
      const path = '/etc/e2e/shared.conf';
      await dc.ok(['patch', 'mcp', 'worker', '--type=merge', '-p', '{"spec":{"paused":true}}']);
      const r0 = (await dc.json(['mcp', 'worker'])).spec.configuration.name as string;
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machineConfig('50-e2e-a', fileConfig(path, 'from a\n'))));
      const ra = await newTarget(dc, 'worker', r0);
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machineConfig('60-e2e-b', fileConfig(path, 'from b\n'))));
      const rb = await newTarget(dc, 'worker', ra);
      const rendered = await dc.json(['mc', rb]);
      const files = (rendered.spec.config.storage.files as Json[]).filter((f) => f.path === path);
      assert.equal(files.length, 1);
      assert.equal(decodeURIComponent(files[0].contents.source.replace(/^data:,/, '')), 'from b\n');
      // Equal content, equal name: without 60-e2e-b the target is a's again, and with it back, b's.
      await dc.ok(['delete', 'mc', '60-e2e-b']);
      assert.equal(await newTarget(dc, 'worker', rb), ra);
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machineConfig('60-e2e-b', fileConfig(path, 'from b\n'))));
      assert.equal(await newTarget(dc, 'worker', ra), rb);
      // The node controller writes the pool's status after it sees the render controller's spec write: waited for.
      const pool = await pollUntil('the paused pool says it will not update to b', async () => {
        const p = await dc.json(['mcp', 'worker']);
        return cond(p, 'Updating')?.message === `Pool is paused; will not update to MachineConfig ${rb}` ? p : undefined;
      }, { timeoutMs: 60_000 });
      assert.equal(pool.status.configuration.name, r0);
      for (const n of await workers(dc)) assert.equal(ann(n, 'desiredConfig'), r0, `${n.metadata.name} is not given a paused pool's target`);

      const before = await workers(dc);
      await dc.ok(['patch', 'mcp', 'worker', '--type=merge', '-p', '{"spec":{"paused":false}}']);
      let maxUnavailable = 0;
      let samples = 0;
      const killed = new Set<string>();
      const killedNodes = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const nodes = await workers(dc).catch(() => undefined);
          if (nodes) {
            samples++;
            const unavailable = nodes.filter((n) => !ready(n) || n.spec.unschedulable || ann(n, 'currentConfig') !== ann(n, 'desiredConfig') || ann(n, 'state') !== 'Done');
            maxUnavailable = Math.max(maxUnavailable, unavailable.length);
            // A daemon killed mid-update at different steps (just targeted, cordoned, rebooting), each step once, each node once.
            for (const n of unavailable) {
              if (ann(n, 'desiredConfig') !== rb || ann(n, 'currentConfig') === rb || killedNodes.has(n.metadata.name)) continue;
              const step = !ready(n) ? 'rebooting' : n.spec.unschedulable ? 'cordoned' : 'targeted';
              if (killed.has(step)) continue;
              const pod = await daemonPod(dc, n.metadata.name).catch(() => undefined);
              if (!pod) continue;
              killed.add(step);
              killedNodes.add(n.metadata.name);
              await dc.kubectl(['delete', 'pod', pod, '-n', MCO_NS, '--grace-period=0', '--force']);
              break;
            }
          }
          await new Promise((r) => setTimeout(r, 300));
        }
      })();
      try {
        await poolUpdated(dc, 'worker', { to: rb });
      } finally {
        sampling = false;
        await sampler;
      }
      assert.ok(samples > 5, `sampled ${samples} times`);
      assert.ok(maxUnavailable <= 2, `at most 2 workers unavailable at once, saw ${maxUnavailable}`);
      assert.ok(killed.size > 0, 'a daemon pod was killed mid-update');
      t.diagnostic(`daemon pods killed at: ${[...killed].join(', ')}`);
      const after = await workers(dc);
      for (const [i, n] of after.entries()) {
        assert.equal(ann(n, 'state'), 'Done', n.metadata.name);
        assert.equal(ann(n, 'currentConfig'), rb, n.metadata.name);
        assert.notEqual(n.status.nodeInfo.bootID, before[i].status.nodeInfo.bootID, `${n.metadata.name} rebooted for a file change`);
        assert.equal(readFileSync(nodeRoot(dc, n.metadata.name, path), 'utf8'), 'from b\n', n.metadata.name);
      }
    });

    it('a hand-edited managed file turns the node Degraded with the content mismatch; the force file recovers it', async () => {
      const file = nodeRoot(dc, 'worker-0', 'etc/e2e/shared.conf');
      writeFileSync(file, 'edited by hand\n');
      const node = await pollUntil('worker-0 Degraded', async () => {
        const n = await dc.json(['node', 'worker-0']);
        return ann(n, 'state') === 'Degraded' ? n : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500 });
      assert.match(ann(node, 'reason')!, /unexpected on-disk state validating against rendered-worker-[0-9a-f]{32}: content mismatch for file "\/etc\/e2e\/shared\.conf"/);
      writeFileSync(nodeRoot(dc, 'worker-0', 'run/machine-config-daemon-force'), '');
      await pollUntil('worker-0 Done with the file restored', async () => {
        const n = await dc.json(['node', 'worker-0']);
        return (ann(n, 'state') === 'Done' && ready(n) && !n.spec.unschedulable && readFileSync(file, 'utf8') === 'from b\n') || undefined;
      }, { timeoutMs: 120_000, intervalMs: 1000 });
    });

    it('a MachineConfig adding a user other than core leaves nodes Unreconcilable with the reason; deleting it recovers the pool', async () => {
      const from = (await dc.json(['mcp', 'worker'])).status.configuration.name as string;
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machineConfig('99-worker-e2e-user', { passwd: { users: [{ name: 'alice' }] } })));
      const stuck = await pollUntil('a worker Unreconcilable', async () => (await workers(dc)).find((n) => ann(n, 'state') === 'Unreconcilable'), { timeoutMs: 60_000, intervalMs: 500 });
      assert.match(ann(stuck, 'reason')!, new RegExp(`^can't reconcile config ${from} with rendered-worker-[0-9a-f]{32}: ignition passwd user section contains unsupported changes: non-core user$`));
      await pollUntil('the pool Degraded', async () => cond(await dc.json(['mcp', 'worker']), 'Degraded')?.status === 'True' || undefined, { timeoutMs: 60_000, intervalMs: 500 });
      await dc.ok(['delete', 'mc', '99-worker-e2e-user']);
      await pollUntil('the pool Updated at its previous config, not Degraded, every worker Done', async () => {
        const p = await dc.json(['mcp', 'worker']);
        const ns = await workers(dc);
        return (p.status.configuration.name === from && cond(p, 'Updated')?.status === 'True' && cond(p, 'Degraded')?.status === 'False' && ns.every((n) => ann(n, 'state') === 'Done' && ann(n, 'desiredConfig') === from)) || undefined;
      }, { timeoutMs: 120_000, intervalMs: 1000 });
    });

    it('a KubeletConfig setting maxPods 50 for the worker pool ends with every worker\'s allocatable pods at 50', async () => {
      const from = (await dc.json(['mcp', 'worker'])).status.configuration.name as string;
      await dc.ok(['apply', '-f', '-'], JSON.stringify({
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'KubeletConfig',
        metadata: { name: 'worker-max-pods' },
        spec: { machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } }, kubeletConfig: { maxPods: 50 } },
      }));
      await poolUpdated(dc, 'worker', { from });
      await pollUntil('every worker allocatable pods 50', async () => (await workers(dc)).every((n) => n.status.allocatable.pods === '50') || undefined, { timeoutMs: 60_000, intervalMs: 1000 });
      const kc = await dc.json(['kubeletconfig', 'worker-max-pods']);
      assert.equal(kc.status.conditions.at(-1).type, 'Success');
    });
  });
});

async function daemonPod(dc: Datacenter, node: string): Promise<string> {
  const pods = (await dc.json(['pods', '-n', MCO_NS, '--field-selector', `spec.nodeName=${node}`])).items as Json[];
  const pod = pods.find((p) => p.metadata.name.startsWith('machine-config-daemon-') && !p.metadata.deletionTimestamp);
  if (!pod) throw new Error(`no machine-config-daemon pod on ${node}`);
  return pod.metadata.name as string;
}
