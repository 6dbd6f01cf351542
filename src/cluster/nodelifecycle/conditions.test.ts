import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1NodeCondition } from '@kubernetes/client-node';
import { allUnknown, silentNodeConditions } from './conditions.ts';

const NOW = '2030-06-01T12:01:00Z';
const CREATED = '2030-06-01T12:00:00Z';

describe('conditions of a silent node', () => {
  it('adds Ready, MemoryPressure, DiskPressure and PIDPressure as Unknown to a node that never posted status', () => {
    const out = silentNodeConditions(undefined, { now: NOW, created: CREATED });
    assert.deepEqual(
      out.map((c) => [c.type, c.status, c.reason, c.message, c.lastHeartbeatTime, c.lastTransitionTime]),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => [type, 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.', CREATED, NOW]),
    );
    assert.ok(allUnknown(out));
  });

  it('turns posted conditions Unknown, keeps those already Unknown and those it does not monitor, and adds the missing', () => {
    const posted = [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: CREATED, lastTransitionTime: CREATED },
      { type: 'DiskPressure', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: CREATED },
      { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'ok' },
    ] as unknown as V1NodeCondition[];
    assert.equal(allUnknown(posted), false);
    const out = silentNodeConditions(posted, { now: NOW, created: CREATED });
    const byType = new Map(out.map((c) => [c.type, c]));
    assert.deepEqual(
      { status: byType.get('Ready')!.status, reason: byType.get('Ready')!.reason, message: byType.get('Ready')!.message, at: byType.get('Ready')!.lastTransitionTime },
      { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', at: NOW },
    );
    assert.equal(byType.get('DiskPressure'), posted[1], 'already Unknown: untouched, transition time kept');
    assert.equal(byType.get('NetworkUnavailable'), posted[2], 'not the lifecycle controller\'s');
    assert.equal(byType.get('MemoryPressure')!.reason, 'NodeStatusNeverUpdated');
    assert.equal(byType.get('PIDPressure')!.reason, 'NodeStatusNeverUpdated');
    assert.ok(allUnknown(out));
  });
});
