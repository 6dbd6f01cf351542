/**
 * `render`'s shell: reads the inputs, renders, writes `<out>/bootstrap-manifests/`,
 * `<out>/manifests/` and the bootstrap config file. Nothing is written when an input is bad.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { readRenderInputs } from './inputs.ts';
import { renderBootstrapAssets, type BootstrapAssets, type RenderOptions } from './render.ts';

export interface RenderCommandOptions extends RenderOptions {
  readonly assetInputDir: string;
  readonly assetOutputDir: string;
  readonly configOutputFile: string;
}

/** The files written, absolute, in the order written. */
export function runRender(o: RenderCommandOptions): { assets: BootstrapAssets; files: string[] } {
  const assets = renderBootstrapAssets(readRenderInputs(o.assetInputDir), o);
  const files: string[] = [];
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { mode: 0o644 });
    files.push(path);
  };
  const out = resolve(o.assetOutputDir);
  for (const [name, m] of Object.entries(assets.bootstrapManifests)) write(join(out, 'bootstrap-manifests', name), stringify(m));
  for (const [name, m] of Object.entries(assets.manifests)) write(join(out, 'manifests', name), stringify(m));
  write(resolve(o.configOutputFile), stringify(assets.config));
  return { assets, files };
}
