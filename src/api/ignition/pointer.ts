/**
 * Pointer configs: what the installer puts in a machine's user data. They carry no content of
 * their own, only where to fetch the real config (`ignition.config.replace` or `.merge`, e.g.
 * the machine-config server's `/config/worker`) and the CA to trust while fetching it.
 */
import type { IgnitionConfig, IgnitionResource } from './types.ts';

export interface ConfigReferences {
  readonly replace?: IgnitionResource;
  readonly merge: readonly IgnitionResource[];
}

/** The configs this one names, if any. */
export function configReferences(config: IgnitionConfig): ConfigReferences {
  const refs = config.ignition.config;
  const replace = refs?.replace?.source ? refs.replace : undefined;
  const merge = (refs?.merge ?? []).filter((r) => !!r.source);
  return replace ? { replace, merge } : { merge };
}

export function hasReferences(config: IgnitionConfig): boolean {
  const refs = configReferences(config);
  return refs.replace !== undefined || refs.merge.length > 0;
}

/** True when the config only points elsewhere: references, and no files, units or users. */
export function isPointerConfig(config: IgnitionConfig): boolean {
  if (!hasReferences(config)) return false;
  const s = config.storage;
  const hasStorage = !!(s?.files?.length || s?.directories?.length || s?.links?.length || s?.disks?.length || s?.raid?.length || s?.filesystems?.length || s?.luks?.length);
  const hasUnits = !!config.systemd?.units?.length;
  const hasPasswd = !!(config.passwd?.users?.length || config.passwd?.groups?.length);
  const hasKargs = !!(config.kernelArguments?.shouldExist?.length || config.kernelArguments?.shouldNotExist?.length);
  return !hasStorage && !hasUnits && !hasPasswd && !hasKargs;
}
