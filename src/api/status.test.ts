/** The one API error: what the server sends from it, and what a client makes of what it receives. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, errorText, isAlreadyExists, isConflict, isNamespaceTerminating, isNotFound, statusCodeOf } from './status.ts';

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

  it('tells a namespace being deleted by its cause, not by its words; a log field says only the code', () => {
    const terminating = ApiError.received('POST /api/v1/namespaces/gone/configmaps', 403, {
      reason: 'Forbidden',
      message: 'configmaps "x" is forbidden: unable to create new content in namespace gone because it is being terminated',
      details: { causes: [{ reason: 'NamespaceTerminating', message: 'namespace gone is being terminated', field: 'metadata.namespace' }] },
    });
    assert.equal(isNamespaceTerminating(terminating), true);
    assert.equal(isNamespaceTerminating(new ApiError(403, 'Forbidden', 'being terminated, says the text')), false);
    assert.equal(errorText(terminating), 'HTTP 403');
    assert.equal(errorText(new Error('socket hang up')), 'socket hang up');
  });
});
