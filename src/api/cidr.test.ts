import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SubnetRange, parseCidr } from './cidr.ts';

describe('pod CIDR ranges', () => {
  it('carves /24s out of 127.128.0.0/9 and finds each one back', () => {
    const r = new SubnetRange('127.128.0.0/9', 24);
    assert.equal(r.count, 32768);
    assert.equal(r.cidr(0), '127.128.0.0/24');
    assert.equal(r.cidr(257), '127.129.1.0/24');
    assert.equal(r.indexOf('127.129.1.0/24'), 257);
    assert.equal(r.indexOf('127.64.0.0/24'), undefined);
  });
  it('refuses malformed ranges and impossible masks', () => {
    assert.throws(() => parseCidr('127.128.0.0'), /not a CIDR/);
    assert.throws(() => new SubnetRange('127.128.0.0/9', 8), /between \/9 and \/30/);
  });
});
