import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planProportionalScale } from './proportional.ts';

describe('planProportionalScale', () => {
  it('shares a scale-up in proportion to each ReplicaSet\'s size', () => {
    // Sized for 10 + maxSurge 3 = 13; now 20 + 3 = 23.
    const { sizes, direction } = planProportionalScale({
      desired: 20,
      maxSurge: 3,
      statusReplicas: 13,
      active: [
        { name: 'old', replicas: 8, created: 1, maxReplicas: 13 },
        { name: 'new', replicas: 5, created: 2, maxReplicas: 13 },
      ],
    });
    assert.equal(direction, 'up');
    assert.deepEqual(Object.fromEntries(sizes), { old: 14, new: 9 });
  });

  it('shares a scale-down the same way', () => {
    const { sizes, direction } = planProportionalScale({
      desired: 5,
      maxSurge: 1,
      statusReplicas: 11,
      active: [
        { name: 'a', replicas: 6, created: 1, maxReplicas: 11 },
        { name: 'b', replicas: 5, created: 2, maxReplicas: 11 },
      ],
    });
    assert.equal(direction, 'down');
    // 6 → round(6·6/11) = 3, 5 → round(5·6/11) = 3: 6 in all, as allowed.
    assert.deepEqual(Object.fromEntries(sizes), { a: 3, b: 3 });
    assert.equal([...sizes.values()].reduce((x, y) => x + y), 6);
  });

  it('gives what rounding leaves over to the largest ReplicaSet, the newest among equals when growing', () => {
    const one = (name: string, created: number) => ({ name, replicas: 1, created, maxReplicas: 3 });
    const { sizes } = planProportionalScale({ desired: 4, maxSurge: 0, statusReplicas: 3, active: [one('a', 1), one('c', 3), one('b', 2)] });
    // Each share rounds to 1 (1·4/3); the one replica left over goes to the newest.
    assert.deepEqual(Object.fromEntries(sizes), { a: 1, b: 1, c: 2 });
  });

  it('falls back to status.replicas without a max-replicas annotation, and empties everything at 0', () => {
    const up = planProportionalScale({ desired: 4, maxSurge: 0, statusReplicas: 2, active: [{ name: 'a', replicas: 1, created: 1 }, { name: 'b', replicas: 1, created: 2 }] });
    assert.deepEqual(Object.fromEntries(up.sizes), { a: 2, b: 2 });
    const zero = planProportionalScale({ desired: 0, maxSurge: 1, statusReplicas: 4, active: [{ name: 'a', replicas: 3, created: 1 }, { name: 'b', replicas: 1, created: 2 }] });
    assert.deepEqual(Object.fromEntries(zero.sizes), { a: 0, b: 0 });
  });
});
