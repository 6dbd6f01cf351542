import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression } from './compile.ts';
import { type DeclType, estimateCost, unbounded } from './cost-estimate.ts';

const str = (maxLength: number): DeclType => ({ kind: 'string', maxElements: maxLength * 4, minSerializedSize: 2 });
const list = (elem: DeclType, maxItems: number): DeclType => ({ kind: 'list', maxElements: maxItems, minSerializedSize: 2, elem });
const int: DeclType = { kind: 'int', maxElements: 0, minSerializedSize: 1 };

function cost(rule: string, self: DeclType): number {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return estimateCost(c.expression.ast, { self, oldSelf: self }, 'self');
}

describe('static CEL cost estimate', () => {
  it('charges identifiers, calls and comparisons 1 each', () => {
    // isIP(self): the call and self.
    assert.equal(cost('isIP(self)', str(39)), 2);
    // size(self) < 2 (3) || ip(self[0]).family() != ip(self[1]).family() (4 + 4 + 1)
    assert.equal(cost('size(self) < 2 || ip(self[0]).family() != ip(self[1]).family()', list(str(39), 2)), 12);
  });

  it('charges a comprehension its range size times one step', () => {
    // range 1 + result 1 + 2 items × (accumulator 3 + isIP(x) 2)
    assert.equal(cost('self.all(x, isIP(x))', list(str(39), 2)), 12);
    const linear = cost('self.all(x, x > 0)', list(int, 1000));
    const quadratic = cost('self.all(x, self.all(y, x + y > 0))', list(int, 1000));
    assert.ok(linear > 5_000 && linear < 10_000, String(linear));
    assert.ok(quadratic > 5_000_000 && quadratic < 10_000_000, String(quadratic));
  });

  it('charges string work by length: a tenth per byte, regular expressions by the pattern too', () => {
    // (4 × 10 + 1) / 10 → 5, times 2 / 4 → 1, plus self.
    assert.equal(cost("self.matches('^a')", str(10)), 6);
    // self == 'abc': the shorter side, 3 bytes, a tenth each → 1, plus self.
    assert.equal(cost("self == 'abc'", str(100)), 2);
    assert.equal(cost("self.startsWith('abcdefghijklmnopqrstu')", str(100)), 4);
  });

  it('knows nothing bounds an unbounded string, and saturates', () => {
    const unboundedString: DeclType = { kind: 'string', maxElements: 3 * 1024 * 1024 - 2, minSerializedSize: 2 };
    assert.equal(cost("self.contains('x')", unboundedString), 314_574);
    assert.equal(cost('self.all(x, self.all(y, self.all(z, x == y && y == z)))', list(unboundedString, 1_048_575)), unbounded);
  });

  it('sizes the parts of split() as the rule’s own value, as Kubernetes’ estimator does', () => {
    // self 1, split 2 × 1788 / 10, [1] 1, matches (1788 + 1) / 10 → 179 times a 21-byte pattern / 4 → 6.
    const c = cost("self.split('@')[1].matches('^sha256:[a-f0-9]{64}$')", str(447));
    assert.equal(c, 1 + 358 + 1 + 179 * 6);
  });
});
