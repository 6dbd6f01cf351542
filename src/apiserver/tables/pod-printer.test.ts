import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podTableConvertor } from './pod-printer.ts';
import type { PrintedObject } from './types.ts';

const now = Date.parse('2025-01-01T12:00:00Z');
const ago = (ms: number): string => new Date(now - ms).toISOString();
const minute = 60_000;

const running = { running: { startedAt: ago(4 * minute) } };
const ready = (name: string, extra: PrintedObject = {}): PrintedObject => ({ name, ready: true, restartCount: 0, state: running, ...extra });

function pod(overrides: { spec?: PrintedObject; status?: PrintedObject; metadata?: PrintedObject }): PrintedObject {
  return {
    metadata: { name: 'web', namespace: 'default', creationTimestamp: ago(5 * minute), ...overrides.metadata },
    spec: { containers: [{ name: 'app' }], nodeName: 'n1', ...overrides.spec },
    status: { phase: 'Running', podIP: '127.128.0.5', podIPs: [{ ip: '127.128.0.5' }], ...overrides.status },
  };
}

describe('pod table', () => {
  it('has kubectl’s columns, wide ones at priority 1', () => {
    assert.deepEqual(
      podTableConvertor.columns.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Ready', 'string', '', 0],
        ['Status', 'string', '', 0],
        ['Restarts', 'string', '', 0],
        ['Age', 'string', '', 0],
        ['IP', 'string', '', 1],
        ['Node', 'string', '', 1],
        ['Nominated Node', 'string', '', 1],
        ['Readiness Gates', 'string', '', 1],
      ],
    );
  });

  const cases: Array<{ name: string; pod: PrintedObject; cells: unknown[] }> = [
    {
      name: 'running and ready',
      pod: pod({ spec: { containers: [{ name: 'a' }, { name: 'b' }] }, status: { containerStatuses: [ready('a'), ready('b')] } }),
      cells: ['web', '2/2', 'Running', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'crash looping, with the last restart’s age',
      pod: pod({
        status: {
          containerStatuses: [
            { name: 'app', ready: false, restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * minute) } } },
          ],
        },
      }),
      cells: ['web', '0/1', 'CrashLoopBackOff', '5 (2m ago)', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'restarts without a recorded termination print bare',
      pod: pod({ status: { containerStatuses: [ready('app', { restartCount: 2 })] } }),
      cells: ['web', '1/1', 'Running', '2', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'creating containers, not yet scheduled IP',
      pod: pod({ status: { phase: 'Pending', podIP: undefined, podIPs: undefined, containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] } }),
      cells: ['web', '0/1', 'ContainerCreating', '0', '5m', '<none>', 'n1', '<none>', '<none>'],
    },
    {
      name: 'pending without a node',
      pod: pod({ spec: { nodeName: undefined }, status: { phase: 'Pending', podIP: undefined, podIPs: undefined, nominatedNodeName: 'n2' } }),
      cells: ['web', '0/1', 'Pending', '0', '5m', '<none>', '<none>', 'n2', '<none>'],
    },
    {
      name: 'completed',
      pod: pod({ status: { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } }),
      cells: ['web', '0/1', 'Completed', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'failed with an error',
      pod: pod({ status: { phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] } }),
      cells: ['web', '0/1', 'Error', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'killed by a signal, no reason',
      pod: pod({ status: { containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }] } }),
      cells: ['web', '0/1', 'Signal:9', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'exited with a code, no reason',
      pod: pod({ status: { containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }] } }),
      cells: ['web', '0/1', 'ExitCode:3', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'evicted (a pod-level reason)',
      pod: pod({ status: { phase: 'Failed', reason: 'Evicted' } }),
      cells: ['web', '0/1', 'Evicted', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'one container completed, one still running and the pod ready',
      pod: pod({
        spec: { containers: [{ name: 'a' }, { name: 'b' }] },
        status: { conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, ready('b')] },
      }),
      cells: ['web', '1/2', 'Running', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'one container completed, one still running, the pod not ready',
      pod: pod({
        spec: { containers: [{ name: 'a' }, { name: 'b' }] },
        status: { containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, ready('b')] },
      }),
      cells: ['web', '1/2', 'NotReady', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'terminating',
      pod: pod({ metadata: { deletionTimestamp: ago(0) }, status: { containerStatuses: [ready('app')] } }),
      cells: ['web', '1/1', 'Terminating', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'a finished pod being deleted keeps its status',
      pod: pod({ metadata: { deletionTimestamp: ago(0) }, status: { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } }),
      cells: ['web', '0/1', 'Completed', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'on a lost node, being deleted',
      pod: pod({ metadata: { deletionTimestamp: ago(0) }, status: { reason: 'NodeLost' } }),
      cells: ['web', '0/1', 'Unknown', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'scheduling gated',
      pod: pod({ spec: { nodeName: undefined }, status: { phase: 'Pending', podIP: undefined, podIPs: undefined, conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] } }),
      cells: ['web', '0/1', 'SchedulingGated', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    },
    {
      name: 'waiting for the first init container',
      pod: pod({
        spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }] },
        status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }, { name: 'i2', restartCount: 0, state: { waiting: {} } }] },
      }),
      cells: ['web', '0/1', 'Init:0/2', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'second init container running',
      pod: pod({
        spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }] },
        status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 0, state: { terminated: { exitCode: 0 } } }, { name: 'i2', restartCount: 0, state: running }] },
      }),
      cells: ['web', '0/1', 'Init:1/2', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'init container crash looping',
      pod: pod({
        spec: { initContainers: [{ name: 'i1' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'i1', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30_000) } } }],
        },
      }),
      cells: ['web', '0/1', 'Init:CrashLoopBackOff', '3 (30s ago)', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'init container failed without a reason',
      pod: pod({ spec: { initContainers: [{ name: 'i1' }] }, status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 0, state: { terminated: { exitCode: 2 } } }] } }),
      cells: ['web', '0/1', 'Init:ExitCode:2', '0', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'a started sidecar counts as a container',
      pod: pod({
        spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
        status: {
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * minute) } } }],
          containerStatuses: [ready('app')],
        },
      }),
      cells: ['web', '2/2', 'Running', '1 (3m ago)', '5m', '127.128.0.5', 'n1', '<none>', '<none>'],
    },
    {
      name: 'readiness gates',
      pod: pod({
        spec: { readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
        status: { conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }], containerStatuses: [ready('app')] },
      }),
      cells: ['web', '1/1', 'Running', '0', '5m', '127.128.0.5', 'n1', '<none>', '1/2'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(podTableConvertor.cells(c.pod, now), c.cells));
  }

  it('marks finished pods Completed in the row conditions', () => {
    assert.deepEqual(podTableConvertor.conditions!(pod({ status: { phase: 'Succeeded' } })), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    assert.deepEqual(podTableConvertor.conditions!(pod({ status: { phase: 'Failed' } })), [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    assert.equal(podTableConvertor.conditions!(pod({})), undefined);
  });
});
