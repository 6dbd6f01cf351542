import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerPath } from './container-path.ts';

describe('containerPath', () => {
  it('maps a mountPath under the pod rootfs when there is one', () => {
    assert.equal(containerPath('/etc/mao/images.json', '/data/nodes/n1/pods/u1/rootfs'), '/data/nodes/n1/pods/u1/rootfs/etc/mao/images.json');
  });
  it('leaves the path alone in a real container (no rootfs)', () => {
    assert.equal(containerPath('/etc/mao/images.json', ''), '/etc/mao/images.json');
  });
  it('refuses relative paths, which have no container meaning', () => {
    assert.throws(() => containerPath('etc/x', '/r'), /must be absolute/);
  });
});
