/**
 * The daemon's work on its node, one step per sync (plan.ts says which), as the MCO's daemon
 * does it (`pkg/daemon/update.go`, `daemon.go`), with its log lines:
 *
 * - update A → B: `Checking Reconcilable for config A to B` (refused: Unreconcilable, event
 *   `FailedToReconcile`); the on-disk state checked against A (unless the force file says
 *   write anyway); state Working; `Starting update from A to B: &{... files:true ...}`; cordon
 *   and drain when the change disrupts (`Update prepared; beginning drain`, the drain helper's
 *   own lines); the files written (noderoot's `applyUpdate`); then either a reboot request to
 *   the node's kubelet, or at once the finish below;
 * - finish B (after the reboot, or straight after a change that needs none, or in steady
 *   state): the on-disk state validated against B (a mismatch is Degraded
 *   `unexpected on-disk state validating against B: ...`), B recorded as the node's current
 *   config on disk, the node uncordoned if this update cordoned it, and the annotations
 *   `currentConfig=B`, `state=Done`, `reason=""`.
 *
 * Any failure is `state=Degraded` with the error as reason (`Marking Degraded due to: ...`) and
 * is retried by the work queue; a drain blocked by a PodDisruptionBudget names the node, the
 * pod and the budget (runtime/drain.ts). Each step that changes something is recorded in the
 * node root first (node-files.ts), so a daemon stopped between any two resumes correctly.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { nodeAnnotations, type MachineConfig } from '../../../api/machineconfiguration/index.ts';
import {
  applyUpdate,
  disruption,
  formatDiff,
  fromMachineConfig,
  reconcilable,
  unexpectedOnDiskState,
  validateOnDisk,
  type DisruptionAction,
  type UpdateResult,
} from '../../../noderoot/index.ts';
import { isNotFound, type ApiClient } from '../../../runtime/client.ts';
import type { Clock } from '../../../runtime/clock.ts';
import type { EventSink } from '../../../runtime/context.ts';
import { drainNode, uncordonNode, type DrainLog } from '../../../runtime/drain.ts';
import { readRebootRequest, requestNodeReboot } from '../../../runtime/node-reboot.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { resources } from '../../../runtime/resources.ts';
import type { DriftWatch } from './drift.ts';
import type { DaemonMetrics } from './metrics.ts';
import {
  forceFilePresent,
  readCurrentConfig,
  readInitialAnnotations,
  readJournal,
  removeForceFile,
  removeJournal,
  storedConfig,
  writeCurrentConfig,
  writeJournal,
  type StoredConfig,
  type UpdateJournal,
} from './node-files.ts';
import { nextStep, type Step } from './plan.ts';

type Node = DeepReadonly<V1Node>;

/**
 * The points between two recorded steps of an update, in order. A test seam (`onStep`) is
 * called at each, so a test can stop the daemon there as a kill would.
 */
export type UpdateCheckpoint = 'working' | 'draining' | 'drained' | 'applying' | 'applied' | 'current-config' | 'rebooting' | 'reboot-requested' | 'uncordoned' | 'done';

export interface UpdaterOptions {
  readonly nodeName: string;
  /** The node root, as a path on this host. */
  readonly root: string;
  readonly client: ApiClient;
  readonly recorder: EventSink;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics?: DaemonMetrics;
  readonly drainTimeoutMs: number;
  /**
   * After a reboot request vanished with no new bootID on the Node: how long the daemon waits
   * for the Node to report its new boot before it takes the request as never made and asks again.
   */
  readonly rebootSettleMs: number;
  /** The freshest Node known (the informer's, or the daemon's own last write if newer). */
  readonly node: () => Node | undefined;
  /** Called with every Node the server returns to a write of the daemon's. */
  readonly wrote: (node: V1Node) => void;
  readonly drift: DriftWatch;
  readonly onStep?: (step: UpdateCheckpoint, signal: AbortSignal) => Promise<void> | void;
}

/** The MCO's cap on the reason annotation. */
const MAX_REASON = 2000;

/** A drain given up because the node was retargeted while it ran: not a failure. */
class Superseded extends Error {}

export class Updater {
  private readonly o: UpdaterOptions;
  private readonly log: Logger;
  private readonly drainLog: DrainLog;
  /** The drain under way and the config it is for: a new desiredConfig aborts it. */
  private inFlight: { readonly to: string; readonly abort: AbortController } | undefined;
  /** Since when a `rebooting` journal has had no request on disk and no new bootID (reboot-not-seen). */
  private noRebootSince: number | undefined;
  private lastStep: Step['kind'] | undefined;

  constructor(o: UpdaterOptions) {
    this.o = o;
    this.log = o.logger.child({ src: 'update' });
    const drainLogger = o.logger.child({ src: 'drain' });
    this.drainLog = { info: (m) => drainLogger.info(m), error: (m) => drainLogger.error(m) };
  }

  /** The informer saw the Node change: a drain for a config no longer desired gives way. */
  nodeChanged(node: Node): void {
    const desired = node.metadata?.annotations?.[nodeAnnotations.desiredConfig];
    if (this.inFlight && desired && desired !== this.inFlight.to) this.inFlight.abort.abort(new Superseded(`node retargeted to ${desired}`));
  }

  /** One sync of the node; throws (after marking the node Degraded) for the queue to retry with backoff. */
  async sync(signal: AbortSignal): Promise<ReconcileResult> {
    const node = this.o.node();
    // The informer calls again once the Node exists.
    if (!node) return undefined;
    try {
      return await this.step(node, signal);
    } catch (err) {
      // Stopping: nothing more is written, as if the process had been killed here.
      if (signal.aborted) throw err;
      if (err instanceof Superseded) return undefined;
      // A server that cannot take the Degraded mark now gets it on the retry; the cause is what to report.
      await this.markDegraded((err as Error).message ?? String(err)).catch((markErr: unknown) => this.log.warn(`Could not mark the node Degraded: ${(markErr as Error).message}`));
      throw err;
    }
  }

  private async step(node: Node, signal: AbortSignal): Promise<ReconcileResult> {
    const root = this.o.root;
    const [journal, disk, force] = await Promise.all([readJournal(root), readCurrentConfig(root), forceFilePresent(root)]);
    const request = readRebootRequest(root);
    // Read only when nothing else says which config the node runs: it matters at first boot alone.
    const initial = disk || node.metadata?.annotations?.[nodeAnnotations.currentConfig] ? undefined : await readInitialAnnotations(root);
    const step = nextStep({
      annotations: node.metadata?.annotations ?? {},
      bootID: node.status?.nodeInfo?.bootID ?? '',
      diskConfig: disk?.metadata.name,
      journal: journal && { phase: journal.phase, from: journal.from.metadata.name, to: journal.to.metadata.name, bootID: journal.bootID },
      rebootRequested: request !== undefined,
      force,
      initialAnnotations: initial?.[nodeAnnotations.currentConfig] !== undefined,
    });
    const firstTime = step.kind !== this.lastStep;
    this.lastStep = step.kind;
    if (step.kind !== 'reboot-not-seen') this.noRebootSince = undefined;
    switch (step.kind) {
      case 'await-reboot':
        if (firstTime) this.log.info(`Waiting for the node to reboot (${request?.reason ?? ''})`);
        return { requeueAfterMs: 5000 };
      case 'reboot-not-seen':
        return this.rebootNotSeen(step.config, journal!);
      case 'resume-apply':
        this.log.info(`Resuming the update from ${step.from} to ${step.to}: its files were being written`);
        return this.applyAndFinish(node, journal!, signal);
      case 'adopt-initial-annotations':
        return this.adoptInitialAnnotations(node, initial!);
      case 'unknown-current':
        if (step.desired) throw new Error(`cannot tell which config node ${this.o.nodeName} runs: it has no ${nodeAnnotations.currentConfig} annotation, and neither /etc/machine-config-daemon/currentconfig nor /etc/machine-config-daemon/node-annotations.json is on disk`);
        if (firstTime) this.log.warn('The node has no current or desired config yet; waiting');
        return undefined;
      case 'finish':
        return this.finish(node, step.config, disk, journal, signal);
      case 'update':
        return this.update(node, step, disk, journal, signal);
    }
  }

  // ---- updating ----

  private async update(node: Node, step: Extract<Step, { kind: 'update' }>, disk: StoredConfig | undefined, journal: UpdateJournal | undefined, signal: AbortSignal): Promise<ReconcileResult> {
    const { from, to, force } = step;
    const fromConfig = await this.config(from, disk, journal);
    const toConfig = await this.config(to, disk, journal);
    const a = fromMachineConfig(fromConfig);
    const b = fromMachineConfig(toConfig);
    this.log.info(`Checking Reconcilable for config ${from} to ${to}`);
    const verdict = reconcilable(a, b);
    if (!verdict.ok) return this.markUnreconcilable(verdict.message);
    if (force) this.log.info(`Found the force file; skipping validation of the on-disk state against ${from}`);
    else {
      const mismatch = await validateOnDisk(this.o.root, a);
      if (mismatch) throw new Error(unexpectedOnDiskState(from, mismatch));
    }
    this.o.drift.stop();
    await this.setWorking(node);
    await this.checkpoint('working', signal);
    this.log.info(`Starting update from ${from} to ${to}: ${formatDiff(verdict.diff)}`);
    const d = disruption(verdict.diff, { force });
    let cordoned = journal?.cordoned ?? false;
    if (d.drain) {
      await writeJournal(this.o.root, { phase: 'draining', from: fromConfig, to: toConfig, cordoned: true });
      cordoned = true;
      await this.checkpoint('draining', signal);
      this.log.info('Update prepared; beginning drain');
      this.event('Normal', 'Drain', 'Draining node to update config.');
      await this.drain(to, signal);
      await this.checkpoint('drained', signal);
    } else {
      this.log.info('Update prepared; changes do not require drain, skipping');
    }
    for (const action of d.actions) if (action.type !== 'None' && action.type !== 'Reboot' && action.type !== 'Drain') this.log.info(`Post config change action ${describe(action)}: nothing to do on a Shipyard node`);
    const next: UpdateJournal = { phase: 'applying', from: fromConfig, to: toConfig, cordoned, reboot: d.reboot, rebootReason: d.reasons.join(', ') };
    await writeJournal(this.o.root, next);
    // Consumed once the update it asked for is recorded, as a reboot would empty /run.
    if (force) await removeForceFile(this.o.root);
    await this.checkpoint('applying', signal);
    return this.applyAndFinish(node, next, signal);
  }

  private async drain(to: string, signal: AbortSignal): Promise<void> {
    const superseded = new AbortController();
    this.inFlight = { to, abort: superseded };
    try {
      await drainNode(this.o.client, this.o.nodeName, { timeoutMs: this.o.drainTimeoutMs, clock: this.o.clock, signal: AbortSignal.any([signal, superseded.signal]), log: this.drainLog });
      this.o.metrics?.drainFailed(false);
      this.log.info('drain complete');
    } catch (err) {
      if (signal.aborted) throw err;
      if (superseded.signal.aborted) {
        this.log.info(`Drain stopped: ${(superseded.signal.reason as Error).message}`);
        throw superseded.signal.reason;
      }
      this.o.metrics?.drainFailed(true);
      this.log.info(`Draining failed with: ${(err as Error).message}, retrying`);
      throw err;
    } finally {
      this.inFlight = undefined;
    }
  }

  /** Writes the journal's target over its source, then reboots into it or finishes at once. */
  private async applyAndFinish(node: Node, j: UpdateJournal, signal: AbortSignal): Promise<ReconcileResult> {
    this.o.drift.stop();
    const to = j.to.metadata.name;
    const result = await applyUpdate(this.o.root, fromMachineConfig(j.from), fromMachineConfig(j.to));
    this.logApplied(result);
    await this.checkpoint('applied', signal);
    await writeCurrentConfig(this.o.root, j.to);
    await this.checkpoint('current-config', signal);
    if (!j.reboot) return this.finish(node, to, j.to, j, signal);
    // From the server, not the cache: the boot these files were written in is what the next boot is told apart from.
    const fresh = await this.o.client.get<V1Node>(resources.nodes, undefined, this.o.nodeName);
    this.o.wrote(fresh);
    await writeJournal(this.o.root, { ...j, phase: 'rebooting', bootID: fresh.status?.nodeInfo?.bootID ?? '' });
    await this.checkpoint('rebooting', signal);
    this.reboot(to, j.rebootReason);
    await this.checkpoint('reboot-requested', signal);
    return { requeueAfterMs: 5000 };
  }

  private logApplied(r: UpdateResult): void {
    for (const p of r.keptOriginals) this.log.info(`Kept the original of "${p}"`);
    for (const p of r.written) this.log.info(`Writing file "${p}"`);
    for (const p of r.restored) this.log.info(`Restored the original of "${p}"`);
    for (const p of r.removed) this.log.info(`Removed stale file "${p}"`);
    if (r.enabled.length) this.log.info(`Enabled systemd units: [${r.enabled.join(' ')}]`);
    if (r.disabled.length) this.log.info(`Disabled systemd units: [${r.disabled.join(' ')}]`);
    if (r.masked.length) this.log.info(`Masked systemd units: [${r.masked.join(' ')}]`);
    if (r.unmasked.length) this.log.info(`Unmasked systemd units: [${r.unmasked.join(' ')}]`);
    if (r.sshKeys) this.log.info('Writing SSH keys');
    if (r.kernelArguments) this.log.info('Updating kernel arguments');
    if (r.os) this.log.info('Updating the OS deployment');
    for (const s of r.skipped) this.log.warn(`Not applied on a node root: ${s}`);
  }

  private reboot(config: string, why: string | undefined): void {
    this.log.info(`Rebooting node into config ${config}${why ? ` (${why})` : ''}`);
    this.event('Normal', 'Reboot', `Node will reboot into config ${config}`);
    requestNodeReboot(this.o.root, `machine-config-daemon: update to ${config}${why ? `: ${why}` : ''}`);
    this.o.metrics?.rebootRequested();
  }

  /**
   * The files are written and a reboot is due, but the node has neither a request on disk nor a
   * new boot: the kubelet took the request and the Node does not show the new boot yet, or the
   * daemon stopped before writing it. Only the Node can tell, so it is asked for a while.
   */
  private async rebootNotSeen(config: string, j: UpdateJournal): Promise<ReconcileResult> {
    const fresh = await this.o.client.get<V1Node>(resources.nodes, undefined, this.o.nodeName);
    this.o.wrote(fresh);
    if ((fresh.status?.nodeInfo?.bootID ?? '') !== j.bootID) return { requeueAfterMs: 1 };
    const now = this.o.clock.now();
    this.noRebootSince ??= now;
    if (now - this.noRebootSince < this.o.rebootSettleMs) return { requeueAfterMs: 1000 };
    this.noRebootSince = undefined;
    this.log.info(`The node has not rebooted into ${config}; asking again`);
    this.reboot(config, j.rebootReason);
    return { requeueAfterMs: 5000 };
  }

  // ---- finishing and checking ----

  private async finish(node: Node, name: string, disk: StoredConfig | undefined, journal: UpdateJournal | undefined, signal: AbortSignal): Promise<ReconcileResult> {
    const stored = await this.config(name, disk, journal);
    const config = fromMachineConfig(stored);
    // Looked at before validating: an edit after this look is seen by the next poll, one before
    // it by the validation. The other way round, an edit between the two would be missed.
    await this.o.drift.watch(config);
    const mismatch = await validateOnDisk(this.o.root, config);
    if (mismatch) {
      if (isDoneAt(node, name)) {
        this.o.metrics?.drift(this.o.clock.wallNow());
        this.event('Warning', 'ConfigDriftDetected', `Config drift detected: ${mismatch}`);
      }
      throw new Error(unexpectedOnDiskState(name, mismatch));
    }
    this.o.metrics?.drift(undefined);
    if (disk?.metadata.name !== name) await writeCurrentConfig(this.o.root, stored);
    if (journal?.cordoned) {
      if (await uncordonNode(this.o.client, this.o.nodeName)) this.log.info('Node has been successfully uncordoned');
      await this.checkpoint('uncordoned', signal);
    }
    const completed = !isDoneAt(node, name);
    // Before Done, as upstream's completeUpdate logs it: whoever sees Done can find the line.
    if (completed) this.log.info(`Update completed for config ${name} and node has been successfully uncordoned`);
    await this.patchAnnotations({ [nodeAnnotations.currentConfig]: name, [nodeAnnotations.state]: 'Done', [nodeAnnotations.reason]: '' });
    // With the annotation, as upstream's node writer sets them, not after the clean-up below.
    this.o.metrics?.state('Done', '');
    this.o.metrics?.updateState(name, '');
    if (journal) await removeJournal(this.o.root);
    if (completed || journal) await this.checkpoint('done', signal);
    if (completed) this.log.info(`In desired config ${name}`);
    return undefined;
  }

  private async adoptInitialAnnotations(node: Node, initial: Record<string, string>): Promise<ReconcileResult> {
    const have = node.metadata?.annotations ?? {};
    const missing = Object.fromEntries(Object.entries(initial).filter(([k]) => !have[k]));
    this.log.info(`Setting initial node config: ${initial[nodeAnnotations.currentConfig]}`);
    await this.patchAnnotations(missing);
    return undefined;
  }

  /** The stored config called `name`: the copy on disk or in the journal when it is that one, else the cluster's. */
  private async config(name: string, disk: StoredConfig | undefined, journal: UpdateJournal | undefined): Promise<StoredConfig> {
    for (const c of [disk, journal?.to, journal?.from]) if (c?.metadata.name === name) return c;
    try {
      return storedConfig(await this.o.client.get<MachineConfig>(resources.machineConfigs, undefined, name));
    } catch (err) {
      if (isNotFound(err)) throw new Error(`could not find MachineConfig ${name}: machineconfigs.machineconfiguration.openshift.io "${name}" not found`, { cause: err });
      throw err;
    }
  }

  // ---- node state ----

  private async setWorking(node: Node): Promise<void> {
    // A Degraded node stays Degraded until it is Done: the pool must keep saying why it is stuck
    // while the daemon retries (the seed's drain). An Unreconcilable verdict was about another config.
    if (node.metadata?.annotations?.[nodeAnnotations.state] === 'Degraded') return;
    await this.patchAnnotations({ [nodeAnnotations.state]: 'Working', [nodeAnnotations.reason]: '' });
    this.o.metrics?.state('Working', '');
  }

  private async markDegraded(reason: string): Promise<void> {
    this.log.error(`Marking Degraded due to: ${reason}`);
    this.o.metrics?.state('Degraded', reason);
    this.o.metrics?.updateState(this.o.node()?.metadata?.annotations?.[nodeAnnotations.desiredConfig] ?? '', reason);
    await this.patchAnnotations({ [nodeAnnotations.state]: 'Degraded', [nodeAnnotations.reason]: capped(reason) });
  }

  private async markUnreconcilable(reason: string): Promise<ReconcileResult> {
    this.log.error(`Marking Unreconcilable due to: ${reason}`);
    this.o.metrics?.state('Unreconcilable', reason);
    const changed = await this.patchAnnotations({ [nodeAnnotations.state]: 'Unreconcilable', [nodeAnnotations.reason]: capped(reason) });
    if (changed) this.event('Warning', 'FailedToReconcile', reason);
    // Nothing changes until the node is given another config, which the informer reports.
    return undefined;
  }

  /** Merge-patches the annotations that differ; false when none did. */
  private async patchAnnotations(want: Record<string, string>): Promise<boolean> {
    const have = this.o.node()?.metadata?.annotations ?? {};
    const diff = Object.fromEntries(Object.entries(want).filter(([k, v]) => have[k] !== v));
    if (Object.keys(diff).length === 0) return false;
    const patched = await this.o.client.patch<V1Node>(resources.nodes, undefined, this.o.nodeName, { metadata: { annotations: diff } }, { type: 'merge' });
    this.o.wrote(patched);
    return true;
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    const node = this.o.node();
    this.o.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: this.o.nodeName, uid: node?.metadata?.uid } }, type, reason, message);
  }

  private async checkpoint(step: UpdateCheckpoint, signal: AbortSignal): Promise<void> {
    await this.o.onStep?.(step, signal);
    if (signal.aborted) throw signal.reason ?? new Error('stopped');
  }
}

function isDoneAt(node: Node, name: string): boolean {
  const a = node.metadata?.annotations ?? {};
  return a[nodeAnnotations.currentConfig] === name && a[nodeAnnotations.state] === 'Done';
}

function capped(reason: string): string {
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 3)}...` : reason;
}

function describe(a: DisruptionAction): string {
  return 'service' in a ? `${a.type} ${a.service}` : a.type;
}
