/**
 * What changes between two configs of a node, as the MCO's daemon sees it (its
 * `machineConfigDiff`): one flag per area, which drives both the log line
 * `Starting update from A to B: &{osUpdate:false kargs:false ... files:true ...}` and the
 * choice of drain and reboot (`disruption.ts`), plus the paths and unit names that changed,
 * which the post-config actions are decided from.
 */
import type { IgnitionUnit } from '../api/ignition/index.ts';
import { canonicalKernelType, filesByPath, sameValue, type NodeConfig } from './config.ts';
import { coreUser } from './ssh.ts';

export interface ConfigDiff {
  readonly osUpdate: boolean;
  readonly kargs: boolean;
  readonly fips: boolean;
  readonly passwd: boolean;
  readonly files: boolean;
  readonly units: boolean;
  readonly kernelType: boolean;
  readonly extensions: boolean;
  /** Files added, changed or dropped, by path, sorted. */
  readonly changedFiles: readonly string[];
  readonly addedUnits: readonly string[];
  readonly updatedUnits: readonly string[];
  readonly removedUnits: readonly string[];
  /** User `core`'s authorized keys differ. */
  readonly sshKeys: boolean;
  readonly passwordHash: boolean;
}

/** The flags, in the order the MCO's struct declares them (and prints them). */
const flags = ['osUpdate', 'kargs', 'fips', 'passwd', 'files', 'units', 'kernelType', 'extensions'] as const;

export function diffConfigs(from: NodeConfig, to: NodeConfig): ConfigDiff {
  const a = from.ignition;
  const b = to.ignition;
  const oldFiles = filesByPath(from);
  const newFiles = filesByPath(to);
  const changedFiles = [...new Set([...oldFiles.keys(), ...newFiles.keys()])].filter((p) => !sameValue(oldFiles.get(p), newFiles.get(p))).sort();
  const oldUnits = unitsByName(a.systemd?.units);
  const newUnits = unitsByName(b.systemd?.units);
  const addedUnits = [...newUnits.keys()].filter((n) => !oldUnits.has(n)).sort();
  const removedUnits = [...oldUnits.keys()].filter((n) => !newUnits.has(n)).sort();
  const updatedUnits = [...newUnits.keys()].filter((n) => oldUnits.has(n) && !sameValue(oldUnits.get(n), newUnits.get(n))).sort();
  const bothEmpty = (x?: readonly string[] | null, y?: readonly string[] | null) => !x?.length && !y?.length;
  return {
    osUpdate: (from.osImageURL ?? '') !== (to.osImageURL ?? ''),
    kargs: !bothEmpty(from.kernelArguments, to.kernelArguments) && !sameValue(from.kernelArguments, to.kernelArguments),
    fips: !!from.fips !== !!to.fips,
    passwd: !sameValue(a.passwd, b.passwd),
    files: changedFiles.length > 0,
    units: addedUnits.length + updatedUnits.length + removedUnits.length > 0,
    kernelType: canonicalKernelType(from.kernelType) !== canonicalKernelType(to.kernelType),
    extensions: !bothEmpty(from.extensions, to.extensions) && !sameValue(from.extensions, to.extensions),
    changedFiles,
    addedUnits,
    updatedUnits,
    removedUnits,
    sshKeys: !sameValue(coreKeys(from), coreKeys(to)),
    passwordHash: !sameValue(corePasswordHash(from), corePasswordHash(to)),
  };
}

/** Nothing the daemon would do: the two configs differ at most in ways it does not apply (say, the Ignition version). */
export function isEmptyDiff(diff: ConfigDiff): boolean {
  return flags.every((f) => !diff[f]);
}

/** As Go prints the MCO's struct with `%+v`: `&{osUpdate:false kargs:false ... extensions:false}`. */
export function formatDiff(diff: ConfigDiff): string {
  return `&{${flags.map((f) => `${f}:${diff[f]}`).join(' ')}}`;
}

/** Every key `core` is given, across its entries (the MCO writes them all, in order). */
export function coreKeys(config: NodeConfig): string[] {
  return (config.ignition.passwd?.users ?? []).filter((u) => u.name === coreUser).flatMap((u) => u.sshAuthorizedKeys ?? []);
}

function corePasswordHash(config: NodeConfig): string | undefined {
  return (config.ignition.passwd?.users ?? []).filter((u) => u.name === coreUser && u.passwordHash !== undefined).at(-1)?.passwordHash;
}

function unitsByName(units: readonly IgnitionUnit[] | undefined): Map<string, IgnitionUnit> {
  const out = new Map<string, IgnitionUnit>();
  for (const u of units ?? []) out.set(u.name, u);
  return out;
}
