import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setConditions } from '../api/config/conditions.ts';
import type { ClusterOperatorStatusCondition } from '../api/config/index.ts';
import { formatTimestamp } from '../api/time.ts';
import { FakeClock } from './clock.ts';
import {
  clusterOperatorConditions,
  newInertia,
  type OperatorConditionLike,
  staticPodDegradedInertia,
  unionCondition,
  type UnionCondition,
  untilInertiaElapses,
} from './status-union.ts';

const second = 1000;
const minute = 60 * second;

/** A clock whose wall time is fixed, and a condition maker whose times are "this long ago" on it. */
function at() {
  const clock = new FakeClock();
  const ago = (ms: number) => formatTimestamp(clock.wallNow() - ms);
  const c = (type: string, status: string, agoMs: number, extra: Partial<OperatorConditionLike> = {}): OperatorConditionLike => ({ type, status, lastTransitionTime: ago(agoMs), ...extra });
  return { clock, ago, c };
}

const { clock, ago, c } = at();
const fiveSecondsAgo = 5 * second;
const threeMinutesAgo = 3 * minute;
const yesterday = 24 * 60 * minute;
/** 2 minutes, TypeC 5, TypeD 1: library-go's own test of the union uses these. */
const testInertia = newInertia(2 * minute, [
  { match: /^TypeCDegraded$/, durationMs: 5 * minute },
  { match: /^TypeDDegraded$/, durationMs: minute },
]);

type Case = { name: string; conditions: OperatorConditionLike[]; want: Omit<UnionCondition, 'type' | 'lastTransitionTime'> };

describe('status union (library-go pkg/operator/status/condition.go)', () => {
  const degradedCases: Case[] = [
    { name: 'no data', conditions: [], want: { status: 'Unknown', reason: 'NoData' } },
    {
      name: 'one not degraded',
      conditions: [c('TypeADegraded', 'False', threeMinutesAgo, { message: 'a message from type a' })],
      want: { status: 'False', reason: 'AsExpected', message: 'TypeADegraded: a message from type a' },
    },
    {
      name: 'one without a message: All is well',
      conditions: [c('TypeADegraded', 'False', threeMinutesAgo)],
      want: { status: 'False', reason: 'AsExpected', message: 'All is well' },
    },
    {
      name: 'one degraded within its inertia: not yet, but its message shows',
      conditions: [c('TypeADegraded', 'True', fiveSecondsAgo, { message: 'a message from type a' })],
      want: { status: 'False', reason: 'AsExpected', message: 'TypeADegraded: a message from type a' },
    },
    {
      name: 'one degraded beyond its inertia, no reason: the type prefix alone',
      conditions: [c('TypeADegraded', 'True', threeMinutesAgo, { message: 'a message from type a' })],
      want: { status: 'True', reason: 'TypeA', message: 'TypeADegraded: a message from type a' },
    },
    {
      name: 'second of two degraded beyond inertia: only the bad one speaks',
      conditions: [c('TypeADegraded', 'False', yesterday, { message: 'fine' }), c('TypeBDegraded', 'True', threeMinutesAgo, { message: 'a message from type b', reason: 'Broken' })],
      want: { status: 'True', reason: 'TypeB_Broken', message: 'TypeBDegraded: a message from type b' },
    },
    {
      name: 'several degraded, all within their inertia (TypeC has 5 minutes): every message, in input order',
      conditions: [
        c('TypeADegraded', 'False', yesterday),
        c('TypeBDegraded', 'True', fiveSecondsAgo, { message: 'a message from type b\nanother message from type b' }),
        c('TypeCDegraded', 'True', threeMinutesAgo, { message: 'a message from type c' }),
        c('TypeDDegraded', 'True', fiveSecondsAgo, { message: 'a message from type d' }),
      ],
      want: {
        status: 'False',
        reason: 'AsExpected',
        message: 'TypeBDegraded: a message from type b\nTypeBDegraded: another message from type b\nTypeCDegraded: a message from type c\nTypeDDegraded: a message from type d',
      },
    },
    {
      name: 'one bad input past its inertia (TypeD, 1 minute) brings in the young ones too',
      conditions: [
        c('TypeADegraded', 'False', yesterday),
        c('TypeBDegraded', 'True', fiveSecondsAgo, { message: 'a message from type b\nanother message from type b' }),
        c('TypeCDegraded', 'False', threeMinutesAgo, { message: 'a message from type c' }),
        c('TypeDDegraded', 'True', threeMinutesAgo, { message: 'a message from type d' }),
      ],
      want: { status: 'True', reason: 'TypeB::TypeD', message: 'TypeBDegraded: a message from type b\nTypeBDegraded: another message from type b\nTypeDDegraded: a message from type d' },
    },
    {
      name: 'bad inputs sorted by type whatever their order, reasons sorted',
      conditions: [c('ZetaDegraded', 'True', yesterday, { reason: 'A', message: 'z' }), c('AlphaDegraded', 'True', yesterday, { reason: 'Z', message: 'a' })],
      want: { status: 'True', reason: 'Alpha_Z::Zeta_A', message: 'AlphaDegraded: a\nZetaDegraded: z' },
    },
    {
      name: 'a line repeated within one condition is said once',
      conditions: [c('TypeADegraded', 'True', yesterday, { message: 'same\nsame\nother' })],
      want: { status: 'True', reason: 'TypeA', message: 'TypeADegraded: same\nTypeADegraded: other' },
    },
    {
      name: 'Unknown inputs make the union Unknown unless one is the opposite',
      conditions: [c('TypeADegraded', 'Unknown', yesterday, { message: 'cannot tell' })],
      want: { status: 'Unknown', reason: 'TypeA', message: 'TypeADegraded: cannot tell' },
    },
    {
      name: 'a condition without a transition time counts at once (Go\'s zero time is long ago)',
      conditions: [{ type: 'TypeADegraded', status: 'True', reason: 'Now' }],
      want: { status: 'True', reason: 'TypeA_Now' },
    },
    {
      name: 'a condition named exactly Degraded is an aggregate (Shipyard\'s KubeAPIServer column), not an input',
      conditions: [c('Degraded', 'True', yesterday, { reason: 'NodeInstaller_InstallerPodFailed', message: 'NodeInstallerDegraded: boom' }), c('NodeInstallerDegraded', 'True', yesterday, { reason: 'InstallerPodFailed', message: 'boom' })],
      want: { status: 'True', reason: 'NodeInstaller_InstallerPodFailed', message: 'NodeInstallerDegraded: boom' },
    },
  ];
  for (const tc of degradedCases) {
    it(`Degraded: ${tc.name}`, () => {
      const { lastTransitionTime: _, ...got } = unionCondition('Degraded', 'False', tc.conditions, { inertia: testInertia, clock });
      assert.deepEqual(got, { type: 'Degraded', ...tc.want });
    });
  }

  const otherCases: Array<Case & { type: string; defaultStatus: 'True' | 'False' }> = [
    {
      name: 'Progressing has no inertia: a few seconds is enough',
      type: 'Progressing',
      defaultStatus: 'False',
      conditions: [c('TypeAProgressing', 'True', fiveSecondsAgo, { message: 'a message from type a' })],
      want: { status: 'True', reason: 'TypeA', message: 'TypeAProgressing: a message from type a' },
    },
    {
      name: 'Available: one unavailable',
      type: 'Available',
      defaultStatus: 'True',
      conditions: [c('TypeAAvailable', 'False', fiveSecondsAgo, { message: 'a message from type a' })],
      want: { status: 'False', reason: 'TypeA', message: 'TypeAAvailable: a message from type a' },
    },
    {
      name: 'Available: one available, one unknown → Unknown, only the unknown one speaks',
      type: 'Available',
      defaultStatus: 'True',
      conditions: [c('TypeAAvailable', 'True', fiveSecondsAgo, { message: 'a is great' }), c('TypeBAvailable', 'Unknown', fiveSecondsAgo, { message: 'b is confused' })],
      want: { status: 'Unknown', reason: 'TypeB', message: 'TypeBAvailable: b is confused' },
    },
    {
      name: 'Available: one unavailable, one unknown → False',
      type: 'Available',
      defaultStatus: 'True',
      conditions: [c('TypeAAvailable', 'False', fiveSecondsAgo, { message: 'a is bad', reason: 'Something' }), c('TypeBAvailable', 'Unknown', fiveSecondsAgo, { message: 'b is confused' })],
      want: { status: 'False', reason: 'TypeA_Something::TypeB', message: 'TypeAAvailable: a is bad\nTypeBAvailable: b is confused' },
    },
    {
      name: 'EvaluationConditionsDetected under its own exact name is an input, with an empty prefix',
      type: 'EvaluationConditionsDetected',
      defaultStatus: 'False',
      conditions: [c('EvaluationConditionsDetected', 'True', fiveSecondsAgo, { reason: 'PodSecurityReadinessController', message: 'a message from evaluation detection' })],
      want: { status: 'True', reason: '_PodSecurityReadinessController', message: 'EvaluationConditionsDetected: a message from evaluation detection' },
    },
    {
      name: 'Upgradeable: non-empty overrides make it False',
      type: 'Upgradeable',
      defaultStatus: 'True',
      conditions: [c('UnsupportedConfigOverridesUpgradeable', 'False', fiveSecondsAgo, { reason: 'UnsupportedConfigOverridesSet', message: 'setting: [apiServerArguments.v]' })],
      want: { status: 'False', reason: 'UnsupportedConfigOverrides_UnsupportedConfigOverridesSet', message: 'UnsupportedConfigOverridesUpgradeable: setting: [apiServerArguments.v]' },
    },
  ];
  for (const tc of otherCases) {
    it(`${tc.type}: ${tc.name}`, () => {
      const { lastTransitionTime: _, ...got } = unionCondition(tc.type, tc.defaultStatus, tc.conditions, { clock });
      assert.deepEqual(got, { type: tc.type, ...tc.want });
    });
  }

  describe('the reference\'s examples, verbatim', () => {
    it('Progressing=True reason NodeInstaller message "NodeInstallerProgressing: 1 node is at revision 3; 2 nodes are at revision 4"', () => {
      const got = unionCondition('Progressing', 'False', [c('NodeInstallerProgressing', 'True', fiveSecondsAgo, { reason: '', message: '1 node is at revision 3; 2 nodes are at revision 4' })], { clock });
      assert.deepEqual([got.status, got.reason, got.message], ['True', 'NodeInstaller', 'NodeInstallerProgressing: 1 node is at revision 3; 2 nodes are at revision 4']);
    });

    it('Degraded=True reason NodeInstaller_InstallerPodFailed message "NodeInstallerDegraded: 1 nodes are failing on revision 5:\\nNodeInstallerDegraded: installer: <log tail>"', () => {
      const failing = c('NodeInstallerDegraded', 'True', 3 * minute, { reason: 'InstallerPodFailed', message: '1 nodes are failing on revision 5:\ninstaller: <log tail>' });
      const got = unionCondition('Degraded', 'False', [failing, c('StaticPodsDegraded', 'False', yesterday, { reason: 'AsExpected' })], { inertia: staticPodDegradedInertia, clock });
      assert.deepEqual([got.status, got.reason, got.message], ['True', 'NodeInstaller_InstallerPodFailed', 'NodeInstallerDegraded: 1 nodes are failing on revision 5:\nNodeInstallerDegraded: installer: <log tail>']);
    });

    it('Available=False reason StaticPods_ZeroNodesActive', () => {
      const got = unionCondition('Available', 'True', [c('StaticPodsAvailable', 'False', fiveSecondsAgo, { reason: 'ZeroNodesActive', message: '0 nodes are active; 3 nodes are at revision 0; 0 nodes have achieved new revision 1' })], { clock });
      assert.deepEqual([got.status, got.reason, got.message], ['False', 'StaticPods_ZeroNodesActive', 'StaticPodsAvailable: 0 nodes are active; 3 nodes are at revision 0; 0 nodes have achieved new revision 1']);
    });
  });

  it('lastTransitionTime is the newest among the inputs that decided the union', () => {
    const inputs = [c('ADegraded', 'True', 10 * minute), c('BDegraded', 'True', 3 * minute), c('CDegraded', 'False', fiveSecondsAgo)];
    assert.equal(unionCondition('Degraded', 'False', inputs, { clock }).lastTransitionTime, ago(3 * minute), 'bad: the newest bad one');
    assert.equal(unionCondition('Degraded', 'False', inputs.slice(2), { clock }).lastTransitionTime, ago(fiveSecondsAgo), 'good: the newest of all');
    assert.equal(unionCondition('Degraded', 'False', [], { clock }).lastTransitionTime, undefined);
  });

  it('the static-pod inertia: 2 minutes, 10 for NodeControllerDegraded, StaticPodsDegraded and GuardControllerDegraded', () => {
    for (const type of ['NodeControllerDegraded', 'StaticPodsDegraded', 'GuardControllerDegraded']) {
      assert.equal(staticPodDegradedInertia({ type, status: 'True' }), 10 * minute, type);
      assert.equal(unionCondition('Degraded', 'False', [c(type, 'True', 9 * minute)], { inertia: staticPodDegradedInertia, clock }).status, 'False', `${type} at 9 minutes`);
      assert.equal(unionCondition('Degraded', 'False', [c(type, 'True', 10 * minute + second)], { inertia: staticPodDegradedInertia, clock }).status, 'True', `${type} past 10 minutes`);
    }
    for (const type of ['NodeInstallerDegraded', 'TargetConfigControllerDegraded', 'XStaticPodsDegraded']) assert.equal(staticPodDegradedInertia({ type, status: 'True' }), 2 * minute, type);
  });

  it('inertia is evaluated against the clock: a degraded input turns the union True once the clock passes it, and untilInertiaElapses says when', () => {
    const fake = new FakeClock();
    const since = formatTimestamp(fake.wallNow());
    const inputs = [{ type: 'TargetConfigControllerDegraded', status: 'True', reason: 'InvalidConfig', lastTransitionTime: since, message: 'unsupportedConfigOverrides: servingInfo.bindAddres: unknown field' }];
    const opts = { inertia: staticPodDegradedInertia, clock: fake };
    assert.equal(unionCondition('Degraded', 'False', inputs, opts).status, 'False');
    const wait = untilInertiaElapses('Degraded', 'False', inputs, opts);
    assert.equal(wait, 2 * minute + 1);
    fake.advance(2 * minute);
    assert.equal(unionCondition('Degraded', 'False', inputs, opts).status, 'False', 'exactly at the inertia: not yet (strictly older counts)');
    fake.advance(1);
    const got = unionCondition('Degraded', 'False', inputs, opts);
    assert.deepEqual([got.status, got.reason, got.message], ['True', 'TargetConfigController_InvalidConfig', 'TargetConfigControllerDegraded: unsupportedConfigOverrides: servingInfo.bindAddres: unknown field']);
    assert.equal(untilInertiaElapses('Degraded', 'False', inputs, opts), undefined, 'nothing left to wait for');
    assert.equal(untilInertiaElapses('Degraded', 'False', [{ ...inputs[0]!, status: 'False' }], opts), undefined, 'a good input waits for nothing');
  });

  it('clusterOperatorConditions: Degraded (2 minutes of inertia by default), Progressing, Available, Upgradeable, EvaluationConditionsDetected', () => {
    const conditions = [
      c('NodeInstallerProgressing', 'True', fiveSecondsAgo, { message: '1 node is at revision 3; 2 nodes are at revision 4' }),
      c('NodeInstallerDegraded', 'True', minute, { reason: 'InstallerPodFailed', message: 'young' }),
      c('StaticPodsAvailable', 'True', yesterday, { message: '3 nodes are active; 1 node is at revision 3; 2 nodes are at revision 4' }),
    ];
    assert.deepEqual(clusterOperatorConditions(conditions, { clock }), [
      { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'NodeInstallerDegraded: young' },
      { type: 'Progressing', status: 'True', reason: 'NodeInstaller', message: 'NodeInstallerProgressing: 1 node is at revision 3; 2 nodes are at revision 4' },
      { type: 'Available', status: 'True', reason: 'AsExpected', message: 'StaticPodsAvailable: 3 nodes are active; 1 node is at revision 3; 2 nodes are at revision 4' },
      { type: 'Upgradeable', status: 'Unknown', reason: 'NoData' },
      { type: 'EvaluationConditionsDetected', status: 'Unknown', reason: 'NoData' },
    ]);
    const settable = clusterOperatorConditions(conditions, { clock, degradedInertia: newInertia(30 * second) });
    assert.deepEqual(settable[0], { type: 'Degraded', status: 'True', reason: 'NodeInstaller_InstallerPodFailed', message: 'NodeInstallerDegraded: young' });
  });

  it('clusterOperatorConditions under Unmanaged: all Unknown, reason Unmanaged', () => {
    assert.deepEqual(
      clusterOperatorConditions([c('NodeInstallerDegraded', 'True', yesterday)], { clock, unmanaged: true }).map((x) => [x.type, x.status, x.reason, x.message]),
      ['Degraded', 'Progressing', 'Available', 'Upgradeable', 'EvaluationConditionsDetected'].map((t) => [t, 'Unknown', 'Unmanaged', undefined]),
    );
  });

  it('written with setConditions, a ClusterOperator condition moves its time only when its status flips', () => {
    const fake = new FakeClock();
    const inputs = (status: string) => [{ type: 'NodeInstallerDegraded', status, reason: 'InstallerPodFailed', message: 'm', lastTransitionTime: formatTimestamp(fake.wallNow() - 3 * minute) }];
    let current = setConditions<ClusterOperatorStatusCondition>([], clusterOperatorConditions(inputs('False'), { clock: fake }), fake.wallNow());
    const firstTime = current[0]!.lastTransitionTime;
    fake.advance(minute);
    current = setConditions(current, clusterOperatorConditions(inputs('False'), { clock: fake }), fake.wallNow());
    assert.equal(current[0]!.lastTransitionTime, firstTime, 'same status, same time');
    current = setConditions(current, clusterOperatorConditions(inputs('True'), { clock: fake }), fake.wallNow());
    assert.deepEqual([current[0]!.status, current[0]!.reason, current[0]!.lastTransitionTime], ['True', 'NodeInstaller_InstallerPodFailed', formatTimestamp(fake.wallNow())]);
  });
});
