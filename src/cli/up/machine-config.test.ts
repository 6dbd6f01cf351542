import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { decodeDataUrl, parse } from '../../api/ignition/index.ts';
import { runFirstBoot } from '../../cloud/first-boot.ts';
import { readKubeletUnit } from '../../node/kubelet/kubelet-unit.ts';
import type { LoadedPayload } from '../../release/payload.ts';
import { nodeIgnition, releaseImages, renderMachineConfigBootstrap } from './machine-config.ts';

/** The source payload's images ConfigMap at version 0.1.0, as the build would leave it. */
function payload(): LoadedPayload {
  const file = '0000_80_machine-config_02_images.configmap.yaml';
  const object = parseYaml(readFileSync(new URL(`../../release/payload/manifests/${file}`, import.meta.url), 'utf8').replace('0.0.1-snapshot', '0.1.0')) as Record<string, unknown>;
  return {
    release: { version: '0.1.0', image: 'shipyard.local/release:0.1.0' },
    manifests: [{ file, kind: 'ConfigMap', namespace: 'openshift-machine-config-operator', name: 'machine-config-operator-images', object }],
  } as unknown as LoadedPayload;
}

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('shipyard up: the nodes\' first configs', () => {
  it('renders both pools from the templates, each pool at its rendered config in spec and status', () => {
    const boot = renderMachineConfigBootstrap({ payload: payload(), rootCAPem: CA, serviceCIDR: '127.64.0.0/16' });
    assert.deepEqual(boot.templates.map((m) => m.metadata?.name), ['00-master', '01-master-kubelet', '99-master-ssh', '00-worker', '01-worker-kubelet', '99-worker-ssh']);
    for (const pool of boot.pools) {
      assert.match(pool.spec?.configuration?.name ?? '', new RegExp(`^rendered-${pool.metadata?.name}-[0-9a-f]{32}$`));
      assert.equal(pool.status?.configuration?.name, pool.spec?.configuration?.name);
      assert.deepEqual(pool.spec?.configuration?.source?.map((s) => s.name), boot.templates.filter((t) => t.metadata?.labels?.['machineconfiguration.openshift.io/role'] === pool.metadata?.name).map((t) => t.metadata?.name));
    }
    assert.equal(boot.controllerConfig.spec.baseOSContainerImage, releaseImages(payload()).baseOSContainerImage);
  });

  it('a node boots its pool\'s rendered config, the daemon\'s first annotations and its own extra files', () => {
    const boot = renderMachineConfigBootstrap({ payload: payload(), rootCAPem: CA, serviceCIDR: '127.64.0.0/16' });
    const extra = { path: '/etc/kubernetes/manifests/kube-scheduler-pod.yaml', mode: 0o644, contents: { source: 'data:,kind%3A%20Pod' } };
    const parsed = parse(nodeIgnition(boot, 'master', [extra]));
    assert.ok(parsed.ok, parsed.ok ? '' : JSON.stringify(parsed.errors));
    const files = new Map((parsed.config.storage?.files ?? []).map((f) => [f.path, f]));
    const text = (path: string) => {
      const d = decodeDataUrl(files.get(path)?.contents?.source ?? '');
      assert.ok(d.ok, path);
      return d.data.toString('utf8');
    };
    const rendered = boot.pools.find((p) => p.metadata?.name === 'master')!.spec!.configuration!.name!;
    assert.deepEqual(JSON.parse(text('/etc/machine-config-daemon/node-annotations.json')), {
      'machineconfiguration.openshift.io/currentConfig': rendered,
      'machineconfiguration.openshift.io/desiredConfig': rendered,
      'machineconfiguration.openshift.io/state': 'Done',
    });
    assert.match(text('/etc/kubernetes/kubelet.conf'), /clusterDNS:\n {2}- 127\.64\.0\.10\n/, 'the kubelet configuration comes from 01-master-kubelet');
    assert.equal(text('/etc/kubernetes/ca.crt'), CA);
    assert.equal(text('/etc/kubernetes/manifests/kube-scheduler-pod.yaml'), 'kind: Pod');
    assert.ok(!nodeIgnition(boot, 'worker').includes('kube-scheduler'), 'a worker gets no static pods');
  });

  it('a node booted from its pool\'s config has the kubelet unit its kubelet takes its role labels and taints from', async (t) => {
    const boot = renderMachineConfigBootstrap({ payload: payload(), rootCAPem: CA, serviceCIDR: '127.64.0.0/16' });
    const roots = { master: mkdtempSync(join(tmpdir(), 'shipyard-boot-master-')), worker: mkdtempSync(join(tmpdir(), 'shipyard-boot-worker-')) };
    t.after(() => Object.values(roots).forEach((r) => rmSync(r, { recursive: true, force: true })));
    for (const pool of ['master', 'worker'] as const) await runFirstBoot(nodeIgnition(boot, pool), roots[pool]);
    assert.deepEqual(readKubeletUnit(roots.master), {
      state: 'found',
      files: ['/etc/systemd/system/kubelet.service'],
      labels: { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '', 'node.openshift.io/os_id': 'rhcos' },
      taints: [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }],
      problems: [],
    });
    assert.deepEqual(readKubeletUnit(roots.worker), {
      state: 'found',
      files: ['/etc/systemd/system/kubelet.service'],
      labels: { 'node-role.kubernetes.io/worker': '', 'node.openshift.io/os_id': 'rhcos' },
      taints: [],
      problems: [],
    });
  });
});
