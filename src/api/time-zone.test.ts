import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { localTimeZone } from './time-zone.ts';

describe('the local time zone, found as Go finds time.Local', () => {
  const dir = mkdtempSync(join(tmpdir(), 'time-zone-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const link = (name: string, target: string): string => {
    const path = join(dir, name);
    symlinkSync(target, path);
    return path;
  };
  const missing = join(dir, 'none');

  it('TZ first: empty is UTC, a leading colon is dropped, a zone Go could not load is UTC', () => {
    assert.equal(localTimeZone({ TZ: '' }, missing), 'UTC');
    assert.equal(localTimeZone({ TZ: 'Asia/Tokyo' }, missing), 'Asia/Tokyo');
    assert.equal(localTimeZone({ TZ: ':Europe/Berlin' }, missing), 'Europe/Berlin');
    assert.equal(localTimeZone({ TZ: 'Nowhere/Atlantis' }, missing), 'UTC');
    assert.equal(localTimeZone({ TZ: 'Etc/UTC' }, link('ignored', '/usr/share/zoneinfo/Asia/Tokyo')), 'Etc/UTC');
  });

  it('without TZ, the zone /etc/localtime links to, relative or under posix/', () => {
    assert.equal(localTimeZone({}, link('abs', '/usr/share/zoneinfo/America/New_York')), 'America/New_York');
    assert.equal(localTimeZone({}, link('rel', '../usr/share/zoneinfo/Etc/UTC')), 'Etc/UTC');
    assert.equal(localTimeZone({}, link('posix', '/usr/share/zoneinfo/posix/Australia/Sydney')), 'Australia/Sydney');
  });

  it('neither: what Intl says of this process', () => {
    const copied = join(dir, 'copied');
    writeFileSync(copied, 'TZif');
    assert.equal(localTimeZone({}, copied), Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  });
});
