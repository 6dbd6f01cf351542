/**
 * What a launch request may say: a name that can be a Node's name (and a directory name), a
 * known instance type and zone, user data up to 1 MiB, and at most 50 string tags (EC2's
 * limits). Checked field by field at run time, because the request may come straight from JSON.
 */
import { isDns1123Subdomain } from '../api/names.ts';
import { findInstanceType, instanceTypes, isZone, zones } from './catalog.ts';
import type { RunInstanceInput } from '../cloudclient/types.ts';
import { CloudError } from './errors.ts';

export const maxUserDataBytes = 1024 * 1024;
const maxTags = 50;

/** Checks a launch request field by field; the input may come straight from JSON. */
export function validateRunInput(input: unknown): RunInstanceInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CloudError('BadRequest', 'the request body must be a JSON object');
  const body = input as Record<string, unknown>;
  const known = new Set(['name', 'type', 'zone', 'userData', 'tags']);
  for (const key of Object.keys(body)) if (!known.has(key)) throw new CloudError('InvalidParameterValue', `unknown field "${key}"`, key);

  if (body.name === undefined) throw new CloudError('MissingParameter', 'name is required', 'name');
  if (typeof body.name !== 'string') throw new CloudError('InvalidParameterValue', 'name must be a string', 'name');
  const nameErrors = isDns1123Subdomain(body.name);
  if (nameErrors.length) throw new CloudError('InvalidParameterValue', `name "${body.name}" is invalid: ${nameErrors.join('; ')}`, 'name');

  if (body.type === undefined) throw new CloudError('MissingParameter', 'type is required', 'type');
  if (typeof body.type !== 'string') throw new CloudError('InvalidParameterValue', 'type must be a string', 'type');
  if (!findInstanceType(body.type)) {
    throw new CloudError('InvalidParameterValue', `instance type "${body.type}" is unknown (known: ${instanceTypes.map((t) => t.name).join(', ')})`, 'type');
  }

  if (body.zone !== undefined && (typeof body.zone !== 'string' || !isZone(body.zone))) {
    throw new CloudError('InvalidParameterValue', `zone ${JSON.stringify(body.zone)} is unknown (known: ${zones.join(', ')})`, 'zone');
  }
  if (body.userData !== undefined) {
    if (typeof body.userData !== 'string') throw new CloudError('InvalidParameterValue', 'userData must be a string', 'userData');
    if (Buffer.byteLength(body.userData) > maxUserDataBytes) throw new CloudError('InvalidParameterValue', `userData must be at most ${maxUserDataBytes} bytes`, 'userData');
  }
  const tags = body.tags;
  if (tags !== undefined) {
    if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) throw new CloudError('InvalidParameterValue', 'tags must be an object of strings', 'tags');
    const entries = Object.entries(tags);
    if (entries.length > maxTags) throw new CloudError('InvalidParameterValue', `at most ${maxTags} tags are allowed`, 'tags');
    for (const [k, v] of entries) {
      if (k.length === 0 || k.length > 128) throw new CloudError('InvalidParameterValue', `tag key "${k.slice(0, 140)}" must be 1 to 128 characters`, `tags.${k}`);
      if (typeof v !== 'string') throw new CloudError('InvalidParameterValue', `tag "${k}" must have a string value`, `tags.${k}`);
      if (v.length > 256) throw new CloudError('InvalidParameterValue', `tag "${k}" value must be at most 256 characters`, `tags.${k}`);
    }
  }
  return body as unknown as RunInstanceInput;
}
