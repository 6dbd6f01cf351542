/**
 * The daemon's next step, decided from what it can observe and nothing it remembers: the node's
 * annotations and bootID, and what the node root holds (the config on disk, the update journal,
 * a pending reboot request, the force file). That is what makes it level-triggered: a daemon
 * started afresh — after a crash, a kill, a reboot — computes the same step its predecessor
 * would have, so it resumes where that one stopped.
 *
 * The order matters:
 * 1. a reboot request still on disk: the node is about to reboot; nothing to do but wait;
 * 2. a journal `rebooting` from this very boot: the files are written and the reboot has not
 *    happened (the request was never written, or the node has not yet said it rebooted);
 * 3. a journal `applying`: files were being written; finish that write, whatever the node is
 *    now asked for, since it is the config those files belong to;
 * 4. otherwise the config on disk (or, failing that, the `currentConfig` annotation) is the
 *    node's current config: equal to the desired one, the daemon finishes or checks it
 *    (validate, uncordon, Done); different, or the force file asks for it, it updates.
 */
import { nodeAnnotations } from '../../../api/machineconfiguration/index.ts';
import type { UpdatePhase } from './node-files.ts';

export interface Observed {
  /** The Node's annotations. */
  readonly annotations: Readonly<Record<string, string | undefined>>;
  /** The node's bootID as the Node reports it. */
  readonly bootID: string;
  /** The name of the config on disk (`currentconfig`), when there is one. */
  readonly diskConfig?: string;
  readonly journal?: { readonly phase: UpdatePhase; readonly from: string; readonly to: string; readonly bootID?: string };
  /** A reboot request is waiting for the kubelet. */
  readonly rebootRequested: boolean;
  readonly force: boolean;
  /** The config server's first annotations are in the node root. */
  readonly initialAnnotations: boolean;
}

export type Step =
  | { readonly kind: 'await-reboot' }
  | { readonly kind: 'reboot-not-seen'; readonly config: string }
  | { readonly kind: 'resume-apply'; readonly from: string; readonly to: string }
  | { readonly kind: 'adopt-initial-annotations' }
  | { readonly kind: 'unknown-current'; readonly desired?: string }
  | { readonly kind: 'finish'; readonly config: string }
  | { readonly kind: 'update'; readonly from: string; readonly to: string; readonly force: boolean };

export function nextStep(o: Observed): Step {
  if (o.rebootRequested) return { kind: 'await-reboot' };
  const j = o.journal;
  if (j?.phase === 'rebooting' && j.bootID === o.bootID) return { kind: 'reboot-not-seen', config: j.to };
  if (j?.phase === 'applying') return { kind: 'resume-apply', from: j.from, to: j.to };
  const annotated = o.annotations[nodeAnnotations.currentConfig] || undefined;
  const desiredAnnotation = o.annotations[nodeAnnotations.desiredConfig] || undefined;
  const current = o.diskConfig ?? annotated;
  if (!current) {
    if (o.initialAnnotations) return { kind: 'adopt-initial-annotations' };
    return { kind: 'unknown-current', desired: desiredAnnotation };
  }
  const desired = desiredAnnotation ?? current;
  if (current === desired && !o.force) return { kind: 'finish', config: current };
  return { kind: 'update', from: current, to: desired, force: o.force };
}
