/**
 * The `labelSelector` query parameter of list and watch requests. Parsing and matching live in
 * api/label-selector.ts, shared with the controllers; what is the API server's own is that a
 * malformed selector is a 400 `BadRequest` carrying kube-apiserver's parse message.
 */
import { LabelSelectorParseError, matchesRequirements, parseLabelRequirements, type LabelMatcher, type LabelRequirement } from '../../api/label-selector.ts';
import { errors } from '../errors.ts';

/** Parses a `labelSelector` query string into a matcher over an object's labels; throws a 400 ApiError when malformed. */
export function parseLabelSelector(selector: string): LabelMatcher {
  let requirements: LabelRequirement[];
  try {
    requirements = parseLabelRequirements(selector);
  } catch (err) {
    if (err instanceof LabelSelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
  return (labels) => matchesRequirements(requirements, labels);
}
