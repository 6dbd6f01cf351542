/**
 * The ClusterVersion status the CVO reports, computed from what the last pass found. Pure:
 * the operator passes the previous status and the facts, and writes what comes back only
 * when it differs. Wording follows the CVO's, so what admins search for still matches.
 * Conditions and history follow the API's rules (src/api/config): transition times move only on
 * a status flip; history is newest first, pruned as the CVO prunes it.
 */
import { recordHistory, setCondition, type ClusterOperatorStatusCondition, type ClusterVersionStatus as ApiClusterVersionStatus, type UpdateHistory } from '../../api/config/index.ts';
import type { ManifestFailure, SyncResult } from './sync-worker.ts';

export interface Release {
  readonly version: string;
  readonly image: string;
}

export type Condition = ClusterOperatorStatusCondition;
export type HistoryEntry = UpdateHistory;
export type ClusterVersionStatus = ApiClusterVersionStatus;

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export type SyncState = 'Initializing' | 'Updating' | 'Reconciling';

/** What the CVO is doing: installing (nothing completed yet), updating to a new release, or keeping one. */
export function syncState(history: readonly HistoryEntry[] | undefined, desired: Release): SyncState {
  const completed = history?.find((h) => h.state === 'Completed');
  if (!completed) return 'Initializing';
  const head = history![0]!;
  return head.state === 'Completed' && head.image === desired.image && head.version === desired.version ? 'Reconciling' : 'Updating';
}

export interface StatusInput {
  readonly previous: Partial<ClusterVersionStatus>;
  readonly desired: Release;
  readonly generation: number | undefined;
  readonly versionHash: string;
  readonly state: SyncState;
  /** The latest pass, or undefined when none has finished or reported progress yet. */
  readonly result?: SyncResult;
  /** A desired release refused by a precondition: the current one is reconciled instead. */
  readonly refused?: { readonly release: Release; readonly reason: string; readonly message: string };
  /** A payload that could not be loaded: ReleaseAccepted=False and nothing applied. */
  readonly payloadError?: string;
  readonly overridesSet: boolean;
  /** What the unmanaged overrides name (`Deployment ns/name`), shown with the version so `kubectl get clusterversion` tells. */
  readonly unmanaged?: readonly string[];
  /** ClusterOperators reporting Upgradeable=False, with their messages. */
  readonly notUpgradeable: readonly { name: string; message: string }[];
  readonly channel: string | undefined;
  readonly now: string;
}

function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.floor((done * 100) / total);
}

/** One line per failure, as `oc adm upgrade` shows it: what, where, and the API server's words. */
export function describeFailure(f: ManifestFailure): string {
  const m = f.manifest;
  const what = `${m.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`;
  return `${f.message} (${what} from ${m.file}${m.index > 0 ? ` document ${m.index + 1}` : ''})`;
}

/** The CVO condenses failures of one reason into one message ("Cluster operators a, b are degraded"). */
export function summarizeFailures(failures: readonly ManifestFailure[]): { reason: string; message: string } | undefined {
  if (failures.length === 0) return undefined;
  if (failures.length === 1) return { reason: failures[0]!.reason, message: describeFailure(failures[0]!) };
  const reasons = new Set(failures.map((f) => f.reason));
  const reason = reasons.size === 1 ? failures[0]!.reason : 'MultipleErrors';
  return { reason, message: `Multiple errors are preventing progress:\n${failures.map((f) => `* ${describeFailure(f)}`).join('\n')}` };
}

function unmanagedNote(unmanaged: readonly string[] | undefined): string {
  if (!unmanaged?.length) return '';
  return `; not managed (overrides): ${unmanaged.join(', ')}`;
}

export function computeStatus(input: StatusInput): ClusterVersionStatus {
  const { previous, desired, now, result } = input;
  let conditions: Condition[] = [...(previous.conditions ?? [])];
  const set = (c: Omit<Condition, 'lastTransitionTime'>): void => {
    conditions = setCondition(conditions, c, now);
  };
  const completed = !!result && !result.aborted && result.failures.length === 0 && result.done === result.total;
  const history = input.payloadError ? [...(previous.history ?? [])] : recordHistory(previous.history, desired, { completed, now });
  const everCompleted = history.some((h) => h.state === 'Completed');

  if (input.refused) {
    const r = input.refused;
    set({ type: 'ReleaseAccepted', status: 'False', reason: 'PreconditionChecks', message: `Preconditions failed for payload loaded version="${r.release.version}" image="${r.release.image}": Precondition "ClusterVersionUpgradeable" failed because of "${r.reason}": ${r.message}` });
  } else if (input.payloadError) {
    set({ type: 'ReleaseAccepted', status: 'False', reason: 'RetrievePayload', message: `Retrieving payload failed version="${desired.version}" image="${desired.image}" failure=${input.payloadError}` });
  } else {
    set({ type: 'ReleaseAccepted', status: 'True', reason: 'PayloadLoaded', message: `Payload loaded version="${desired.version}" image="${desired.image}" architecture="amd64"` });
  }

  // Available: once the cluster has been completely applied at least once, it stays so.
  if (everCompleted) set({ type: 'Available', status: 'True', reason: '', message: `Done applying ${history.find((h) => h.state === 'Completed')!.version}` });
  else set({ type: 'Available', status: 'False', reason: '', message: '' });

  const summary = result ? summarizeFailures(result.failures.filter((f) => !f.waiting)) : undefined;
  const waiting = result ? summarizeFailures(result.failures.filter((f) => f.waiting)) : undefined;
  if (input.payloadError) {
    set({ type: 'Failing', status: 'True', reason: 'RetrievePayload', message: input.payloadError });
  } else if (summary) {
    set({ type: 'Failing', status: 'True', reason: summary.reason, message: summary.message });
  } else if (result) {
    set({ type: 'Failing', status: 'False', reason: '', message: '' });
  }

  if (input.payloadError) {
    set({ type: 'Progressing', status: 'False', reason: 'RetrievePayload', message: `Unable to apply ${desired.version}: the release image could not be loaded: ${input.payloadError}` });
  } else if (completed) {
    set({ type: 'Progressing', status: 'False', reason: '', message: `Cluster version is ${desired.version}${unmanagedNote(input.unmanaged)}` });
  } else if (input.state === 'Reconciling' && summary) {
    set({ type: 'Progressing', status: 'False', reason: summary.reason, message: `Error while reconciling ${desired.version}: ${summary.message}` });
  } else if (input.state === 'Reconciling') {
    set({ type: 'Progressing', status: 'False', reason: '', message: `Cluster version is ${desired.version}${unmanagedNote(input.unmanaged)}` });
  } else if (summary) {
    set({ type: 'Progressing', status: 'True', reason: summary.reason, message: `Unable to apply ${desired.version}: ${summary.message}` });
  } else {
    const done = result?.done ?? 0;
    const total = result?.total ?? 0;
    const tail = waiting ? `: ${waiting.message}` : '';
    set({ type: 'Progressing', status: 'True', reason: '', message: `Working towards ${desired.version}: ${done} of ${total} done (${percent(done, total)}% complete)${tail}` });
  }

  if (input.overridesSet) {
    set({ type: 'Upgradeable', status: 'False', reason: 'ClusterVersionOverridesSet', message: 'Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.' });
  } else if (input.notUpgradeable.length) {
    const names = input.notUpgradeable.map((o) => o.name);
    set({
      type: 'Upgradeable',
      status: 'False',
      reason: input.notUpgradeable.length === 1 ? 'ClusterOperatorNotUpgradeable' : 'ClusterOperatorsNotUpgradeable',
      message: input.notUpgradeable.length === 1 ? `Cluster operator ${names[0]} should not be upgraded between minor versions: ${input.notUpgradeable[0]!.message}` : `Multiple cluster operators should not be upgraded between minor versions: ${names.join(', ')}`,
    });
  } else {
    set({ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: '' });
  }

  if (!input.channel) set({ type: 'RetrievedUpdates', status: 'False', reason: 'NoChannel', message: 'The update channel has not been configured.' });
  else set({ type: 'RetrievedUpdates', status: 'False', reason: 'NoUpstream', message: 'No upstream server has been set to retrieve updates: updates are the release images in the local image store.' });

  const order = ['Available', 'Failing', 'Progressing', 'RetrievedUpdates', 'Upgradeable', 'ReleaseAccepted'];
  const rank = (type: string): number => (order.includes(type) ? order.indexOf(type) : order.length);
  conditions.sort((a, b) => rank(a.type) - rank(b.type));
  return {
    ...previous,
    desired: { version: desired.version, image: desired.image, ...(input.channel ? { channels: [input.channel] } : {}) },
    history,
    observedGeneration: input.generation ?? 0,
    versionHash: input.versionHash,
    conditions,
    availableUpdates: previous.availableUpdates ?? null,
  };
}
