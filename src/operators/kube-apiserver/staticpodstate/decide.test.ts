import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { decideStaticPodState, lastLines, logsWanted, type StaticPodStateDecision } from './decide.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const at = (ms: number) => new Date(NOW + ms).toISOString() as unknown as Date;

const mirror = (node: string, statuses: V1ContainerStatus[], readySince?: number): V1Pod => ({
  metadata: { name: `kube-apiserver-${node}`, labels: { revision: '2' } },
  spec: { nodeName: node, containers: [{ name: 'kube-apiserver' }] },
  status: {
    phase: 'Running',
    containerStatuses: statuses,
    ...(readySince !== undefined ? { conditions: [{ type: 'Ready', status: statuses.every((s) => s.ready) ? 'True' : 'False', lastTransitionTime: at(readySince) }] } : {}),
  },
});
const running = (ready: boolean): V1ContainerStatus => ({ name: 'kube-apiserver', image: 'x', imageID: '', restartCount: 0, ready, state: { running: { startedAt: at(-3_600_000) } } });
const crashLooping: V1ContainerStatus = {
  name: 'kube-apiserver',
  image: 'x',
  imageID: '',
  restartCount: 3,
  ready: false,
  state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=kube-apiserver pod=kube-apiserver-master-1_openshift-kube-apiserver(u)' } },
  lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'line 1\nline 2\nError: unknown field "servingInfo.bindAddres"\n' } },
};

describe('decideStaticPodState', () => {
  const nodes = [{ nodeName: 'master-0', currentRevision: 2 }, { nodeName: 'master-1', currentRevision: 1 }];
  const cases: { name: string; pods: V1Pod[]; nodes?: { nodeName: string; currentRevision?: number }[]; logs?: [string, string][]; want: StaticPodStateDecision }[] = [
    { name: 'every container running and ready', pods: [mirror('master-0', [running(true)]), mirror('master-1', [running(true)])], want: { condition: { status: 'False', reason: 'AsExpected' } } },
    {
      name: 'a crash loop names the pod, the state and the last log lines from the termination message',
      pods: [mirror('master-0', [running(true)]), mirror('master-1', [crashLooping])],
      want: {
        condition: {
          status: 'True',
          reason: 'Error',
          message:
            'pod/kube-apiserver-master-1 container "kube-apiserver" is waiting: CrashLoopBackOff: back-off 20s restarting failed container=kube-apiserver pod=kube-apiserver-master-1_openshift-kube-apiserver(u); last log lines:\nline 1\nline 2\nError: unknown field "servingInfo.bindAddres"',
        },
      },
    },
    {
      name: 'a terminated container without a message gets the log the shell read',
      pods: [mirror('master-0', [{ ...running(false), state: { terminated: { exitCode: 2, reason: 'Error' } } }]), mirror('master-1', [running(true)])],
      logs: [['kube-apiserver-master-0/kube-apiserver', 'panic: no store\n']],
      want: { condition: { status: 'True', reason: 'Error', message: 'pod/kube-apiserver-master-0 container "kube-apiserver" is terminated: Error: exit code 2; last log lines:\npanic: no store' } },
    },
    {
      name: 'an exit 0 and a starting container are no failure',
      pods: [mirror('master-0', [{ ...running(false), state: { terminated: { exitCode: 0, reason: 'Completed' } } }]), mirror('master-1', [{ ...running(false), state: { waiting: { reason: 'ContainerCreating' } } }])],
      want: { condition: { status: 'False', reason: 'AsExpected' } },
    },
    {
      name: 'an image that does not pull is a failure without log lines',
      pods: [mirror('master-0', [running(true)]), mirror('master-1', [{ ...running(false), state: { waiting: { reason: 'ErrImagePull', message: 'image "nope" not found' } } }])],
      want: { condition: { status: 'True', reason: 'Error', message: 'pod/kube-apiserver-master-1 container "kube-apiserver" is waiting: ErrImagePull: image "nope" not found' } },
    },
    {
      name: 'not ready within the grace: nothing yet, look again when it ends',
      pods: [mirror('master-0', [running(false)], -60_000), mirror('master-1', [running(true)])],
      want: { condition: { status: 'False', reason: 'AsExpected' }, requeueAfterMs: 240_000 },
    },
    {
      name: 'not ready past the grace is told, not Degraded',
      pods: [mirror('master-0', [running(false)], -300_000), mirror('master-1', [running(true)])],
      want: { condition: { status: 'False', reason: 'Error', message: 'pod/kube-apiserver-master-0 container "kube-apiserver" is still not ready' } },
    },
    {
      name: 'a missing mirror pod is told once its node has a revision; before, nothing',
      pods: [mirror('master-0', [running(true)])],
      nodes: [{ nodeName: 'master-0', currentRevision: 2 }, { nodeName: 'master-1', currentRevision: 1 }, { nodeName: 'master-2' }],
      want: { condition: { status: 'False', reason: 'Error', message: 'pods "kube-apiserver-master-1" not found' } },
    },
    {
      name: 'every failing container on every node, one line each',
      pods: [mirror('master-0', [{ ...running(false), state: { terminated: { exitCode: 137, reason: 'Error', message: 'killed' } } }]), mirror('master-1', [crashLooping])],
      want: {
        condition: {
          status: 'True',
          reason: 'Error',
          message: [
            'pod/kube-apiserver-master-0 container "kube-apiserver" is terminated: Error: exit code 137; last log lines:\nkilled',
            'pod/kube-apiserver-master-1 container "kube-apiserver" is waiting: CrashLoopBackOff: back-off 20s restarting failed container=kube-apiserver pod=kube-apiserver-master-1_openshift-kube-apiserver(u); last log lines:\nline 1\nline 2\nError: unknown field "servingInfo.bindAddres"',
          ].join('\n'),
        },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = decideStaticPodState({ nodes: c.nodes ?? nodes, pods: new Map(c.pods.map((p) => [p.metadata!.name!, p])), now: NOW, logTails: new Map(c.logs ?? []) });
      assert.deepEqual(got, c.want);
    });
  }
});

describe('logsWanted', () => {
  it('names failing containers without a termination message, the previous run for a waiting one', () => {
    const noMessage = { ...crashLooping, lastState: { terminated: { exitCode: 1 } } };
    assert.deepEqual(logsWanted(mirror('m', [noMessage])), [{ container: 'kube-apiserver', previous: true }]);
    assert.deepEqual(logsWanted(mirror('m', [{ ...running(false), state: { terminated: { exitCode: 1 } } }])), [{ container: 'kube-apiserver', previous: false }]);
    assert.deepEqual(logsWanted(mirror('m', [crashLooping, running(true)])), []);
  });
});

describe('lastLines', () => {
  it('keeps the last lines without the trailing newline', () => {
    assert.equal(lastLines(Array.from({ length: 15 }, (_, i) => `l${i}`).join('\n') + '\n'), Array.from({ length: 10 }, (_, i) => `l${i + 5}`).join('\n'));
  });
});
