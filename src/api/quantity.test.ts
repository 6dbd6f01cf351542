import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QuantityError, quantityMilliValue, quantityValue } from './quantity.ts';

describe('quantity', () => {
  it('reads CPU as millicores', () => {
    const cases: Array<[string | number, number]> = [
      ['100m', 100],
      ['1', 1000],
      ['0.5', 500],
      ['.5', 500],
      ['2.', 2000],
      ['1.5k', 1_500_000],
      ['250000u', 250],
      [2, 2000],
      [0.25, 250],
      ['+3', 3000],
      ['0', 0],
    ];
    for (const [input, want] of cases) assert.equal(quantityMilliValue(input), want, String(input));
  });

  it('rounds up when scaling to an integer, as Kubernetes does', () => {
    assert.equal(quantityMilliValue('0.0001'), 1);
    assert.equal(quantityMilliValue('1n'), 1);
    assert.equal(quantityValue('100m'), 1);
    assert.equal(quantityValue('1.0000001'), 2);
    assert.equal(quantityValue('-1.5'), -1);
  });

  it('reads memory in bytes with binary, decimal and exponent suffixes', () => {
    const cases: Array<[string, number]> = [
      ['128Mi', 128 * 2 ** 20],
      ['1Ki', 1024],
      ['1.5Gi', 1.5 * 2 ** 30],
      ['1G', 1e9],
      ['1M', 1e6],
      ['1k', 1000],
      ['1e3', 1000],
      ['1E3', 1000],
      ['12e-1', 2],
      ['1Ti', 2 ** 40],
      ['64', 64],
    ];
    for (const [input, want] of cases) assert.equal(quantityValue(input), want, input);
  });

  it('is exact where binary floating point is not', () => {
    // 0.1 + 0.2 style error would make 0.3 CPU 300.00000000000006m, rounded up to 301m.
    assert.equal(quantityMilliValue('0.3'), 300);
    assert.equal(quantityValue('1.1Gi'), Math.ceil(1.1 * 2 ** 30));
  });

  it('rejects what is not a quantity', () => {
    for (const bad of ['', 'abc', '1Qi', '1 Mi', '--1', '1.2.3', '1e', '1e99999', 'Mi']) {
      assert.throws(() => quantityValue(bad), QuantityError, bad);
    }
    assert.throws(() => quantityValue(Number.NaN), QuantityError);
  });
});
