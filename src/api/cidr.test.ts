import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatIpAddress, formatIpPrefix, IpParseError, ipPrefixContains, isIPv4MappedIPv6, maskIpPrefix, parseCidr, parseIpAddress, parseIpPrefix, SubnetRange,
} from './cidr.ts';

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

describe('IP addresses and prefixes as Go net/netip reads them', () => {
  const roundTrips: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['::', '::'],
    ['::1', '::1'],
    ['2001:DB8::ABCD', '2001:db8::abcd'],
    ['2001:db8:0:0:0:0:0:abcd', '2001:db8::abcd'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:0:0:2::3', '1:0:0:2::3'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
  ];
  for (const [input, want] of roundTrips) it(`${input} → ${want}`, () => assert.equal(formatIpAddress(parseIpAddress(input)), want));

  it('refuses what Go refuses, with its words', () => {
    const errors: Array<[string, string]> = [
      ['', 'ParseAddr(""): unable to parse IP'],
      ['1.2.3', 'ParseAddr("1.2.3"): IPv4 address too short'],
      ['1.2.3.4.5', 'ParseAddr("1.2.3.4.5"): IPv4 address too long'],
      ['1.2.3.256', 'ParseAddr("1.2.3.256"): IPv4 field has value >255'],
      ['01.2.3.4', 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
      ['1..3.4', 'ParseAddr("1..3.4"): IPv4 field must have at least one digit (at ".3.4")'],
      [':::1', 'ParseAddr(":::1"): each colon-separated field must have at least one digit (at ":1")'],
      ['1::2::3', 'ParseAddr("1::2::3"): multiple :: in address (at ":3")'],
      ['1:2:3:4:5:6:7', 'ParseAddr("1:2:3:4:5:6:7"): address string too short'],
      ['12345::', 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'],
      ['%eth0', 'ParseAddr("%eth0"): missing IPv6 address'],
      ['fe80::1%', 'ParseAddr("fe80::1%"): zone must be a non-empty string'],
    ];
    for (const [input, message] of errors) assert.throws(() => parseIpAddress(input), (e: Error) => e instanceof IpParseError && e.message === message, input);
    assert.equal(isIPv4MappedIPv6(parseIpAddress('::ffff:127.0.0.1')), true);
    assert.equal(isIPv4MappedIPv6(parseIpAddress('127.0.0.1')), false);
  });

  it('reads prefixes, masks them and tells what they contain', () => {
    const p = parseIpPrefix('127.168.0.1/24');
    assert.equal(formatIpPrefix(p), '127.168.0.1/24');
    assert.equal(formatIpPrefix(maskIpPrefix(p)), '127.168.0.0/24');
    assert.equal(formatIpPrefix(maskIpPrefix(parseIpPrefix('2001:db8:1::/32'))), '2001:db8::/32');
    assert.equal(ipPrefixContains(p, parseIpAddress('127.168.0.254')), true);
    assert.equal(ipPrefixContains(p, parseIpAddress('127.168.1.1')), false);
    assert.equal(ipPrefixContains(parseIpPrefix('2001:db8::/32'), parseIpAddress('2001:db8:ffff::1')), true);
    assert.equal(ipPrefixContains(parseIpPrefix('0.0.0.0/0'), parseIpAddress('::1')), false, 'families do not mix');
    for (const [input, message] of [
      ['127.0.0.0', 'netip.ParsePrefix("127.0.0.0"): no \'/\''],
      ['127.0.0.0/', 'netip.ParsePrefix("127.0.0.0/"): bad bits after slash: ""'],
      ['127.0.0.0/08', 'netip.ParsePrefix("127.0.0.0/08"): bad bits after slash: "08"'],
      ['127.0.0.0/33', 'netip.ParsePrefix("127.0.0.0/33"): prefix length out of range'],
      ['fe80::%eth0/64', 'netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix'],
      ['1.2.3/8', 'netip.ParsePrefix("1.2.3/8"): ParseAddr("1.2.3"): IPv4 address too short'],
    ] as const) {
      assert.throws(() => parseIpPrefix(input), (e: Error) => e.message === message, input);
    }
  });
});
