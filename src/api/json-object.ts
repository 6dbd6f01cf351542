/**
 * Reads a JSON document that must be one object (a config file such as an operator's
 * `images.json`): errors say which file and what is wrong with it, in the words operators
 * report in their Degraded conditions.
 */

/** The parsed object; `source` names the file in errors. */
export function parseJsonObject(text: string, source: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${source}: must be a JSON object of image references`);
  return doc as Record<string, unknown>;
}
