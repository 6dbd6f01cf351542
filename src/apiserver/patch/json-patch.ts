/**
 * JSON patch (RFC 6902), the `application/json-patch+json` PATCH body and the default of
 * client-node's generated `patch*` methods. The operations are checked for shape first (a
 * malformed list is the client's syntax error: 400), then applied with fast-json-patch to a
 * private copy; an operation that cannot be applied to this object (a failed `test`, a path
 * that does not exist) is 422 Invalid, as kube-apiserver answers. Every failure is an ApiError
 * whose message names the operation's index and path.
 */
import jsonpatch from 'fast-json-patch';
import { ApiError, errors } from '../errors.ts';
import { describeType, isObject } from './json-value.ts';

/** kube-apiserver's cap (`maxJSONPatchOperations`). */
export const maxJsonPatchOperations = 10_000;

type Operation = jsonpatch.Operation;

const opNames = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function isPointer(value: unknown): value is string {
  return typeof value === 'string' && (value === '' || value.startsWith('/'));
}

function checkOperations(ops: unknown): Operation[] {
  if (!Array.isArray(ops)) throw errors.badRequest(`a JSON patch must be a list of operations, got ${describeType(ops)}`);
  if (ops.length > maxJsonPatchOperations) {
    throw new ApiError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${ops.length}`);
  }
  ops.forEach((op: unknown, i) => {
    const bad = (why: string): never => {
      throw errors.badRequest(`invalid JSON patch operation ${i}: ${why}`, [{ reason: 'FieldValueInvalid', message: why, field: `[${i}]` }]);
    };
    if (!isObject(op)) return bad(`must be an object, got ${describeType(op)}`);
    if (typeof op.op !== 'string') return bad('missing "op"');
    if (!opNames.has(op.op)) return bad(`unknown op ${JSON.stringify(op.op)}`);
    if (!isPointer(op.path)) return bad(`"path" must be a JSON pointer ("" or starting with "/"), got ${JSON.stringify(op.path ?? null)}`);
    if ((op.op === 'add' || op.op === 'replace' || op.op === 'test') && !('value' in op)) return bad(`"${op.op}" at ${JSON.stringify(op.path)} needs a "value"`);
    if ((op.op === 'move' || op.op === 'copy') && !isPointer(op.from)) return bad(`"${op.op}" to ${JSON.stringify(op.path)} needs a "from" JSON pointer`);
    return undefined;
  });
  return ops as Operation[];
}

const explanations: Record<string, string> = {
  TEST_OPERATION_FAILED: 'the value does not match',
  OPERATION_PATH_UNRESOLVABLE: 'the path does not exist',
  OPERATION_FROM_UNRESOLVABLE: 'the "from" path does not exist',
  OPERATION_PATH_CANNOT_ADD: 'the parent of the path does not exist',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'the index is past the end of the list',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'a list index must be an unsigned integer or "-"',
  OPERATION_PATH_INVALID: 'the path is not a valid JSON pointer',
};

function failure(ops: Operation[], index: number | undefined, why: string): ApiError {
  const op = index !== undefined ? ops[index] : undefined;
  const where = op ? `JSON patch operation ${index} (${op.op} ${JSON.stringify(op.path)})` : 'JSON patch';
  const message = `${where} failed: ${why}`;
  return new ApiError(422, 'Invalid', message, { causes: [{ reason: 'FieldValueInvalid', message, field: op?.path ?? '' }] });
}

/** Applies `ops` to a copy of `original` and returns the result; never modifies either argument. */
export function applyJsonPatch(original: unknown, ops: unknown): unknown {
  const checked = checkOperations(ops);
  // fast-json-patch inserts operation values by reference, so both sides are copied.
  const document = structuredClone(original);
  const operations = structuredClone(checked);
  try {
    return jsonpatch.applyPatch(document, operations, true, true, true).newDocument;
  } catch (err) {
    if (err instanceof jsonpatch.JsonPatchError) {
      throw failure(checked, err.index, explanations[err.name] ?? err.message);
    }
    // Prototype-pollution attempts and type errors on non-container parents land here.
    const index = findFailingIndex(original, checked);
    throw failure(checked, index, err instanceof Error ? err.message : String(err));
  }
}

// For errors fast-json-patch reports without an index: replays the operations one at a time.
function findFailingIndex(original: unknown, ops: Operation[]): number | undefined {
  let doc = structuredClone(original);
  for (let i = 0; i < ops.length; i++) {
    try {
      doc = jsonpatch.applyOperation(doc, structuredClone(ops[i]!), true, true, true, i).newDocument;
    } catch {
      return i;
    }
  }
  return undefined;
}
