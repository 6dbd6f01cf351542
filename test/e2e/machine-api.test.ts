/**
 * The Machine API Operator's acceptance (issue 16) on real `shipyard up` datacenters with real
 * kubectl. Two datacenters run side by side so the file stays within minutes:
 *
 * - A (`--masters 1 --workers 1`) scales the worker MachineSet up (new machines boot from the
 *   machine-config server with the bootstrap token and join by a certificate signing request)
 *   and down (the annotated Machine first, drained, its Node and instance gone), then runs the
 *   seed's health checks: v1beta1 with `maxUnhealthy: 0` (nothing remediated, and it says why),
 *   then allowed (the Machine replaced), then the seed's v1alpha1 form with
 *   `node-unhealthy-conditions`.
 * - B (`--masters 1 --workers 0`) runs seed 000's component swap with every command as written
 *   (kubectl for oc), the operator from the host with `--kubeconfig` and `--images-json` (seed
 *   003's dev loop), and a Machine with an invalid providerSpec.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { kubectlWith, processesUsing, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';
import { parseTable, pollUntil, type Json } from './support.ts';

const NS = 'openshift-machine-api';
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** Machines boot, join and drain on a loaded 2-core machine: generous, never asserted as a duration. */
const MACHINE_MS = 240_000;

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

const cond = (o: Json, type: string): Json => o?.status?.conditions?.find((c: Json) => c.type === type);
const nodeReady = (n: Json): boolean => cond(n, 'Ready')?.status === 'True';

function table(stdout: string): Record<string, string>[] {
  const t = parseTable(stdout);
  return t.rows.map((r) => Object.fromEntries(t.header.map((h, i) => [h, r[i] ?? ''])));
}

async function machines(dc: Datacenter, selector?: string): Promise<Json[]> {
  return (await dc.json(['machines', '-n', NS, ...(selector ? ['-l', selector] : [])])).items as Json[];
}

async function workerSet(dc: Datacenter): Promise<Json> {
  const sets = (await dc.json(['machinesets', '-n', NS])).items as Json[];
  assert.equal(sets.length, 1, `one worker MachineSet per zone used: ${sets.map((s) => s.metadata.name).join(', ')}`);
  return sets[0];
}

/** The set's Machines once `count` of them are Running with a nodeRef to a Ready Node. */
async function runningMachines(dc: Datacenter, setName: string, count: number): Promise<Json[]> {
  return pollUntil(`${count} Machines of ${setName} Running with Ready Nodes`, async () => {
    const ms = await machines(dc, `machine.openshift.io/cluster-api-machineset=${setName}`);
    if (ms.length !== count || !ms.every((m) => m.status?.phase === 'Running' && m.status?.nodeRef?.name)) return undefined;
    for (const m of ms) {
      const node = await dc.json(['node', m.status.nodeRef.name]).catch(() => undefined);
      if (!node || !nodeReady(node)) return undefined;
    }
    return ms;
  }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
}

function instances(dc: Datacenter): Json[] {
  return JSON.parse(readFileSync(join(dc.dataDir, 'cloud', 'state.json'), 'utf8')).instances as Json[];
}

const instanceState = (dc: Datacenter, name: string): string | undefined => instances(dc).find((i) => i.name === name && i.state !== 'terminated')?.state ?? (instances(dc).some((i) => i.name === name) ? 'terminated' : undefined);

describe('machine-api operator acceptance (e2e)', { timeout: 1_200_000, concurrency: true }, () => {
  // Both clusters boot at the same moment: each claims an address block of its own (block-claim.ts).
  describe('MachineSets and health checks (--masters 1 --workers 1)', { concurrency: 1 }, () => {
    const dc = datacenter('shipyard-mao-sets-');
    let setName = '';
    before(async () => {
      dc.up = startUp(dc.dataDir, ['--masters', '1', '--workers', '1', '--api-port', '19443', '--cloud-port', '19080', '--node-monitor-grace-period', '10s']);
      await dc.up.ready(300_000);
      setName = (await workerSet(dc)).metadata.name;
    });
    after(() => stopUp(dc.up, dc.dataDir));

    it('the installed nodes are Machines: kubectl shows them as oc does, and machine-api is Available', async () => {
      const co = await pollUntil('ClusterOperator machine-api Available', async () => {
        const c = await dc.json(['clusteroperator', 'machine-api']).catch(() => undefined);
        return cond(c, 'Available')?.status === 'True' ? c : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      assert.match(cond(co, 'Available').message, /Cluster Machine API Operator is available at operator: /);
      await runningMachines(dc, setName, 1);
      const rows = table(await dc.ok(['get', 'machines', '-n', NS]));
      assert.deepEqual(Object.keys(rows[0]!), ['NAME', 'PHASE', 'TYPE', 'REGION', 'ZONE', 'AGE']);
      const byName = Object.fromEntries(rows.map((r) => [r.NAME, r]));
      assert.equal(byName['master-0']?.PHASE, 'Running');
      assert.equal(byName['master-0']?.TYPE, 's.xlarge');
      assert.equal(byName['worker-0']?.PHASE, 'Running');
      assert.equal(byName['worker-0']?.REGION, 'local');
      assert.match(setName, /^shipyard-[0-9a-f]{5}-worker-local-[abc]$/);
      // The MachineSet's counts follow its Node watch, and nodelink patches the Node after the
      // nodeRef: later writes than the Machines' Running that was waited for, so waited for too.
      const sets = await pollUntil('kubectl get machinesets: 1 1 1 1', async () => {
        const t = table(await dc.ok(['get', 'machinesets', '-n', NS]));
        return [t[0]?.DESIRED, t[0]?.CURRENT, t[0]?.READY, t[0]?.AVAILABLE].join(' ') === '1 1 1 1' ? t : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500 });
      assert.deepEqual(Object.keys(sets[0]!), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AVAILABLE', 'AGE']);
      await pollUntil('worker-0 annotated with its Machine', async () => (await dc.json(['node', 'worker-0'])).metadata.annotations?.['machine.openshift.io/machine'] === `${NS}/worker-0` || undefined, { timeoutMs: 60_000, intervalMs: 500 });
    });

    it('kubectl scale machineset --replicas=3: new Machines boot from the config server, join by CSR and carry the Machine\'s labels', async () => {
      await dc.ok(['patch', 'machineset', setName, '-n', NS, '--type=merge', '-p', JSON.stringify({ spec: { template: { spec: { metadata: { labels: { 'shipyard.io/e2e': 'joined' } } } } } })]);
      await dc.ok(['scale', 'machineset', setName, '-n', NS, '--replicas=3']);
      const ms = await runningMachines(dc, setName, 3);
      const fresh = ms.filter((m) => m.metadata.name !== 'worker-0');
      assert.equal(fresh.length, 2);
      const csrs = (await dc.json(['csr'])).items as Json[];
      for (const m of fresh) {
        assert.match(m.metadata.name, new RegExp(`^${setName}-[a-z0-9]{5}$`));
        assert.match(m.spec.providerID, /^shipyard:\/\/local\/local-[abc]\/i-[0-9a-f]{17}$/);
        // Nodelink patches the Node after it writes the nodeRef, apart from the Running waited for.
        const node = await pollUntil(`${m.status.nodeRef.name} labelled from its Machine`, async () => {
          const n = await dc.json(['node', m.status.nodeRef.name]);
          return n.metadata.labels?.['shipyard.io/e2e'] === 'joined' ? n : undefined;
        }, { timeoutMs: 60_000, intervalMs: 500 });
        assert.equal(node.metadata.labels['shipyard.io/e2e'], 'joined', 'nodelink copies the Machine\'s labels');
        assert.ok('node-role.kubernetes.io/worker' in node.metadata.labels, 'the role comes from the worker pool\'s kubelet unit');
        assert.equal(node.spec.providerID, m.spec.providerID);
        // It booted from the config server: the bootstrap kubeconfig the server serves is on its root.
        const root = join(dc.dataDir, 'nodes', m.metadata.name, 'root');
        assert.ok(existsSync(join(root, 'etc/kubernetes/kubeconfig')), 'bootstrap kubeconfig from the config server');
        assert.match(readFileSync(join(root, 'etc/kubernetes/kubeconfig'), 'utf8'), /token:/);
        // And joined by a certificate signing request: its kubelet's credential is a certificate for its own name.
        const kubeconfig = readFileSync(join(root, 'var/lib/kubelet/kubeconfig'), 'utf8');
        const certData = /client-certificate-data: (\S+)/.exec(kubeconfig)?.[1];
        assert.ok(certData, 'the kubelet kubeconfig holds a client certificate');
        const cert = new X509Certificate(Buffer.from(certData, 'base64'));
        assert.match(cert.subject, new RegExp(`CN=system:node:${m.metadata.name}`));
        assert.ok(csrs.some((c) => c.spec.username === 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper' && c.status?.certificate && new X509Certificate(Buffer.from(c.status.certificate, 'base64')).subject.includes(`system:node:${m.metadata.name}`)), `an issued CSR from the node-bootstrapper for ${m.metadata.name}`);
      }
      const issued = table(await dc.ok(['get', 'csr']));
      assert.ok(issued.filter((r) => r.CONDITION === 'Approved,Issued' && r.SIGNERNAME === 'kubernetes.io/kube-apiserver-client-kubelet').length >= 2, JSON.stringify(issued));
    });

    it('scaling to 1 deletes the annotated Machine first, drains its Node, and its Node and instance are gone', async () => {
      // A workload on worker-0 that must move when it is drained.
      await dc.ok(['create', 'deployment', 'drained', '--image=registry.k8s.io/pause:3.10', '--replicas=3']);
      await pollUntil('a pod of deployment drained on worker-0', async () => ((await dc.json(['pods', '-l', 'app=drained'])).items as Json[]).some((p) => p.spec.nodeName === 'worker-0' && p.status?.phase === 'Running') || undefined, { timeoutMs: 60_000, intervalMs: 500 });
      await dc.ok(['annotate', 'machine', 'worker-0', '-n', NS, 'machine.openshift.io/delete-machine=true']);
      const before = (await machines(dc, `machine.openshift.io/cluster-api-machineset=${setName}`)).map((m) => m.metadata.name as string).sort();
      await dc.ok(['scale', 'machineset', setName, '-n', NS, '--replicas=1']);
      const left = await pollUntil('one Machine left in the set', async () => {
        const ms = await machines(dc, `machine.openshift.io/cluster-api-machineset=${setName}`);
        return ms.length === 1 ? ms : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      assert.notEqual(left[0].metadata.name, 'worker-0', 'the annotated Machine went first');
      const gone = before.filter((n) => n !== left[0].metadata.name);
      for (const name of gone) {
        await pollUntil(`node ${name} deleted`, async () => (await dc.kubectl(['get', 'node', name])).code !== 0 || undefined, { timeoutMs: 60_000, intervalMs: 500 });
        assert.equal(instanceState(dc, name), 'terminated', `instance ${name}`);
      }
      const pods = (await dc.json(['pods', '-l', 'app=drained'])).items as Json[];
      assert.ok(pods.every((p) => !gone.includes(p.spec.nodeName)), 'no pod left on a deleted machine');
      const events = (await dc.json(['events', '-n', NS, '--field-selector', 'involvedObject.name=worker-0'])).items as Json[];
      assert.ok(events.some((e) => /drain/i.test(`${e.reason} ${e.message}`)), `drain events for worker-0: ${events.map((e) => e.reason).join(', ')}`);
      await dc.ok(['delete', 'deployment', 'drained']);
    });

    it('MachineHealthCheck: maxUnhealthy 0 remediates nothing and says why; allowed, the Machine is replaced; the seed\'s v1alpha1 form too', async () => {
      const [victim] = await runningMachines(dc, setName, 1);
      const selector = { matchLabels: { 'machine.openshift.io/cluster-api-machineset': setName } };
      await dc.ok(['apply', '-f', '-'], JSON.stringify({
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'MachineHealthCheck',
        metadata: { name: 'workers', namespace: NS },
        spec: {
          selector,
          unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '10s' }, { type: 'Ready', status: 'False', timeout: '10s' }],
          maxUnhealthy: 0,
        },
      }));
      const stopped = await runShipyard(['node', 'stop-kubelet', victim.status.nodeRef.name, '--data-dir', dc.dataDir]);
      assert.equal(stopped.code, 0, stopped.stderr);
      const mhc = await pollUntil('RemediationAllowed False, TooManyUnhealthy', async () => {
        const m = await dc.json(['mhc', 'workers', '-n', NS]);
        return cond(m, 'RemediationAllowed')?.status === 'False' ? m : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      assert.equal(cond(mhc, 'RemediationAllowed').reason, 'TooManyUnhealthy');
      assert.equal(mhc.status.remediationsAllowed, 0);
      assert.equal(mhc.status.expectedMachines, 1);
      assert.equal(mhc.status.currentHealthy, 0);
      const row = table(await dc.ok(['get', 'mhc', '-n', NS]))[0]!;
      assert.deepEqual([row.NAME, row.MAXUNHEALTHY, row.EXPECTEDMACHINES, row.CURRENTHEALTHY], ['workers', '0', '1', '0']);
      const victimNow = await dc.json(['machine', victim.metadata.name, '-n', NS]);
      assert.equal(victimNow.metadata.deletionTimestamp, undefined, 'nothing remediated');

      await dc.ok(['patch', 'mhc', 'workers', '-n', NS, '--type=merge', '-p', '{"spec":{"maxUnhealthy":"100%"}}']);
      const replaced = await pollUntil('a replacement Machine Running with a Ready Node', async () => {
        const ms = await machines(dc, `machine.openshift.io/cluster-api-machineset=${setName}`);
        const fresh = ms.filter((m) => m.metadata.name !== victim.metadata.name);
        if (fresh.length !== 1 || fresh[0].status?.phase !== 'Running' || !fresh[0].status?.nodeRef) return undefined;
        const node = await dc.json(['node', fresh[0].status.nodeRef.name]).catch(() => undefined);
        return node && nodeReady(node) && !ms.some((m) => m.metadata.name === victim.metadata.name) ? fresh[0] : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      const events = (await dc.json(['events', '-n', NS])).items as Json[];
      assert.ok(events.some((e) => e.reason === 'DetectedUnhealthy'), 'DetectedUnhealthy');
      assert.ok(events.some((e) => e.reason === 'MachineDeleted'), 'MachineDeleted');
      assert.ok(events.some((e) => e.reason === 'RemediationRestricted'), 'RemediationRestricted');
      await dc.ok(['delete', 'mhc', 'workers', '-n', NS]);

      // The seed's form: only a selector, plus the conditions of node-unhealthy-conditions.
      await dc.ok(['apply', '-f', '-'], [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: node-unhealthy-conditions',
        `  namespace: ${NS}`,
        'data:',
        '  conditions: |',
        '    items:',
        '    - name: Ready',
        '      timeout: 20s',
        '      status: Unknown',
      ].join('\n'));
      await dc.ok(['apply', '-f', '-'], [
        'apiVersion: healthchecking.openshift.io/v1alpha1',
        'kind: MachineHealthCheck',
        'metadata:',
        '  name: example',
        `  namespace: ${NS}`,
        'spec:',
        '  selector:',
        '    matchLabels:',
        `      machine.openshift.io/cluster-api-machineset: ${setName}`,
      ].join('\n'));
      const stoppedAgain = await runShipyard(['node', 'stop-kubelet', replaced.status.nodeRef.name, '--data-dir', dc.dataDir]);
      assert.equal(stoppedAgain.code, 0, stoppedAgain.stderr);
      await pollUntil('the v1alpha1 health check replaced the Machine', async () => {
        const ms = await machines(dc, `machine.openshift.io/cluster-api-machineset=${setName}`);
        const fresh = ms.filter((m) => m.metadata.name !== replaced.metadata.name);
        if (ms.some((m) => m.metadata.name === replaced.metadata.name) || fresh.length !== 1 || fresh[0].status?.phase !== 'Running' || !fresh[0].status?.nodeRef) return undefined;
        const node = await dc.json(['node', fresh[0].status.nodeRef.name]).catch(() => undefined);
        return node && nodeReady(node) ? true : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
    });
  });

  describe('seed 000\'s component swap, the operator from the host, an invalid providerSpec (--masters 1 --workers 0)', { concurrency: 1 }, () => {
    const dc = datacenter('shipyard-mao-swap-');
    before(async () => {
      dc.up = startUp(dc.dataDir, ['--masters', '1', '--workers', '0', '--api-port', '20443', '--cloud-port', '20080']);
      await dc.up.ready(300_000);
      await pollUntil('machine-api-controllers available', async () => (await dc.json(['deploy', 'machine-api-controllers', '-n', NS]).catch(() => undefined))?.status?.availableReplicas === 1 || undefined, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
    });
    after(() => stopUp(dc.up, dc.dataDir));

    it('an invalid providerSpec: Failed, the message names the field, no retry loop and no instance', async () => {
      const set = await workerSet(dc);
      const machine = {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        metadata: { name: 'bad-type', namespace: NS, labels: { 'machine.openshift.io/cluster-api-cluster': set.metadata.labels['machine.openshift.io/cluster-api-cluster'] } },
        spec: { providerSpec: { value: { ...set.spec.template.spec.providerSpec.value, instanceType: 'x9.colossal' } } },
      };
      await dc.ok(['apply', '-f', '-'], JSON.stringify(machine));
      const failed = await pollUntil('Machine bad-type Failed', async () => {
        const m = await dc.json(['machine', 'bad-type', '-n', NS]);
        return m.status?.phase === 'Failed' ? m : undefined;
      }, { timeoutMs: 120_000, intervalMs: 500 });
      assert.equal(failed.status.errorReason, 'InvalidConfiguration');
      assert.match(failed.status.errorMessage, /spec\.providerSpec\.value\.instanceType/);
      assert.match(failed.status.errorMessage, /x9\.colossal/);
      // A later reconcile (forced by an edit) changes nothing: Failed is terminal, nothing is launched.
      const eventsBefore = ((await dc.json(['events', '-n', NS, '--field-selector', 'involvedObject.name=bad-type'])).items as Json[]).reduce((n, e) => n + (e.count ?? 1), 0);
      await dc.ok(['annotate', 'machine', 'bad-type', '-n', NS, 'e2e/poke=1']);
      await dc.ok(['label', 'machine', 'bad-type', '-n', NS, 'e2e/poke=2']);
      const after = await dc.json(['machine', 'bad-type', '-n', NS]);
      assert.equal(after.status.phase, 'Failed');
      assert.equal(instanceState(dc, 'bad-type'), undefined, 'no instance launched');
      const eventsAfter = ((await dc.json(['events', '-n', NS, '--field-selector', 'involvedObject.name=bad-type'])).items as Json[]).reduce((n, e) => n + (e.count ?? 1), 0);
      assert.ok(eventsAfter <= eventsBefore + 1, `no retry loop: ${eventsBefore} events, then ${eventsAfter}`);
      await dc.ok(['delete', 'machine', 'bad-type', '-n', NS]);
    });

    it('seed 000: with the CVO at 0, images.json edited and machine-api-controllers deleted, it comes back running the new image; the operator swapped the same way', async () => {
      const imported = 'quay.io/e2e/machine-api-operator:dev';
      const importedProvider = 'quay.io/e2e/machine-controller:dev';
      for (const [ref, launcher] of [[imported, 'machine-api-operator'], [importedProvider, 'machine-controller']] as const) {
        const r = await runShipyard(['image', 'import', ref, '--entrypoint', join(repo, 'bin', 'components', `${launcher}.js`), '--data-dir', dc.dataDir]);
        assert.equal(r.code, 0, r.stderr);
      }
      await dc.ok(['scale', '--replicas=0', 'deploy/cluster-version-operator', '-n', 'openshift-cluster-version']);
      await pollUntil('no CVO pod left', async () => ((await dc.json(['pods', '-n', 'openshift-cluster-version'])).items as Json[]).length === 0 || undefined, { timeoutMs: 120_000, intervalMs: 1000 });

      const cm = await dc.json(['configmap', 'machine-api-operator-images', '-n', NS]);
      const images = JSON.parse(cm.data['images.json']);
      images.machineAPIOperator = imported;
      images.clusterAPIControllerShipyard = importedProvider;
      cm.data['images.json'] = JSON.stringify(images, null, 2);
      await dc.ok(['replace', '-f', '-'], JSON.stringify(cm));
      await dc.ok(['delete', 'deploy/machine-api-controllers', '-n', NS]);
      const pod = await pollUntil('machine-api-controllers re-created with the new images, Running', async () => {
        const pods = ((await dc.json(['pods', '-n', NS, '-l', 'k8s-app=controller'])).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
        const p = pods.find((x) => x.spec.containers.some((c: Json) => c.image === imported));
        return p && p.status?.phase === 'Running' && (p.status.containerStatuses as Json[]).every((c) => c.ready || c.state?.running) ? p : undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      const images2 = Object.fromEntries((pod.spec.containers as Json[]).map((c) => [c.name, c.image]));
      assert.equal(images2['machineset-controller'], imported);
      assert.equal(images2['machine-controller'], importedProvider);
      assert.ok(processesUsing(dc.dataDir).some((p) => p.cmd.includes('/machineset-controller')), 'the machineset controller runs as a real process');

      // The operator itself: scale to 0, change its image, scale back.
      await dc.ok(['scale', '--replicas=0', 'deploy/machine-api-operator', '-n', NS]);
      await pollUntil('no operator pod', async () => ((await dc.json(['pods', '-n', NS, '-l', 'k8s-app=machine-api-operator'])).items as Json[]).length === 0 || undefined, { timeoutMs: 120_000, intervalMs: 1000 });
      // With the operator at 0, edits to the controllers stick.
      await dc.ok(['set', 'env', 'deploy/machine-api-controllers', '-n', NS, '-c', 'nodelink-controller', 'E2E_EDIT=stuck']);
      await dc.ok(['set', 'image', 'deploy/machine-api-operator', '-n', NS, `machine-api-operator=${imported}`]);
      const kept = await dc.json(['deploy', 'machine-api-controllers', '-n', NS]);
      assert.ok(JSON.stringify(kept.spec.template.spec.containers).includes('E2E_EDIT'), 'the edit sticks while the operator is at 0');
      await dc.ok(['scale', '--replicas=1', 'deploy/machine-api-operator', '-n', NS]);
      await pollUntil('the operator runs the new image', async () => {
        const pods = (await dc.json(['pods', '-n', NS, '-l', 'k8s-app=machine-api-operator'])).items as Json[];
        return pods.some((p) => p.status?.phase === 'Running' && p.spec.containers[0].image === imported) || undefined;
      }, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
      await pollUntil('the operator back at 1 reverts the hand edit', async () => !JSON.stringify((await dc.json(['deploy', 'machine-api-controllers', '-n', NS])).spec.template.spec.containers).includes('E2E_EDIT') || undefined, { timeoutMs: MACHINE_MS, intervalMs: 1000 });
    });

    it('seed 003\'s dev loop: the operator run from the host with --kubeconfig and --images-json manages the controllers', async () => {
      await dc.ok(['scale', '--replicas=0', 'deploy/machine-api-operator', '-n', NS]);
      await pollUntil('no operator pod', async () => ((await dc.json(['pods', '-n', NS, '-l', 'k8s-app=machine-api-operator'])).items as Json[]).length === 0 || undefined, { timeoutMs: 120_000, intervalMs: 1000 });
      const imagesFile = join(dc.dataDir, 'images.json');
      const cm = await dc.json(['configmap', 'machine-api-operator-images', '-n', NS]);
      const images = JSON.parse(cm.data['images.json']);
      images.machineAPIOperator = 'shipyard.local/machine-api-operator:v0.1.0';
      images.clusterAPIControllerShipyard = 'shipyard.local/machine-controller:v0.1.0';
      writeFileSync(imagesFile, JSON.stringify(images));
      const host = spawn(process.execPath, [join(repo, 'bin', 'shipyard.js'), 'component', 'machine-api-operator', 'start', '--kubeconfig', join(dc.dataDir, 'kubeconfig'), '--images-json', imagesFile], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RELEASE_VERSION: '0.1.0' } });
      let out = '';
      host.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      host.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
      try {
        await dc.ok(['delete', 'deploy/machine-api-controllers', '-n', NS]);
        await pollUntil('the host operator re-created machine-api-controllers with the file\'s images', async () => {
          const d = await dc.json(['deploy', 'machine-api-controllers', '-n', NS]).catch(() => undefined);
          return d && (d.spec.template.spec.containers as Json[]).find((c) => c.name === 'machineset-controller')?.image === images.machineAPIOperator ? true : undefined;
        }, { timeoutMs: MACHINE_MS, intervalMs: 1000 }).catch((err: Error) => {
          throw new Error(`${err.message}\nhost operator output:\n${out.slice(-4000)}`);
        });
      } finally {
        host.kill('SIGTERM');
        await new Promise((r) => (host.exitCode !== null ? r(undefined) : host.once('exit', r)));
      }
    });
  });
});
