/**
 * A file entry of the Ignition configs the controllers generate: text inline as a readable
 * `data:,` URL (what the MCO renders, so `kubectl get mc -o yaml` shows the content), written
 * whole over whatever is there.
 */
import { encodeDataUrl, type IgnitionFile } from '../../../api/ignition/index.ts';

export function textFile(path: string, contents: string, mode = 0o644): IgnitionFile {
  return { path, mode, overwrite: true, contents: { source: encodeDataUrl(contents) } };
}
