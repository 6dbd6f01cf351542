import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeConfig } from './config.ts';
import { reconcilable } from './reconcile.ts';
import { file, nodeConfig } from './testing.ts';

const base = nodeConfig('rendered-worker-a', {
  files: [file('/etc/a', 'a')],
  units: [{ name: 'kubelet.service', enabled: true, contents: '[Service]\n' }],
  users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA1'] }],
  ignition: { storage: { links: [{ path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' }] } },
});

function refusal(to: NodeConfig): string | undefined {
  const r = reconcilable(base, { ...to, name: 'rendered-worker-b' });
  return r.ok ? undefined : r.message;
}

const withIgnition = (patch: (ign: NodeConfig['ignition']) => void): NodeConfig => {
  const ignition = structuredClone(base.ignition);
  patch(ignition);
  return { ...base, ignition };
};

describe('reconcilable in place (the MCO\'s rules)', () => {
  it('files, units, kernel arguments, the OS image and core\'s keys and password can change', () => {
    const to = withIgnition((ign) => {
      ign.storage!.files = [file('/etc/a', 'changed'), file('/etc/b', 'new')];
      ign.systemd!.units = [{ name: 'kubelet.service', enabled: false, contents: '[Service]\nX=1\n' }, { name: 'new.service', mask: true }];
      ign.passwd!.users = [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA2'], passwordHash: '$6$x' }];
    });
    const r = reconcilable(base, { ...to, name: 'rendered-worker-b', kernelArguments: ['nosmt'], osImageURL: 'quay.io/os@sha256:2', kernelType: 'realtime', extensions: ['usbguard'] });
    assert.equal(r.ok, true);
    assert.ok(r.ok && r.diff.files && r.diff.units && r.diff.passwd && r.diff.kargs && r.diff.osUpdate && r.diff.kernelType && r.diff.extensions);
  });

  it('a user other than core is refused, worded as the MCO words it', () => {
    const r = reconcilable(base, { ...withIgnition((ign) => ign.passwd!.users!.push({ name: 'admin', sshAuthorizedKeys: ['k'] })), name: 'rendered-worker-b' });
    assert.deepEqual(r, {
      ok: false,
      what: 'ignition passwd user section contains unsupported changes: non-core user',
      message: "can't reconcile config rendered-worker-a with rendered-worker-b: ignition passwd user section contains unsupported changes: non-core user",
    });
  });

  it('core may change only its keys and password hash; dropping every user is fine', () => {
    assert.match(refusal(withIgnition((ign) => (ign.passwd!.users = [{ name: 'core', sshAuthorizedKeys: ['k'], shell: '/bin/zsh' }])))!, /: SSH keys and password hash are not reconcilable$/);
    assert.match(refusal(withIgnition((ign) => (ign.passwd!.users = [{ name: 'core', uid: 1000 }])))!, /: ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys$/);
    assert.equal(refusal(withIgnition((ign) => delete ign.passwd)), undefined);
  });

  it('groups, disks, filesystems, RAID, LUKS, directories and Ignition kernel arguments are refused', () => {
    const cases: Array<[(ign: NodeConfig['ignition']) => void, string]> = [
      [(ign) => (ign.passwd!.groups = [{ name: 'wheel' }]), 'ignition Passwd Groups section contains changes'],
      [(ign) => (ign.storage!.disks = [{ device: '/dev/sdb', wipeTable: true }]), 'ignition disks section contains changes'],
      [(ign) => (ign.storage!.filesystems = [{ device: '/dev/sdb1', format: 'xfs' }]), 'ignition filesystems section contains changes'],
      [(ign) => (ign.storage!.raid = [{ name: 'md0', level: 'raid1', devices: ['/dev/sdb', '/dev/sdc'] }]), 'ignition raid section contains changes'],
      [(ign) => (ign.storage!.luks = [{ name: 'data', device: '/dev/sdb' }]), 'ignition luks section contains changes'],
      [(ign) => (ign.storage!.directories = [{ path: '/var/lib/x' }]), 'ignition directories section contains changes'],
      [(ign) => (ign.kernelArguments = { shouldExist: ['nosmt'] }), 'ignition kargs section contains changes'],
    ];
    for (const [patch, what] of cases) assert.equal(refusal(withIgnition(patch)), `can't reconcile config rendered-worker-a with rendered-worker-b: ${what}`);
  });

  it('links may be dropped but not added or changed', () => {
    assert.equal(refusal(withIgnition((ign) => delete ign.storage!.links)), undefined);
    assert.match(refusal(withIgnition((ign) => (ign.storage!.links = [{ path: '/etc/localtime', target: '/usr/share/zoneinfo/UTC' }, { path: '/etc/l', target: '/x' }])))!, /: ignition links section contains changes$/);
  });

  it('appended files, the force file and remote contents are refused', () => {
    assert.match(refusal(withIgnition((ign) => ign.storage!.files!.push({ path: '/etc/log', append: [{ source: 'data:,x' }] })))!, /: ignition file \/etc\/log includes append$/);
    assert.match(refusal(withIgnition((ign) => ign.storage!.files!.push(file('/run/machine-config-daemon-force', ''))))!, /: cannot create \/run\/machine-config-daemon-force via Ignition$/);
    assert.match(refusal(withIgnition((ign) => ign.storage!.files!.push({ path: '/etc/r', contents: { source: 'https://127.0.0.1:22623/x' } })))!, /: ignition file \/etc\/r has remote contents \(https:\/\/127\.0\.0\.1:22623\/x\); only data: URLs/);
  });

  it('a FIPS flip is refused either way', () => {
    assert.match(refusal({ ...base, fips: true })!, /: detected change to FIPS flag; refusing to modify FIPS on a running cluster$/);
    const fipsOn = { ...base, fips: true };
    const r = reconcilable(fipsOn, { ...base, name: 'rendered-worker-b', fips: false });
    assert.equal(r.ok, false);
  });

  it('reverting the offending MachineConfig makes the pair reconcilable again', () => {
    const bad = withIgnition((ign) => ign.passwd!.users!.push({ name: 'admin' }));
    assert.equal(reconcilable(base, { ...bad, name: 'b' }).ok, false);
    assert.equal(reconcilable(base, { ...base, name: 'c' }).ok, true);
  });
});
