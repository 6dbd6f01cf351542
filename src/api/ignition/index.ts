/**
 * Ignition configs (spec 2.2 and 3.0–3.4): types, parsing with 2.2 → 3 translation,
 * validation, merging, pointer configs, and writing a config in an older spec (`convert.ts`).
 * Applying a config to a node root is the cloud's job (`src/cloud/first-boot.ts`); this
 * folder never touches a filesystem or the network.
 */
export * from './types.ts';
export { parse, parseObject, parseOrThrow, type ParseResult } from './parse.ts';
export { validateConfig, cleanPath, type ValidationResult } from './validate.ts';
export { merge } from './merge.ts';
export { convertConfig, type ConvertResult } from './convert.ts';
export { configReferences, hasReferences, isPointerConfig, type ConfigReferences } from './pointer.ts';
export { decodeDataUrl, encodeDataUrl, type DataUrlResult } from './data-url.ts';
export { checkSource, supportedSchemes, type SourceScheme } from './source.ts';
export { formatProblem, IgnitionConfigError, type ConfigProblem } from './problems.ts';
export { newestVersion, parseVersion, supportedVersions, type SpecVersion } from './version.ts';
