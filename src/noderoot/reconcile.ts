/**
 * Whether a running node can go from one config to another in place, by the MCO's rules
 * (`isConfigReconcilable`): files, units, kernel arguments, the OS image and user `core`'s SSH
 * keys and password can change; users other than `core`, groups, disks, filesystems, RAID,
 * directories, new links, appended files, Ignition's own kernel-argument section and a FIPS flip
 * cannot, because applying them needs a fresh install. The refusal is worded as the MCO's
 * daemon words it: `can't reconcile config A with B: <what>`.
 *
 * Beyond the MCO: a LUKS change is refused with the disks (the MCO's check predates the
 * section), and so is a file whose contents are not inline, which the MCO only finds out when
 * it fails to write it.
 */
import type { IgnitionUser } from '../api/ignition/index.ts';
import { sameValue, type NodeConfig } from './config.ts';
import { diffConfigs, type ConfigDiff } from './diff.ts';
import { isInline } from './resource.ts';
import { coreUser } from './ssh.ts';

/** Writing it through a config would make every later update skip validation. */
export const forceFile = '/run/machine-config-daemon-force';

export type Reconcilable = { readonly ok: true; readonly diff: ConfigDiff } | { readonly ok: false; readonly what: string; readonly message: string };

export function reconcilable(from: NodeConfig, to: NodeConfig): Reconcilable {
  const what = unreconcilable(from, to);
  if (what !== undefined) return { ok: false, what, message: `can't reconcile config ${from.name} with ${to.name}: ${what}` };
  return { ok: true, diff: diffConfigs(from, to) };
}

function unreconcilable(from: NodeConfig, to: NodeConfig): string | undefined {
  const a = from.ignition;
  const b = to.ignition;
  if (!sameValue(a.passwd, b.passwd)) {
    const why = passwdChange(a.passwd, b.passwd);
    if (why) return why;
  }
  if (!sameValue(a.kernelArguments, b.kernelArguments)) return 'ignition kargs section contains changes';
  for (const section of ['disks', 'filesystems', 'raid', 'luks', 'directories'] as const) {
    if (!sameValue(a.storage?.[section], b.storage?.[section])) return `ignition ${section} section contains changes`;
  }
  // Removing links is let through: the MCO once shipped some and had to be able to drop them.
  if (!sameValue(a.storage?.links, b.storage?.links) && (b.storage?.links?.length ?? 0) > 0) return 'ignition links section contains changes';
  for (const f of b.storage?.files ?? []) {
    if (f.append?.length) return `ignition file ${f.path} includes append`;
    if (f.path === forceFile) return `cannot create ${f.path} via Ignition`;
    if (!isInline(f.contents)) return `ignition file ${f.path} has remote contents (${f.contents?.source}); only data: URLs can be written on a running node`;
  }
  if (!!from.fips !== !!to.fips) return 'detected change to FIPS flag; refusing to modify FIPS on a running cluster';
  return undefined;
}

function passwdChange(a: { users?: IgnitionUser[]; groups?: unknown[] } | undefined, b: { users?: IgnitionUser[]; groups?: unknown[] } | undefined): string | undefined {
  if (!sameValue(a?.groups, b?.groups)) return 'ignition Passwd Groups section contains changes';
  if (sameValue(a?.users, b?.users)) return undefined;
  const users = b?.users ?? [];
  if (users.some((u) => u.name !== coreUser)) return 'ignition passwd user section contains unsupported changes: non-core user';
  // The absence of a user does not mean "remove it": dropping every user is fine.
  const last = users.at(-1);
  if (!last) return undefined;
  if (last.passwordHash === undefined && !last.sshAuthorizedKeys?.length) return 'ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys';
  const { name: _name, sshAuthorizedKeys: _keys, passwordHash: _hash, ...rest } = last;
  if (!sameValue(rest, {})) return 'SSH keys and password hash are not reconcilable';
  return undefined;
}
