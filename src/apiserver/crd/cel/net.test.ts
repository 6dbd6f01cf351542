import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe('Kubernetes IP library', () => {
  const truths = [
    "isIP('127.0.0.1') && isIP('::1') && isIP('2001:db8::abcd') && !isIP('127.0.0.256') && !isIP(':::1') && !isIP('01.2.3.4')",
    "!isIP('fe80::1%eth0') && !isIP('::ffff:1.2.3.4') && !isIP('') && !isIP('127.0.0.0/8')",
    "ip('127.0.0.1').family() == 4 && ip('::1').family() == 6",
    "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd') && !ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')",
    "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('127.0.0.1').isUnspecified()",
    "ip('127.0.0.1').isLoopback() && ip('127.255.0.1').isLoopback() && ip('::1').isLoopback() && !ip('192.0.2.1').isLoopback() && !ip('2001:db8::abcd').isLoopback()",
    "ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('ff05::1').isLinkLocalMulticast()",
    "ip('169.254.169.254').isLinkLocalUnicast() && !ip('192.0.2.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('fe00::1').isLinkLocalUnicast()",
    "ip('192.0.2.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast() && !ip('0.0.0.0').isGlobalUnicast()",
    "string(ip('2001:DB8:0::1')) == '2001:db8::1' && ip('127.0.0.2') == ip('127.0.0.2') && ip('::1') != ip('::2')",
    // The OpenShift Infrastructure rules: at most one address of each family.
    "size(self) < 2 || ip(self[0]).family() != ip(self[1]).family()",
    "self.all(x, isIP(x))",
  ];
  for (const rule of truths) it(rule, () => assert.deepEqual(run(rule, ['192.0.2.5', '2001:db8::14']), { kind: 'value', value: true }));

  it('tells two addresses of one family apart from one of each', () => {
    assert.deepEqual(run('size(self) < 2 || ip(self[0]).family() != ip(self[1]).family()', ['127.0.0.1', '127.0.0.2']), { kind: 'value', value: false });
  });

  it('words parse errors as Kubernetes does', () => {
    assert.deepEqual(run("ip('1.2.3') == ip('1.2.3.4')"), { kind: 'error', message: 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short' });
    assert.deepEqual(run("ip('fe80::1%eth0').family() == 6"), { kind: 'error', message: 'IP address "fe80::1%eth0" with zone value is not allowed' });
    assert.deepEqual(run("ip('::ffff:1.2.3.4').family() == 6"), { kind: 'error', message: 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed' });
  });
});

describe('Kubernetes CIDR library', () => {
  const truths = [
    "isCIDR('127.168.0.0/16') && isCIDR('::1/128') && !isCIDR('127.168.0.0/33') && !isCIDR('::1/129') && !isCIDR('127.0.0.1')",
    "cidr('127.168.0.0/24').containsIP(ip('127.168.0.1')) && !cidr('127.168.0.0/24').containsIP(ip('127.168.1.1'))",
    "cidr('127.168.0.0/24').containsIP('127.168.0.1') && !cidr('127.168.0.0/24').containsIP('127.168.1.1')",
    "cidr('2001:db8::/32').containsIP('2001:db8::1') && !cidr('2001:db8::/32').containsIP('2001:dc8::1') && !cidr('0.0.0.0/0').containsIP('::1')",
    "cidr('127.168.0.0/16').containsCIDR(cidr('127.168.10.0/24')) && !cidr('127.168.1.0/24').containsCIDR(cidr('127.168.2.0/24'))",
    "cidr('127.168.0.0/16').containsCIDR('127.168.10.0/24') && !cidr('127.168.0.0/24').containsCIDR('127.168.0.0/23')",
    "cidr('2001:db8::/32').containsCIDR('2001:db8::/33') && !cidr('2001:db8::/32').containsCIDR('2001:db8::/31')",
    "cidr('127.168.0.1/24').ip() == ip('127.168.0.1') && cidr('::1/128').ip().family() == 6",
    "cidr('127.168.0.1/24').masked() == cidr('127.168.0.0/24') && cidr('127.168.0.1/24') != cidr('127.168.0.1/24').masked()",
    "cidr('127.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128",
    "string(cidr('2001:db8:1::/32').masked()) == '2001:db8::/32' && string(cidr('127.0.0.0/8')) == '127.0.0.0/8'",
  ];
  for (const rule of truths) it(rule, () => assert.deepEqual(run(rule), { kind: 'value', value: true }));

  it('words parse errors as Kubernetes does', () => {
    assert.deepEqual(run("cidr('127.168.0.0/').prefixLength() == 1"), {
      kind: 'error',
      message: 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("127.168.0.0/"): bad bits after slash: ""',
    });
  });
});
