/**
 * What applying a diff does to the node, by the MCO's node-disruption rules: an OS image,
 * kernel-argument, kernel-type, extension or FIPS change reboots; a changed file is looked up in
 * the policy by its longest matching path (a file or a directory above it), a unit by its name,
 * and one no policy names reboots (no unit has a default policy, so the kubelet's unit, like any,
 * reboots); SSH keys change with no disruption. Drain comes with a reboot
 * or a `Drain` action, and with the `Special` action of `registries.conf` (the MCO skips the
 * drain for registry changes it can prove harmless; this does not try, so it drains).
 *
 * The default policy is the MCO's `defaultClusterPolicies`: the pull secret and the NMState
 * directory change nothing, image-signature and policy files reload CRI-O, the user CA bundle
 * restarts the CA trust service and CRI-O, credential providers restart the kubelet.
 */
import type { ConfigDiff } from './diff.ts';

export type DisruptionAction =
  | { readonly type: 'None' }
  | { readonly type: 'Reboot' }
  | { readonly type: 'Drain' }
  | { readonly type: 'DaemonReload' }
  | { readonly type: 'Special' }
  | { readonly type: 'Reload'; readonly service: string }
  | { readonly type: 'Restart'; readonly service: string };

export interface DisruptionPolicy {
  readonly files: ReadonlyArray<{ readonly path: string; readonly actions: readonly DisruptionAction[] }>;
  readonly units: ReadonlyArray<{ readonly name: string; readonly actions: readonly DisruptionAction[] }>;
  readonly sshKey: readonly DisruptionAction[];
}

export interface Disruption {
  /** A single `Reboot`, a single `None`, or the reload/restart/drain steps, in the order found. */
  readonly actions: readonly DisruptionAction[];
  readonly reboot: boolean;
  readonly drain: boolean;
  /** Why, for people: `file /etc/kubernetes/kubelet.conf changed`, `kernel arguments changed`. */
  readonly reasons: readonly string[];
}

const none: DisruptionAction = { type: 'None' };
const reloadCrio: DisruptionAction = { type: 'Reload', service: 'crio.service' };

export const pullSecretPath = '/var/lib/kubelet/config.json';
export const registriesConfPath = '/etc/containers/registries.conf';

export const defaultDisruptionPolicy: DisruptionPolicy = {
  files: [
    { path: pullSecretPath, actions: [none] },
    { path: '/etc/machine-config-daemon/no-reboot/containers-gpg.pub', actions: [reloadCrio] },
    { path: '/etc/containers/policy.json', actions: [reloadCrio] },
    { path: registriesConfPath, actions: [{ type: 'Special' }] },
    { path: '/etc/containers/registries.d', actions: [reloadCrio] },
    { path: '/etc/crio/policies', actions: [reloadCrio] },
    { path: '/etc/nmstate/openshift', actions: [none] },
    {
      path: '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
      actions: [
        { type: 'Restart', service: 'coreos-update-ca-trust.service' },
        { type: 'Restart', service: 'crio.service' },
      ],
    },
    { path: '/etc/kubernetes/credential-providers', actions: [{ type: 'Restart', service: 'kubelet.service' }] },
    { path: '/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf', actions: [{ type: 'DaemonReload' }, { type: 'Restart', service: 'kubelet.service' }] },
  ],
  units: [],
  sshKey: [none],
};

export interface DisruptionOptions {
  readonly policy?: DisruptionPolicy;
  /** The force file is present: the MCO reboots whatever changed. */
  readonly force?: boolean;
}

export function disruption(diff: ConfigDiff, options: DisruptionOptions = {}): Disruption {
  const policy = options.policy ?? defaultDisruptionPolicy;
  const reasons = rebootReasons(diff, options.force === true);
  const actions: DisruptionAction[] = [];
  if (reasons.length === 0) {
    for (const path of diff.changedFiles) {
      const found = closestFilePolicy(path, policy);
      if (!found) reasons.push(`file ${path} changed`);
      else actions.push(...found);
    }
    for (const name of [...diff.addedUnits, ...diff.updatedUnits, ...diff.removedUnits]) {
      const found = policy.units.find((u) => u.name === name);
      if (!found) reasons.push(`unit ${name} changed`);
      else actions.push(...found.actions);
    }
    if (diff.passwd) actions.push(...policy.sshKey);
  }
  if (reasons.length > 0 || actions.some((a) => a.type === 'Reboot')) {
    return { actions: [{ type: 'Reboot' }], reboot: true, drain: true, reasons: reasons.length ? reasons : ['the disruption policy says reboot'] };
  }
  const steps = actions.filter((a) => a.type !== 'None');
  return {
    actions: steps.length ? steps : [none],
    reboot: false,
    drain: steps.some((a) => a.type === 'Drain' || a.type === 'Special'),
    reasons: [],
  };
}

/** The areas that reboot whatever the policy says (the MCO's `calculatePostConfigChangeNodeDisruptionAction`). */
function rebootReasons(diff: ConfigDiff, force: boolean): string[] {
  const reasons: string[] = [];
  if (force) reasons.push('the force file is present');
  if (diff.osUpdate) reasons.push('OS image changed');
  if (diff.kargs) reasons.push('kernel arguments changed');
  if (diff.fips) reasons.push('FIPS changed');
  if (diff.kernelType) reasons.push('kernel type changed');
  if (diff.extensions) reasons.push('extensions changed');
  return reasons;
}

/** The policy of `path` itself or of the deepest directory above it that has one. */
function closestFilePolicy(path: string, policy: DisruptionPolicy): readonly DisruptionAction[] | undefined {
  let best: { length: number; actions: readonly DisruptionAction[] } | undefined;
  for (const p of policy.files) {
    const dir = p.path.replace(/\/+$/, '');
    if (path !== dir && !path.startsWith(`${dir}/`)) continue;
    if (!best || dir.length > best.length) best = { length: dir.length, actions: p.actions };
  }
  return best?.actions;
}
