/**
 * Apply and health, as the CVO does them (and every operator deploying operands with it):
 * typed merges that revert drift without fighting server defaults, apply-if-changed with
 * conflict retries, and the health checks that decide when a manifest is done. The CVO's sync
 * loop calls `applyManifest` then `checkHealth` for each manifest.
 */
export { mergeObject, type MergeResult } from './merge.ts';
export { applyManifest, isCreateOnly, CREATE_ONLY_ANNOTATION, type ApplyAction, type ApplyOptions, type ApplyResult } from './apply.ts';
export { checkHealth, evaluateHealth, type HealthMode, type HealthOptions, type HealthResult } from './health.ts';
