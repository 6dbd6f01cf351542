import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventSubject } from '../../../runtime/context.ts';
import { mirroredEvents } from './events.ts';

describe('mirroredEvents', () => {
  const written: Array<[string | undefined, string | undefined, string]> = [];
  const sink = mirroredEvents({ event: (obj: EventSubject, _type, reason) => void written.push([obj.metadata?.namespace, obj.metadata?.uid, reason]) }, { from: 'op', to: 'legacy' });

  it('writes an event about an object of the operator namespace there and again, by name, in the legacy one', () => {
    written.length = 0;
    sink.event({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'op', uid: 'u1' } }, 'Normal', 'RevisionTriggered', 'm');
    assert.deepEqual(written, [
      ['op', 'u1', 'RevisionTriggered'],
      ['legacy', undefined, 'RevisionTriggered'],
    ]);
  });

  it('writes any other event once', () => {
    written.length = 0;
    sink.event({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'installer-1-m0', namespace: 'openshift-kube-apiserver' } }, 'Normal', 'X', 'm');
    sink.event({ apiVersion: 'operator.openshift.io/v1', kind: 'KubeAPIServer', metadata: { name: 'cluster' } }, 'Normal', 'Y', 'm');
    assert.deepEqual(written.map((w) => w[2]), ['X', 'Y']);
  });
});
