/** The one API error: what the server sends from it, and what a client makes of what it receives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, isAlreadyExists, isConflict, isNotFound, statusCodeOf } from './status.ts';

describe('ApiError', () => {
  it('becomes the Status the server sends', () => {
    const err = new ApiError(409, 'Conflict', 'Operation cannot be fulfilled', { name: 'a', causes: [{ reason: 'FieldManagerConflict' }] });
    assert.deepEqual(err.toStatus(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Operation cannot be fulfilled', reason: 'Conflict', code: 409,
      details: { name: 'a', causes: [{ reason: 'FieldManagerConflict' }] },
    });
    assert.ok(isConflict(err) && !isAlreadyExists(err) && !isNotFound(err));
  });

  it('a received Status names the request in its message and keeps the server’s words in status.message', () => {
    const err = ApiError.received('GET /api/v1/namespaces/a/pods/b', 404, { reason: 'NotFound', message: 'pods "b" not found' });
    assert.equal(err.message, 'GET /api/v1/namespaces/a/pods/b: 404 NotFound: pods "b" not found');
    assert.equal(err.status.message, 'pods "b" not found');
    assert.ok(isNotFound(err));
    assert.equal(statusCodeOf(err), 404);
    assert.equal(statusCodeOf(new Error('socket hang up')), undefined);
  });

  it('a body that is not a Status still gives an error with its code', () => {
    const err = ApiError.received('GET /healthz', 502, { message: '<html>Bad Gateway</html>' });
    assert.equal(err.code, 502);
    assert.equal(err.reason, '');
    assert.equal(err.message, 'GET /healthz: 502 : <html>Bad Gateway</html>');
  });
});
