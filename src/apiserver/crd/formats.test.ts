import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubeFormatName, kubeFormats } from './formats.ts';

const cases: Array<{ format: string; valid: string[]; invalid: string[] }> = [
  { format: 'email', valid: ['a@b.c', 'Jane <jane@example.com>'], invalid: ['nope', 'a@'] },
  { format: 'hostname', valid: ['example.com', 'localhost'], invalid: ['-bad-.com', 'a..b'] },
  { format: 'ipv4', valid: ['127.0.0.1', '127.000.0.01'], invalid: ['127.0.0', '256.0.0.1', '::1'] },
  { format: 'ipv6', valid: ['::1', 'fe80::1'], invalid: ['127.0.0.1', 'xyz'] },
  { format: 'cidr', valid: ['127.0.0.0/8', '2001:db8::/64'], invalid: ['127.0.0.0', '127.0.0.0/33'] },
  { format: 'mac', valid: ['01:23:45:67:89:ab', '01-23-45-67-89-AB', '0123.4567.89ab'], invalid: ['01:23:45'] },
  { format: 'uuid', valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], invalid: ['123'] },
  { format: 'uuid4', valid: ['123e4567-e89b-42d3-a456-426614174000'], invalid: ['123e4567-e89b-12d3-a456-426614174000'] },
  { format: 'byte', valid: ['aGVsbG8=', 'YWJj', ''], invalid: ['not base64!', 'YWJ', 'a==='] },
  { format: 'date', valid: ['2024-02-29'], invalid: ['2023-02-29', '2024-13-01', '24-01-01'] },
  { format: 'datetime', valid: ['2024-01-01T10:00:00Z', '2024-01-01T10:00:00.123+02:00'], invalid: ['2024-01-01', '2024-01-01T25:00:00Z', '2024-01-01T10:00:00'] },
  { format: 'duration', valid: ['1h30m', '500ms', '3 days', '0', 'P1D'], invalid: ['soon', '5 parsecs'] },
  { format: 'uri', valid: ['https://example.com/x', '/absolute/path'], invalid: ['relative/path', ''] },
  { format: 'hexcolor', valid: ['#fff', 'A0B1C2'], invalid: ['#ffff'] },
  { format: 'rgbcolor', valid: ['rgb(0, 128,255)'], invalid: ['rgb(256,0,0)'] },
  { format: 'isbn10', valid: ['0321751043'], invalid: ['0321751044'] },
  { format: 'isbn13', valid: ['978-0321751041'], invalid: ['978-0321751042'] },
  { format: 'creditcard', valid: ['4111 1111 1111 1111'], invalid: ['4111 1111 1111 1112'] },
  { format: 'ssn', valid: ['123-45-6789'], invalid: ['123-456-789'] },
  { format: 'bsonobjectid', valid: ['507f1f77bcf86cd799439011'], invalid: ['507f1f77'] },
  { format: 'k8s-short-name', valid: ['my-name'], invalid: ['1abc', 'a.b'] },
  { format: 'k8s-long-name', valid: ['a.b-c'], invalid: ['A.b'] },
  { format: 'password', valid: ['anything at all'], invalid: [] },
];

describe('kubeFormats', () => {
  for (const c of cases) {
    it(c.format, () => {
      const check = kubeFormats[c.format]!;
      for (const v of c.valid) assert.ok(check(v), `${c.format} should accept ${JSON.stringify(v)}`);
      for (const v of c.invalid) assert.ok(!check(v), `${c.format} should refuse ${JSON.stringify(v)}`);
    });
  }
});

describe('kubeFormatName', () => {
  const names: Array<[string, string | undefined]> = [['date-time', 'datetime'], ['datetime', 'datetime'], ['email', 'email'], ['int32', undefined], ['color', undefined], ['k8s-short-name', 'k8s-short-name']];
  for (const [format, want] of names) it(format, () => assert.equal(kubeFormatName(format), want));
});
