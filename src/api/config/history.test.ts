import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpdateHistory } from './cluster-version.ts';
import { currentVersion, maxHistory, pruneHistory, recordHistory } from './history.ts';

const t = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`;
const rel = (version: string) => ({ version, image: `example.com/release:${version}` });

const entry = (version: string, state: UpdateHistory['state']): UpdateHistory => ({
  state,
  startedTime: t(0),
  completionTime: state === 'Completed' ? t(1) : null,
  version,
  image: `example.com/release:${version}`,
  verified: false,
});

describe('recordHistory', () => {
  it('starts with a Partial entry, then completes it in place', () => {
    const started = recordHistory(undefined, rel('0.1.0'), { completed: false, now: t(0) });
    assert.deepEqual(started, [{ state: 'Partial', startedTime: t(0), completionTime: null, version: '0.1.0', image: 'example.com/release:0.1.0', verified: false }]);
    const again = recordHistory(started, rel('0.1.0'), { completed: false, now: t(1) });
    assert.deepEqual(again, started, 'a second pass towards the same release changes nothing');
    const done = recordHistory(again, rel('0.1.0'), { completed: true, verified: true, now: t(2) });
    assert.deepEqual(done, [{ state: 'Completed', startedTime: t(0), completionTime: t(2), version: '0.1.0', image: 'example.com/release:0.1.0', verified: true }]);
    assert.equal(started[0]!.state, 'Partial', 'the input is not modified');
  });

  it('an update pushes a new entry first and closes the previous one', () => {
    let h = recordHistory(undefined, rel('0.1.0'), { completed: true, now: t(0) });
    h = recordHistory(h, rel('0.2.0'), { completed: false, now: t(5) });
    assert.deepEqual(h.map((e) => [e.version, e.state, e.completionTime]), [['0.2.0', 'Partial', null], ['0.1.0', 'Completed', t(0)]]);
    assert.equal(currentVersion(h), '0.1.0');
    // Abandoning 0.2.0 for 0.3.0 closes the Partial entry without completing it.
    h = recordHistory(h, rel('0.3.0'), { completed: false, now: t(7) });
    assert.deepEqual(h.map((e) => [e.version, e.state, e.completionTime]), [['0.3.0', 'Partial', null], ['0.2.0', 'Partial', t(7)], ['0.1.0', 'Completed', t(0)]]);
    h = recordHistory(h, rel('0.3.0'), { completed: true, now: t(9) });
    assert.equal(currentVersion(h), '0.3.0');
  });

  it('matches an entry by image and fills in a missing version', () => {
    const h = recordHistory(undefined, { image: 'example.com/release@sha256:abc' }, { completed: false, now: t(0) });
    const named = recordHistory(h, { image: 'example.com/release@sha256:abc', version: '0.4.0' }, { completed: true, now: t(1) });
    assert.deepEqual(named.map((e) => [e.version, e.state]), [['0.4.0', 'Completed']]);
  });

  it('does not record a release without an image', () => {
    assert.deepEqual(recordHistory(undefined, { version: '0.1.0' }, { completed: true }), []);
  });

  it(`stays at ${maxHistory} entries`, () => {
    let h: UpdateHistory[] = [];
    for (let i = 0; i < 150; i++) h = recordHistory(h, rel(`0.${i}.0`), { completed: true, now: t(i % 60) });
    assert.equal(h.length, maxHistory);
    assert.equal(h[0]!.version, '0.149.0', 'the newest stays');
    assert.equal(h[h.length - 1]!.version, '0.0.0', 'the install stays');
  });
});

describe('pruneHistory', () => {
  it('keeps the install entry, the five newest and the newest Completed entry', () => {
    // Newest first: five Partial attempts, an old Completed, filler, the install.
    const h = [...['9', '8', '7', '6', '5'].map((m) => entry(`1.${m}.0`, 'Partial')), entry('1.4.0', 'Completed'), entry('1.3.0', 'Partial'), entry('1.2.0', 'Partial'), entry('1.0.0', 'Completed')];
    const pruned = pruneHistory(h, 8);
    assert.equal(pruned.length, 8);
    assert.ok(pruned.some((e) => e.version === '1.0.0'), 'install kept');
    assert.ok(pruned.some((e) => e.version === '1.4.0'), 'newest Completed kept');
    assert.deepEqual(pruned.slice(0, 5).map((e) => e.version), ['1.9.0', '1.8.0', '1.7.0', '1.6.0', '1.5.0']);
  });

  it('drops a Partial within a z-stream before the first or last Completed of a minor', () => {
    const h = [
      ...[9, 8, 7, 6, 5].map((z) => entry(`4.2.${z}`, 'Completed')),
      entry('4.1.3', 'Completed'), // last Completed of 4.1: interesting
      entry('4.1.2', 'Partial'), // between 4.1.1 and 4.1.3: a z-stream partial, the first to go
      entry('4.1.1', 'Completed'), // first of 4.1 (older neighbour is 4.0): interesting
      entry('4.0.0', 'Completed'), // install
    ];
    assert.deepEqual(
      pruneHistory(h, h.length - 1).map((e) => e.version),
      h.filter((e) => e.version !== '4.1.2').map((e) => e.version),
    );
  });

  it('keeps a Partial of a minor transition over an ordinary Completed entry', () => {
    const h = [
      ...[9, 8, 7, 6, 5].map((z) => entry(`4.3.${z}`, 'Completed')),
      entry('4.3.4', 'Completed'), // neither first nor last Completed of 4.3: ordinary, the first to go
      entry('4.3.3', 'Completed'), // first Completed of 4.3
      entry('4.3.0', 'Partial'), // between 4.2.1 and 4.3.3: part of a minor transition
      entry('4.2.1', 'Completed'), // last Completed of 4.2
      entry('4.2.0', 'Completed'), // install
    ];
    assert.deepEqual(
      pruneHistory(h, h.length - 1).map((e) => e.version),
      h.filter((e) => e.version !== '4.3.4').map((e) => e.version),
    );
  });

  it('leaves short histories alone', () => {
    const h = [entry('1.0.0', 'Completed')];
    assert.deepEqual(pruneHistory(h), h);
  });
});
