import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeConfig } from './config.ts';
import { diffConfigs } from './diff.ts';
import { disruption, type DisruptionPolicy } from './disruption.ts';
import { file, nodeConfig } from './testing.ts';

const base = nodeConfig('a', {
  files: [file('/etc/kubernetes/kubelet.conf', 'maxPods: 110\n'), file('/var/lib/kubelet/config.json', '{}')],
  units: [{ name: 'kubelet.service', enabled: true, contents: '[Service]\n' }],
  users: [{ name: 'core', sshAuthorizedKeys: ['k1'] }],
});

/** `base` with `files` written on top (same path replaces) and `parts` set. */
function changed(files: ReturnType<typeof file>[], parts: Partial<NodeConfig> = {}): NodeConfig {
  const ignition = structuredClone(base.ignition);
  for (const f of files) ignition.storage!.files = [...ignition.storage!.files!.filter((x) => x.path !== f.path), f];
  return { ...base, ...parts, name: 'b', ignition: parts.ignition ?? ignition };
}

const of = (to: NodeConfig, options = {}) => disruption(diffConfigs(base, to), options);

describe('what a change disrupts (the MCO\'s node-disruption defaults)', () => {
  it('the kubelet configuration, like any file no policy names, needs a drain and a reboot', () => {
    const d = of(changed([file('/etc/kubernetes/kubelet.conf', 'maxPods: 50\n')]));
    assert.deepEqual(d, { actions: [{ type: 'Reboot' }], reboot: true, drain: true, reasons: ['file /etc/kubernetes/kubelet.conf changed'] });
    assert.equal(of(changed([file('/usr/local/bin/script', 'x')])).reboot, true, 'the seed\'s new script too');
  });

  it('units, kernel arguments, the OS image, kernel type, extensions and FIPS reboot', () => {
    const unit = structuredClone(base.ignition);
    unit.systemd!.units![0]!.contents = '[Service]\nX=1\n';
    assert.deepEqual(of({ ...base, name: 'b', ignition: unit }).reasons, ['unit kubelet.service changed']);
    assert.deepEqual(of(changed([], { kernelArguments: ['nosmt'] })).reasons, ['kernel arguments changed']);
    assert.deepEqual(of(changed([], { osImageURL: 'quay.io/os@sha256:2' })).reasons, ['OS image changed']);
    assert.deepEqual(of(changed([], { kernelType: 'realtime' })).reasons, ['kernel type changed']);
    assert.deepEqual(of(changed([], { extensions: ['usbguard'] })).reasons, ['extensions changed']);
    assert.deepEqual(of(changed([], { fips: true })).reasons, ['FIPS changed']);
  });

  it('SSH keys and the pull secret change with no drain and no reboot', () => {
    const keys = structuredClone(base.ignition);
    keys.passwd!.users = [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2'] }];
    assert.deepEqual(of({ ...base, name: 'b', ignition: keys }), { actions: [{ type: 'None' }], reboot: false, drain: false, reasons: [] });
    assert.deepEqual(of(changed([file('/var/lib/kubelet/config.json', '{"auths":{}}')])), { actions: [{ type: 'None' }], reboot: false, drain: false, reasons: [] });
  });

  it('registry and trust files reload or restart services without a drain, by the longest matching path', () => {
    assert.deepEqual(of(changed([file('/etc/containers/policy.json', '{}')])).actions, [{ type: 'Reload', service: 'crio.service' }]);
    assert.deepEqual(of(changed([file('/etc/containers/registries.d/mirror.yaml', 'x')])).actions, [{ type: 'Reload', service: 'crio.service' }], 'a file under a directory policy');
    const ca = of(changed([file('/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt', 'pem'), file('/var/lib/kubelet/config.json', '{"a":1}')]));
    assert.deepEqual(ca, {
      actions: [
        { type: 'Restart', service: 'coreos-update-ca-trust.service' },
        { type: 'Restart', service: 'crio.service' },
      ],
      reboot: false,
      drain: false,
      reasons: [],
    });
    assert.equal(of(changed([file('/etc/containers/registries.dx', 'x')])).reboot, true, 'a sibling with the same prefix is not under the directory');
  });

  it('registries.conf is Special: no reboot, but a drain', () => {
    assert.deepEqual(of(changed([file('/etc/containers/registries.conf', 'x')])), { actions: [{ type: 'Special' }], reboot: false, drain: true, reasons: [] });
  });

  it('one file needing a reboot outweighs every other action', () => {
    const d = of(changed([file('/etc/containers/policy.json', '{}'), file('/etc/motd', 'x')]));
    assert.deepEqual(d.actions, [{ type: 'Reboot' }]);
    assert.deepEqual(d.reasons, ['file /etc/motd changed']);
  });

  it('the force file reboots whatever changed', () => {
    assert.deepEqual(of(base, { force: true }).reasons, ['the force file is present']);
    assert.equal(of(base).reboot, false, 'no change, no disruption');
  });

  it('a policy can name units and ask for a drain', () => {
    const policy: DisruptionPolicy = { files: [{ path: '/etc/app', actions: [{ type: 'Drain' }] }], units: [{ name: 'kubelet.service', actions: [{ type: 'DaemonReload' }] }], sshKey: [{ type: 'None' }] };
    const unit = structuredClone(base.ignition);
    unit.systemd!.units![0]!.contents = '[Service]\nX=1\n';
    assert.deepEqual(of({ ...base, name: 'b', ignition: unit }, { policy }), { actions: [{ type: 'DaemonReload' }], reboot: false, drain: false, reasons: [] });
    assert.deepEqual(of(changed([file('/etc/app/conf', 'x')]), { policy }), { actions: [{ type: 'Drain' }], reboot: false, drain: true, reasons: [] });
  });
});
