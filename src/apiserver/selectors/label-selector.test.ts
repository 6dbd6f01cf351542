import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { parseLabelSelector } from './label-selector.ts';

// The grammar, its error wording and matching are tested with api/label-selector.ts.
describe('labelSelector query parameter', () => {
  it('matches what the selector selects', () => {
    assert.equal(parseLabelSelector('app=web,tier in (a,b)')({ app: 'web', tier: 'a' }), true);
    assert.equal(parseLabelSelector('app=web,tier in (a,b)')({ app: 'web' }), false);
    assert.equal(parseLabelSelector('')(undefined), true);
  });

  it('refuses a malformed selector with a 400 carrying kube-apiserver\'s message', () => {
    for (const [selector, message] of [
      ['app=web,', "found '', expected: identifier after ','"],
      ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ] as const) {
      assert.throws(
        () => parseLabelSelector(selector),
        (err: unknown) => err instanceof ApiError && err.code === 400 && err.reason === 'BadRequest' && err.message === message,
      );
    }
  });
});
