import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planPayload, splitOnJobs, type PlanTask } from './task-graph.ts';

const task = (file: string, kind = 'ConfigMap', apiVersion = 'v1'): PlanTask => ({ file, kind, apiVersion });
const files = <T extends PlanTask>(plan: T[][][]) => plan.map((level) => level.map((node) => node.map((t) => t.file)));

const payload = [
  task('0000_00_cvo_01_ns.yaml'),
  task('0000_00_cvo_02_deploy.yaml'),
  task('0000_10_a_01.yaml'),
  task('0000_10_a_02.yaml'),
  task('0000_10_b_01.yaml'),
  task('0000_10_c_01.yaml'),
  task('0000_20_d_01.yaml'),
  task('extra-1.yaml'),
  task('extra-2.yaml'),
  task('0000_30_e_01.yaml'),
];

describe('planPayload, update mode', () => {
  it('runs run levels in order, components of a level in parallel, a component’s files in order', () => {
    assert.deepEqual(files(planPayload(payload, 'update')), [
      [['0000_00_cvo_01_ns.yaml', '0000_00_cvo_02_deploy.yaml']],
      [['0000_10_a_01.yaml', '0000_10_a_02.yaml'], ['0000_10_b_01.yaml'], ['0000_10_c_01.yaml']],
      [['0000_20_d_01.yaml']],
      [['extra-1.yaml', 'extra-2.yaml']],
      [['0000_30_e_01.yaml']],
    ]);
  });

  it('makes every Job a barrier of its own, even inside a component', () => {
    const tasks = [task('0000_10_a_01.yaml'), task('0000_10_b_01.yaml'), task('0000_10_a_02_job.yaml', 'Job', 'batch/v1'), task('0000_10_a_03.yaml'), task('0000_10_b_02.yaml')];
    assert.deepEqual(files(planPayload(tasks, 'update')), [
      [['0000_10_a_01.yaml'], ['0000_10_b_01.yaml']],
      [['0000_10_a_02_job.yaml']],
      [['0000_10_a_03.yaml'], ['0000_10_b_02.yaml']],
    ]);
    // A CronJob or a Job of another group is not a barrier.
    assert.equal(splitOnJobs([task('x.yaml', 'Job', 'example.com/v1'), task('y.yaml', 'CronJob', 'batch/v1')]).length, 1);
  });
});

describe('planPayload, install mode', () => {
  it('puts every component node in one parallel level, ignoring run levels', () => {
    assert.deepEqual(files(planPayload(payload, 'install')), [
      [
        ['0000_00_cvo_01_ns.yaml', '0000_00_cvo_02_deploy.yaml'],
        ['0000_10_a_01.yaml', '0000_10_a_02.yaml'],
        ['0000_10_b_01.yaml'],
        ['0000_10_c_01.yaml'],
        ['0000_20_d_01.yaml'],
        ['extra-1.yaml', 'extra-2.yaml'],
        ['0000_30_e_01.yaml'],
      ],
    ]);
  });

  it('still waits at Jobs', () => {
    const tasks = [task('0000_10_a_01.yaml'), task('0000_20_j_01.yaml', 'Job', 'batch/v1'), task('0000_30_b_01.yaml')];
    assert.deepEqual(files(planPayload(tasks, 'install')), [[['0000_10_a_01.yaml']], [['0000_20_j_01.yaml']], [['0000_30_b_01.yaml']]]);
  });

  it('plans nothing for no manifests', () => {
    assert.deepEqual(planPayload([], 'install'), []);
    assert.deepEqual(planPayload([], 'update'), []);
  });
});

describe('planPayload, reconcile mode', () => {
  const many = Array.from({ length: 12 }, (_, i) => task(`0000_${String(10 + i)}_c${i}_01.yaml`));
  const order = (attempt: number) => files(planPayload(many, 'reconcile', attempt))[0]!.map((n) => n[0]);

  it('has the install plan’s nodes, permuted', () => {
    const install = files(planPayload(many, 'install'))[0]!.map((n) => n[0]).sort();
    assert.deepEqual([...order(0)].sort(), install);
  });

  it('is reproducible for an attempt, and differs between attempts', () => {
    assert.deepEqual(order(3), order(3));
    const seen = new Set(Array.from({ length: 16 }, (_, i) => order(i).join(',')));
    assert.ok(seen.size > 8, `expected varied orders, got ${seen.size}`);
  });

  it('rotates one permutation across 8 consecutive attempts', () => {
    const base = order(8);
    const rotated = order(9);
    const start = base.indexOf(rotated[0]!);
    assert.ok(start > 0, 'the next attempt starts elsewhere');
    assert.deepEqual(rotated, [...base.slice(start), ...base.slice(0, start)]);
  });
});
