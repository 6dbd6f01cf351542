import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAt, cidrContains, parseCidr } from '../../api/cidr.ts';
import { addressBlock, BLOCK_COUNT, chooseAddressBlock } from './address-block.ts';

describe('address blocks', () => {
  it('block 0 is the documented plan; a cluster created before blocks keeps its /9 pod range', () => {
    assert.deepEqual(addressBlock(0), { index: 0, host: '127.0.0.1', nodeCIDR: '127.1.0.0/16', serviceCIDR: '127.64.0.0/16', kubernetesIP: '127.64.0.1', podCIDR: '127.128.0.0/12', podHostPrefix: 24 });
    assert.equal(addressBlock(undefined).podCIDR, '127.128.0.0/9');
    assert.equal(addressBlock(undefined).nodeCIDR, '127.1.0.0/16');
  });

  it('no two blocks share an address, and every address is loopback', () => {
    const ranges = Array.from({ length: BLOCK_COUNT }, (_, k) => addressBlock(k)).flatMap((b) => [b.nodeCIDR, b.serviceCIDR, b.podCIDR, `${b.host}/32`]);
    for (const r of ranges) assert.ok(cidrContains('127.0.0.0/8', addressAt(r, 0)), `${r} is loopback`);
    for (let i = 0; i < ranges.length; i++) {
      for (let j = i + 1; j < ranges.length; j++) {
        const a = parseCidr(ranges[i]!);
        const b = parseCidr(ranges[j]!);
        const aEnd = a.base + 2 ** (32 - a.bits);
        const bEnd = b.base + 2 ** (32 - b.bits);
        assert.ok(aEnd <= b.base || bEnd <= a.base, `${ranges[i]} and ${ranges[j]} overlap`);
      }
    }
  });

  it('refuses a block that does not exist', () => {
    assert.throws(() => addressBlock(BLOCK_COUNT), /address block 8 is not one of 0-7/);
  });

  it('a new cluster takes the first free block, and says so when none is', async () => {
    const taken = new Set([0, 1]);
    assert.equal((await chooseAddressBlock(async (b) => !taken.has(b.index!), async () => assert.fail('a block was free'))).index, 2);
    await assert.rejects(
      chooseAddressBlock(
        async () => false,
        async () => {
          throw new Error('all taken');
        },
      ),
      /all taken/,
    );
  });
});
