/**
 * The payload as the CVO uses it: loaded from a directory (src/release does the reading,
 * checking and planning), with the CVO's own template variables rendered — `{{.ReleaseImage}}`
 * is the image the payload came from, known only when it is applied, as in OpenShift's CVO
 * manifests.
 */
import { loadPayloadDir as readPayload, type LoadedPayload as ReleasePayload } from '../../release/payload.ts';
import type { PayloadManifest as ReleaseManifest } from '../../release/manifest.ts';

export { filterOverrides, type Override } from '../../release/payload.ts';
export { planPayload } from '../../release/task-graph.ts';

export type PayloadManifest = ReleaseManifest;
export type LoadedPayload = ReleasePayload;

/** A copy of `value` with `{{.Name}}` replaced in every string, for each variable given. */
export function renderManifestObject(value: unknown, vars: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return value.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (whole, name: string) => vars[name] ?? whole);
  if (Array.isArray(value)) return value.map((v) => renderManifestObject(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderManifestObject(v, vars)]));
  return value;
}

export function loadPayloadDir(dir: string, releaseImage: string): LoadedPayload {
  const payload = readPayload(dir, releaseImage);
  const vars = { ReleaseImage: releaseImage };
  return { ...payload, manifests: payload.manifests.map((m) => (m.raw.includes('{{') ? { ...m, object: renderManifestObject(m.object, vars) as ReleaseManifest['object'] } : m)) };
}
