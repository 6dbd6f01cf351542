import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IpAllocator } from './ip-allocator.ts';

describe('node IP allocator', () => {
  it('hands out 127.1.x.y in order, skipping .0 and .255', () => {
    const a = new IpAllocator({ cursor: 253 });
    assert.deepEqual([a.allocate(), a.allocate(), a.allocate()], ['127.1.0.253', '127.1.0.254', '127.1.1.1']);
    assert.equal(new IpAllocator().allocate(), '127.1.0.1');
  });

  it('does not reuse a released address until the range wraps', () => {
    const a = new IpAllocator();
    const first = a.allocate();
    a.release(first);
    assert.equal(a.allocate(), '127.1.0.2');
    const wrapped = new IpAllocator({ cursor: 0xffff }, ['127.1.0.2']);
    assert.equal(wrapped.allocate(), '127.1.0.1', 'wraps past 127.1.255.255 and skips 127.1.0.0');
    assert.equal(wrapped.allocate(), '127.1.0.3', 'skips addresses still in use');
  });

  it('resumes from its saved cursor with the addresses in use', () => {
    const a = new IpAllocator();
    a.allocate();
    a.allocate();
    const b = new IpAllocator(a.state(), ['127.1.0.1', '127.1.0.2']);
    assert.equal(b.allocate(), '127.1.0.3');
  });

  it('refuses addresses outside 127.1.0.0/16 and reports exhaustion', () => {
    assert.throws(() => new IpAllocator({ cursor: 1 }, ['127.2.0.1']), /not a node address in 127\.1\.0\.0\/16/);
    const inUse: string[] = [];
    for (let third = 0; third < 256; third++) for (let last = 1; last < 255; last++) inUse.push(`127.1.${third}.${last}`);
    assert.throws(() => new IpAllocator({ cursor: 1 }, inUse).allocate(), /no free address left/);
  });
});
