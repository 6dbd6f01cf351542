import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { IgnitionConfig } from '../../../api/ignition/index.ts';
import { machineConfigAnnotations, roleLabel, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import { renderTemplates, templateConfigNames } from './templates.ts';
import { checkMachineConfig } from './validate.ts';
import { controllerConfig, controllerVersion, renderedFile } from './testing.ts';

const ca = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const ignitionOf = (mc: MachineConfig) => mc.spec.config as unknown as IgnitionConfig;
const byName = (configs: MachineConfig[], name: string) => configs.find((mc) => mc.metadata?.name === name)!;

describe('the template controller\'s MachineConfigs', () => {
  it('are 00-<role>, 01-<role>-kubelet and 99-<role>-ssh for master and worker, labelled, annotated and owned', () => {
    const configs = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
    assert.deepEqual(configs.map((mc) => mc.metadata?.name), ['00-master', '01-master-kubelet', '99-master-ssh', '00-worker', '01-worker-kubelet', '99-worker-ssh']);
    assert.deepEqual(templateConfigNames('worker'), ['00-worker', '01-worker-kubelet', '99-worker-ssh']);
    for (const mc of configs) {
      const role = mc.metadata!.name!.includes('master') ? 'master' : 'worker';
      assert.deepEqual(mc.metadata?.labels, { [roleLabel]: role });
      assert.deepEqual(mc.metadata?.annotations, { [machineConfigAnnotations.generatedByControllerVersion]: controllerVersion });
      assert.deepEqual(mc.metadata?.ownerReferences, [{ apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'ControllerConfig', name: 'machine-config-controller', uid: 'cc-uid', controller: true }]);
      assert.equal(ignitionOf(mc).ignition.version, '3.4.0');
      const checked = checkMachineConfig(mc);
      assert.ok(checked.ok, checked.ok ? '' : checked.error);
    }
  });

  it('write the kubelet configuration shipyard up wrote at first boot, plus what OpenShift fixes for every node', () => {
    const configs = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
    for (const role of ['master', 'worker']) {
      const file = renderedFile(byName(configs, `01-${role}-kubelet`), '/etc/kubernetes/kubelet.conf');
      assert.equal(file?.mode, 0o644);
      assert.deepEqual(parse(file!.text), {
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        kind: 'KubeletConfiguration',
        cgroupDriver: 'systemd',
        clusterDNS: ['127.64.0.10'],
        clusterDomain: 'cluster.local',
        staticPodPath: '/etc/kubernetes/manifests',
        maxPods: 250,
        systemReserved: { cpu: '500m', memory: '1Gi' },
        nodeStatusReportFrequency: '5m',
      });
    }
    const noDns = renderTemplates({ controllerConfig: controllerConfig({ clusterDNSIP: '' }), controllerVersion });
    assert.equal(parse(renderedFile(byName(noDns, '01-worker-kubelet'), '/etc/kubernetes/kubelet.conf')!.text).clusterDNS, undefined);
  });

  it('carry the kubelet unit in 01-<role>-kubelet: its kubeconfigs, and the role\'s labels (and a master\'s taint) as flags', () => {
    const configs = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
    const unitOf = (name: string) => ignitionOf(byName(configs, name)).systemd?.units ?? [];
    for (const name of ['00-master', '99-master-ssh', '00-worker', '99-worker-ssh']) assert.deepEqual(unitOf(name), [], `${name} has no units`);
    const master = unitOf('01-master-kubelet');
    const worker = unitOf('01-worker-kubelet');
    assert.deepEqual([master.map((u) => [u.name, u.enabled]), worker.map((u) => [u.name, u.enabled])], [[['kubelet.service', true]], [['kubelet.service', true]]]);
    const execStart = (contents: string | undefined) => /^ExecStart=([\s\S]*?[^\\])\n/m.exec(contents ?? '')?.[1]?.split(/\s*\\\n\s*/);
    assert.deepEqual(execStart(master[0]!.contents), [
      '/usr/bin/kubelet',
      '--config=/etc/kubernetes/kubelet.conf',
      '--bootstrap-kubeconfig=/etc/kubernetes/kubeconfig',
      '--kubeconfig=/var/lib/kubelet/kubeconfig',
      '--node-labels=node-role.kubernetes.io/master,node-role.kubernetes.io/control-plane,node.openshift.io/os_id=rhcos',
      '--register-with-taints=node-role.kubernetes.io/master=:NoSchedule',
    ]);
    assert.deepEqual(execStart(worker[0]!.contents), [
      '/usr/bin/kubelet',
      '--config=/etc/kubernetes/kubelet.conf',
      '--bootstrap-kubeconfig=/etc/kubernetes/kubeconfig',
      '--kubeconfig=/var/lib/kubelet/kubeconfig',
      '--node-labels=node-role.kubernetes.io/worker,node.openshift.io/os_id=rhcos',
    ]);
    assert.match(worker[0]!.contents!, /\nRestart=always\nRestartSec=10\n\n\[Install\]\nWantedBy=multi-user\.target\n$/);
  });

  it('own neither a node\'s kubeconfig nor the control plane\'s static pods', () => {
    const configs = renderTemplates({ controllerConfig: controllerConfig({ rootCAData: Buffer.from(ca).toString('base64') }), controllerVersion, pullSecret: '{"auths":{}}', sshAuthorizedKeys: ['ssh-ed25519 AAAA user@host'] });
    const paths = configs.flatMap((mc) => (ignitionOf(mc).storage?.files ?? []).map((f) => f.path));
    assert.deepEqual([...new Set(paths)].sort(), ['/etc/kubernetes/ca.crt', '/etc/kubernetes/kubelet.conf', '/var/lib/kubelet/config.json']);
  });

  it('put the cluster CA and the pull secret (root-only) in 00-<role> when the operator has them', () => {
    const empty = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
    assert.deepEqual(ignitionOf(byName(empty, '00-worker')), { ignition: { version: '3.4.0' } });
    const configs = renderTemplates({ controllerConfig: controllerConfig({ rootCAData: Buffer.from(ca).toString('base64') }), controllerVersion, pullSecret: '{"auths":{"quay.io":{"auth":"eA=="}}}' });
    for (const role of ['master', 'worker']) {
      const base = byName(configs, `00-${role}`);
      assert.deepEqual(renderedFile(base, '/etc/kubernetes/ca.crt'), { text: ca, mode: 0o644, overwrite: true });
      assert.deepEqual(renderedFile(base, '/var/lib/kubelet/config.json'), { text: '{"auths":{"quay.io":{"auth":"eA=="}}}', mode: 0o600, overwrite: true });
    }
  });

  it('give user core the authorized keys in 99-<role>-ssh', () => {
    const keys = ['ssh-ed25519 AAAA one@host', 'ssh-rsa BBBB two@host'];
    const configs = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion, sshAuthorizedKeys: keys });
    assert.deepEqual(ignitionOf(byName(configs, '99-worker-ssh')).passwd, { users: [{ name: 'core', sshAuthorizedKeys: keys }] });
    const none = renderTemplates({ controllerConfig: controllerConfig(), controllerVersion });
    assert.deepEqual(ignitionOf(byName(none, '99-master-ssh')).passwd, { users: [{ name: 'core' }] });
  });

  it('are equal for equal input, so the controller writes only when something changed', () => {
    const input = { controllerConfig: controllerConfig(), controllerVersion, sshAuthorizedKeys: ['k'] };
    assert.deepEqual(renderTemplates(input), renderTemplates(input));
    assert.notDeepEqual(renderTemplates(input), renderTemplates({ ...input, controllerVersion: 'v2' }));
  });
});
