/**
 * The kubelet's flags from its systemd unit, `<node root>/etc/systemd/system/kubelet.service`,
 * as the Machine Config Operator writes it (`01-<role>-kubelet`): the node's labels
 * (`--node-labels`) and the taints it registers with (`--register-with-taints`). So a node's
 * role comes from what the machine booted from, not from its name, as in OpenShift.
 *
 * Flags are read as kube's flag library reads them: `--flag=value` or `--flag value`, a
 * repeated map flag adding to the earlier ones, `--` ending the flags. A label without `=` has
 * the empty value (OpenShift's `node-role.kubernetes.io/worker`); a taint is
 * `key[=value]:effect`. Invalid entries are left out and reported, so one bad label does not
 * cost the node its role.
 */
import type { V1Taint } from '@kubernetes/client-node';
import { isQualifiedName, isValidLabelValue } from '../../api/names.ts';
import { serviceCommand } from './systemd-unit.ts';

export const kubeletUnitName = 'kubelet.service';

export interface KubeletUnitFlags {
  /** `found`: the unit was read; `missing` or `masked`: there is none to read. */
  readonly state: 'found' | 'missing' | 'masked';
  /** The unit's path, or the files (unit and drop-ins) its command came from. */
  readonly files: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly V1Taint[];
  /** What was left out, and why. */
  readonly problems: readonly string[];
}

/** Every value given to `--<name>`, in order. */
export function flagValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  const long = `--${name}`;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === long) {
      const next = argv[i + 1];
      if (next !== undefined) {
        values.push(next);
        i++;
      }
    } else if (a.startsWith(`${long}=`)) values.push(a.slice(long.length + 1));
  }
  return values;
}

export function parseNodeLabels(values: readonly string[]): { labels: Record<string, string>; problems: string[] } {
  const labels: Record<string, string> = {};
  const problems: string[] = [];
  for (const value of values) {
    for (const pair of value.split(',')) {
      if (pair.trim() === '') continue;
      const eq = pair.indexOf('=');
      const key = (eq < 0 ? pair : pair.slice(0, eq)).trim();
      const v = eq < 0 ? '' : pair.slice(eq + 1).trim();
      const errs = [...isQualifiedName(key).map((m) => `key: ${m}`), ...isValidLabelValue(v).map((m) => `value: ${m}`)];
      if (errs.length) problems.push(`--node-labels: invalid label ${JSON.stringify(pair.trim())}: ${errs.join('; ')}`);
      else labels[key] = v;
    }
  }
  return { labels, problems };
}

const effects = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

export function parseTaints(values: readonly string[]): { taints: V1Taint[]; problems: string[] } {
  const taints: V1Taint[] = [];
  const problems: string[] = [];
  for (const value of values) {
    for (const spec of value.split(',')) {
      const s = spec.trim();
      if (s === '') continue;
      const colon = s.lastIndexOf(':');
      if (colon < 0) {
        problems.push(`--register-with-taints: invalid taint spec: ${s}`);
        continue;
      }
      const effect = s.slice(colon + 1);
      const kv = s.slice(0, colon);
      const eq = kv.indexOf('=');
      const key = eq < 0 ? kv : kv.slice(0, eq);
      const taintValue = eq < 0 ? '' : kv.slice(eq + 1);
      const errs = [...isQualifiedName(key).map((m) => `key: ${m}`), ...isValidLabelValue(taintValue).map((m) => `value: ${m}`)];
      if (!effects.has(effect)) errs.push(`invalid taint effect: ${effect}, unsupported taint effect`);
      if (errs.length) {
        problems.push(`--register-with-taints: invalid taint spec ${JSON.stringify(s)}: ${errs.join('; ')}`);
        continue;
      }
      // A repeated key and effect: the last one counts, as a Node may hold each pair once.
      const at = taints.findIndex((t) => t.key === key && t.effect === effect);
      const taint: V1Taint = { key, effect, ...(taintValue ? { value: taintValue } : {}) };
      if (at >= 0) taints[at] = taint;
      else taints.push(taint);
    }
  }
  return { taints, problems };
}

/** The labels and registration taints the kubelet unit of node root `root` gives its kubelet. */
export function readKubeletUnit(root: string): KubeletUnitFlags {
  let lookup;
  try {
    lookup = serviceCommand(root, kubeletUnitName);
  } catch (err) {
    return { state: 'found', files: [], labels: {}, taints: [], problems: [(err as Error).message] };
  }
  if (lookup.state !== 'found') return { state: lookup.state, files: [lookup.path], labels: {}, taints: [], problems: [] };
  const { argv, files } = lookup.command;
  const labels = parseNodeLabels(flagValues(argv, 'node-labels'));
  const taints = parseTaints(flagValues(argv, 'register-with-taints'));
  return { state: 'found', files, labels: labels.labels, taints: taints.taints, problems: [...labels.problems, ...taints.problems] };
}
