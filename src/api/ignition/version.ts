/** Spec versions: which ones Shipyard reads, and how a version string is read. */

export interface SpecVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: string;
}

/** 2.2 is translated to 3.2 on parse; 3.x is read as is. */
export const supportedVersions = ['2.2.0', '3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0'] as const;

/** The newest spec this side understands: what a config fetch asks the server for. */
export const newestVersion = '3.4.0';

export function parseVersion(s: string): SpecVersion | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(s);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ?? '' };
}

export function isSupported(v: SpecVersion): boolean {
  return !v.prerelease && v.patch === 0 && (supportedVersions as readonly string[]).includes(`${v.major}.${v.minor}.0`);
}
