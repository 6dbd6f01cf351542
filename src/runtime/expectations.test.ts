import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { Expectations } from './expectations.ts';

describe('Expectations', () => {
  it('holds a controller back until its creates and deletes are all observed', () => {
    const e = new Expectations({ clock: new FakeClock() });
    assert.equal(e.satisfied('ns/rs'), true);
    e.expect('ns/rs', { creates: 2, deletes: ['ns/p1'] });
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), false);
    e.deletionObserved('ns/rs', 'ns/p1');
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('counts a pod seen deleted twice (deletionTimestamp, then gone) once', () => {
    const e = new Expectations({ clock: new FakeClock() });
    e.expect('k', { deletes: ['ns/a', 'ns/b'] });
    e.deletionObserved('k', 'ns/a');
    e.deletionObserved('k', 'ns/a');
    assert.equal(e.satisfied('k'), false);
    e.deletionObserved('k', 'ns/b');
    assert.equal(e.satisfied('k'), true);
  });

  it('gives up waiting after the TTL, in case an event was lost', () => {
    const clock = new FakeClock();
    const e = new Expectations({ clock, ttlMs: 1000 });
    e.expect('k', { creates: 1 });
    clock.advance(1000);
    assert.equal(e.satisfied('k'), false);
    clock.advance(1);
    assert.equal(e.satisfied('k'), true);
  });

  it('forgets a controller that is gone', () => {
    const e = new Expectations({ clock: new FakeClock() });
    e.expect('k', { creates: 5 });
    e.forget('k');
    assert.equal(e.satisfied('k'), true);
  });
});
