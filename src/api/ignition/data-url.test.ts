import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeDataUrl, encodeDataUrl } from './data-url.ts';

function text(url: string): string {
  const r = decodeDataUrl(url);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.data.toString('utf8');
}

describe('data URLs', () => {
  it('decodes percent-encoded and base64 bodies', () => {
    assert.equal(text('data:,hello%20world%0A'), 'hello world\n');
    assert.equal(text('data:text/plain;charset=utf-8;base64,aGVsbG8='), 'hello');
    assert.equal(text('data:;base64,aGVsbG8'), 'hello');
    assert.equal(text('data:,'), '');
    assert.equal(text('data:,caf%C3%A9 ☃'), 'café ☃');
  });

  it('keeps bytes that are not UTF-8', () => {
    const r = decodeDataUrl('data:,%1F%8B%FF');
    assert.ok(r.ok);
    assert.deepEqual([...r.data], [0x1f, 0x8b, 0xff]);
  });

  it('refuses malformed input', () => {
    assert.deepEqual(decodeDataUrl('data:text/plain'), { ok: false, message: 'invalid data URL: missing ","' });
    assert.deepEqual(decodeDataUrl('data:,%G1'), { ok: false, message: 'invalid data URL: malformed percent-encoding' });
    assert.deepEqual(decodeDataUrl('data:;base64,a'), { ok: false, message: 'invalid data URL: malformed base64' });
    assert.equal(decodeDataUrl('http://localhost/').ok, false);
  });

  it('round-trips through encode', () => {
    const s = 'line 1\nmit ümlaut & 100%';
    assert.equal(text(encodeDataUrl(s)), s);
    assert.equal(text(encodeDataUrl(s, { base64: true })), s);
    assert.equal(text(encodeDataUrl(Buffer.from(s))), s);
  });
});
