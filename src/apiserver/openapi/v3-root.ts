/**
 * The OpenAPI v3 discovery document served at `/openapi/v3`: one entry per group-version,
 * pointing at that group-version's document with its content hash, which kubectl uses as the
 * key of its cache.
 */

export interface OpenApiV3Root {
  readonly paths: Record<string, { readonly serverRelativeURL: string }>;
}

/** `groupVersions` are `api/v1` / `apis/<group>/<version>` paths; `hashOf` gives each document's hash. */
export function buildOpenApiV3Root(groupVersions: readonly string[], hashOf: (groupVersion: string) => string): OpenApiV3Root {
  const paths: OpenApiV3Root['paths'] = {};
  for (const gv of [...new Set(groupVersions)].sort()) {
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hashOf(gv)}` };
  }
  return { paths };
}
