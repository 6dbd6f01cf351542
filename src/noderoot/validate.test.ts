import assert from 'node:assert/strict';
import { chmod, mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { emptyConfig, fromMachineConfig } from './config.ts';
import { writeFirstBootConfig } from './first-boot-writer.ts';
import { readResource } from './resource.ts';
import { applyUpdate } from './update.ts';
import { unexpectedOnDiskState, validateOnDisk } from './validate.ts';
import { file, nodeConfig, TempRoots } from './testing.ts';

const roots = new TempRoots();

/** The seed's MachineConfig, as `kubectl apply` stores it (YAML's 0755 is 493). */
const seedMachineConfig = {
  metadata: { name: 'rendered-worker-a9681850fe39078ea0f42bd017922eb7' },
  spec: {
    osImageURL: '',
    config: {
      ignition: { config: { replace: { verification: {} } }, security: { tls: {} }, timeouts: {}, version: '2.2.0' },
      networkd: {},
      passwd: {},
      storage: {
        files: [
          {
            contents: {
              source:
                'data:text/plain;charset=utf-8;base64,IyEvdXNyL2Jpbi9iYXNoCnNldCAteAptYWluKCkgewpzdWRvIHJwbS1vc3RyZWUgaW5zdGFsbCBwb2xpY3ljb3JldXRpbHMtcHl0aG9uLXV0aWxzCnN1ZG8gc2VkIC1pICdzL2VuZm9yY2luZy9kaXNhYmxlZC9nJyAvZXRjL3NlbGludXgvY29uZmlnIC9ldGMvc2VsaW51eC9jb25maWcKfQptYWluCg==',
              verification: {},
            },
            filesystem: 'root',
            mode: 493,
            path: '/usr/local/bin/kubeinit_kubevirt_extra_config_script',
          },
        ],
      },
    },
  },
};

const service = '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n';
const managed = nodeConfig('rendered-worker-1', {
  files: [file('/etc/kubernetes/kubelet.conf', 'maxPods: 110\n', 0o600), file('/etc/motd', 'hello\n')],
  units: [
    { name: 'kubelet.service', enabled: true, contents: service, dropins: [{ name: '10-env.conf', contents: '[Service]\nEnvironment=A=1\n' }, { name: '20-empty.conf' }] },
    { name: 'off.service', enabled: false, contents: service },
    { name: 'bad.service', mask: true },
  ],
});

async function managedRoot(): Promise<string> {
  const root = await roots.make();
  await applyUpdate(root, emptyConfig(), managed);
  return root;
}

describe('validating a node root against its config', () => {
  after(roots.removeAll);

  it('a root first boot wrote from the seed\'s MachineConfig validates against it', async () => {
    const root = await roots.make();
    const config = fromMachineConfig(seedMachineConfig);
    await writeFirstBootConfig(config.ignition, root, { read: (r) => readResource(r) });
    assert.equal(await validateOnDisk(root, config), undefined);
  });

  it('a root the daemon wrote validates against the config it wrote', async () => {
    assert.equal(await validateOnDisk(await managedRoot(), managed), undefined);
  });

  it('a hand edit is a content mismatch, worded as the MCO words it', async () => {
    const root = await managedRoot();
    await writeFile(join(root, 'etc/motd'), 'edited by hand\n');
    const mismatch = await validateOnDisk(root, managed);
    assert.equal(mismatch, 'content mismatch for file "/etc/motd"');
    assert.equal(unexpectedOnDiskState(managed.name, mismatch), 'unexpected on-disk state validating against rendered-worker-1: content mismatch for file "/etc/motd"');
  });

  it('a mode change, a link in place of the file and a missing file are reported with Go\'s mode forms', async () => {
    const root = await managedRoot();
    await chmod(join(root, 'etc/motd'), 0o755);
    assert.equal(await validateOnDisk(root, managed), 'mode mismatch for file: "/etc/motd"; expected: -rw-r--r--/420/0644; received: -rwxr-xr-x/493/0755');
    await unlink(join(root, 'etc/motd'));
    await symlink('/etc/elsewhere', join(root, 'etc/motd'));
    assert.equal(await validateOnDisk(root, managed), 'mode mismatch for file: "/etc/motd"; expected: -rw-r--r--/420/0644; received: Lrwxrwxrwx/134218239/01000000777');
    await unlink(join(root, 'etc/motd'));
    assert.equal(await validateOnDisk(root, managed), 'could not stat file "/etc/motd": lstat /etc/motd: no such file or directory');
    await mkdir(join(root, 'etc/motd'));
    await chmod(join(root, 'etc/motd'), 0o755);
    assert.equal(await validateOnDisk(root, managed), 'mode mismatch for file: "/etc/motd"; expected: -rw-r--r--/420/0644; received: drwxr-xr-x/2147484141/020000000755');
  });

  it('units: drop-ins and unit files by contents, masks by their link, enablement by the wants links', async () => {
    let root = await managedRoot();
    await writeFile(join(root, 'etc/systemd/system/kubelet.service.d/10-env.conf'), '[Service]\n');
    assert.equal(await validateOnDisk(root, managed), 'content mismatch for file "/etc/systemd/system/kubelet.service.d/10-env.conf"');

    root = await managedRoot();
    await writeFile(join(root, 'etc/systemd/system/kubelet.service'), 'changed\n');
    assert.equal(await validateOnDisk(root, managed), 'content mismatch for file "/etc/systemd/system/kubelet.service"');

    root = await managedRoot();
    await unlink(join(root, 'etc/systemd/system/multi-user.target.wants/kubelet.service'));
    assert.equal(await validateOnDisk(root, managed), 'unit "kubelet.service" expected enabled=true, but systemd reports "disabled"');

    root = await managedRoot();
    await symlink('../off.service', join(root, 'etc/systemd/system/multi-user.target.wants/off.service'));
    assert.equal(await validateOnDisk(root, managed), 'unit "off.service" expected enabled=false, but systemd reports "enabled"');

    root = await managedRoot();
    await unlink(join(root, 'etc/systemd/system/bad.service'));
    await writeFile(join(root, 'etc/systemd/system/bad.service'), 'unmasked by hand\n');
    assert.equal(await validateOnDisk(root, managed), 'state validation: invalid unit masked setting. path: "/etc/systemd/system/bad.service"; expected: /dev/null; received: /etc/systemd/system/bad.service');
  });

  it('an empty drop-in may be absent or empty, nothing else', async () => {
    const root = await managedRoot();
    const path = join(root, 'etc/systemd/system/kubelet.service.d/20-empty.conf');
    await writeFile(path, '');
    assert.equal(await validateOnDisk(root, managed), undefined);
    await writeFile(path, 'x');
    assert.equal(await validateOnDisk(root, managed), 'content mismatch for file "/etc/systemd/system/kubelet.service.d/20-empty.conf"');
  });

  it('checks the OS image and the kernel arguments first, once the node has records of them', async () => {
    const root = await roots.make();
    const config = nodeConfig('rendered-x', { files: [file('/etc/x', 'x')], kernelArguments: ['nosmt', 'audit=1'], osImageURL: 'quay.io/os@sha256:1' });
    await writeFirstBootConfig(config.ignition, root, { read: (r) => readResource(r) });
    assert.equal(await validateOnDisk(root, config), undefined, 'a first-boot root has no records: nothing to compare');

    await applyUpdate(root, config, { ...config, kernelArguments: ['nosmt'], osImageURL: 'quay.io/os@sha256:0' });
    await rm(join(root, 'etc/x'));
    assert.equal(await validateOnDisk(root, config), 'expected target osImageURL "quay.io/os@sha256:1", have "quay.io/os@sha256:0"');
    await writeFile(join(root, 'etc/machine-config-daemon/os.json'), JSON.stringify({ osImageURL: 'quay.io/os@sha256:1' }));
    assert.equal(await validateOnDisk(root, config), 'missing expected kernel arguments: [audit=1]');
    await writeFile(join(root, 'etc/kernel/cmdline'), 'audit=1 nosmt\n');
    assert.equal(await validateOnDisk(root, config), 'could not stat file "/etc/x": lstat /etc/x: no such file or directory', 'then the files');
  });
});
