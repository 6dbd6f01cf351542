/**
 * The MachineSet controller (OpenShift's machineset-controller): keeps `spec.replicas` Machines
 * of each MachineSet, adopting matching orphans, creating Machines from the template and, when
 * there are too many, deleting by `deletePolicy` (delete-policy.ts); then writes the counts
 * (status.ts). Reconciles are keyed by MachineSet. Machine events map to the MachineSet that
 * controls the Machine, or for an orphan to every MachineSet of its namespace that selects it;
 * Node events (readiness) map through the Machines linked to the Node.
 *
 * Expectations (runtime/expectations.ts), as kube's ReplicaSet controller keeps them, replace
 * upstream's 10-second poll of its cache after each batch: until the cache has shown every
 * Machine this controller created or deleted, it does not count again, so a lagging cache never
 * makes it create the same replicas twice.
 *
 * What it costs while Machines come and go in hundreds: an update of a Machine it controls
 * brings the set back only when it changes what the set counts (labels, the Node it links to),
 * not for each phase, providerID or condition written on the way (some eight per Machine); and
 * a status write starts from the set as this controller last wrote it while the cache still
 * shows a version older than that write, not from the cache (a conflict, a read and a second
 * write otherwise, as the next burst of events comes before the cache has caught up).
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Machine, MachineSet } from '../../../api/machine/index.ts';
import { errorText } from '../../../api/status.ts';
import { NAMESPACE_INDEX, objectKey, type IndexFunc } from '../../../runtime/cache.ts';
import { ApiError, isNotFound, type ApiClient } from '../../../runtime/client.ts';
import type { ControllerContext, EventSink } from '../../../runtime/context.ts';
import { Controller, controllerOf, logSyncFailure } from '../../../runtime/controller.ts';
import { Expectations } from '../../../runtime/expectations.ts';
import type { Informer } from '../../../runtime/informer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { terminal, type ReconcileResult } from '../../../runtime/reconcile-loop.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { isDeletePolicy, machinesToDelete } from './delete-policy.ts';
import { checkSelector, controllerRefTo, countMachines, machineFromTemplate, type MachineSetView, type MachineView } from './machines.ts';
import { machineSetStatus, readyCondition, type MachineSetCounts, type Node } from './status.ts';

export const MACHINES = refOf(Machine);
export const MACHINE_SETS = refOf(MachineSet);

export interface MachineSetControllerOptions {
  /** Only MachineSets and Machines of this namespace (the component's `--namespace`); every namespace when undefined. */
  readonly namespace?: string;
  /** Concurrent reconciles (distinct MachineSets); default 1, as upstream. */
  readonly workers?: number;
  /** Most Machines created or deleted in one pass; default 500, as kube's burstReplicas. */
  readonly burstReplicas?: number;
  /** How long to wait for the cache to show this controller's own writes before counting again anyway; default 5 min. */
  readonly expectationsTtlMs?: number;
}

const NAME = 'machineset';
/** Index names are this controller's own: an informer refuses one name with two functions. */
const OWNER_INDEX = 'machineset.controller-uid';
const ORPHAN_INDEX = 'machineset.orphans';
const NODE_INDEX = 'machineset.node';

const byControllerUid: IndexFunc<Machine> = (m) => {
  const ref = controllerOf(m);
  return ref?.uid ? [ref.uid] : [];
};
const orphansByNamespace: IndexFunc<Machine> = (m) => (!controllerOf(m) && m.metadata?.namespace ? [m.metadata.namespace] : []);
const byNodeName: IndexFunc<Machine> = (m) => (m.status?.nodeRef?.name ? [m.status.nodeRef.name] : []);

/** What a Machine update must change to matter to the set that controls it: what status.ts counts. */
const countedOf = (m: MachineView): string => JSON.stringify([m.metadata?.labels ?? {}, m.status?.nodeRef?.name ?? '']);

/** What a Node event must change to matter here: whether it is Ready, and since when. */
const readinessOf = (node: Node): string => {
  const c = readyCondition(node);
  return `${c?.status ?? ''}@${String(c?.lastTransitionTime ?? '')}`;
};

export function createMachineSetController(ctx: ControllerContext, options: MachineSetControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const scope = options.namespace ? { namespace: options.namespace } : {};
  const machineSets = ctx.informers.informer<MachineSet>(MACHINE_SETS, scope);
  const machines = ctx.informers.informer<Machine>(MACHINES, scope);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  machines.addIndexer(OWNER_INDEX, byControllerUid);
  machines.addIndexer(ORPHAN_INDEX, orphansByNamespace);
  machines.addIndexer(NODE_INDEX, byNodeName);
  const expectations = new Expectations({ clock: ctx.clock, ttlMs: options.expectationsTtlMs });

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 1,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    // A conflict only means the cache was behind; the retry reads the newer object.
    onError: logSyncFailure(logger, 'sync failed'),
    reconcile: makeMachineSetReconcile({
      client: ctx.client,
      recorder: ctx.recorder,
      logger,
      machineSets,
      machines,
      nodes,
      expectations,
      burstReplicas: options.burstReplicas ?? 500,
      expectationsTtlMs: options.expectationsTtlMs ?? 5 * 60_000,
      now: () => ctx.clock.wallNow(),
    }),
  });
  controller.watch(machineSets);

  /** The key of the MachineSet controlling `m`, when the cache holds that very MachineSet. */
  const ownerKey = (m: MachineView): string | undefined => {
    const ref = controllerOf(m);
    if (!ref || ref.kind !== MachineSet.kind) return undefined;
    const key = `${m.metadata?.namespace ?? ''}/${ref.name}`;
    return machineSets.store.get(key)?.metadata?.uid === ref.uid ? key : undefined;
  };
  const selectingSets = (m: MachineView): string[] =>
    machineSets.store
      .byIndex(NAMESPACE_INDEX, m.metadata?.namespace ?? '')
      .filter((ms) => {
        const check = checkSelector(ms);
        return check.ok && check.matches(m.metadata?.labels);
      })
      .map(objectKey);
  const gone = (m: MachineView): void => {
    const key = ownerKey(m);
    if (!key) return;
    expectations.deletionObserved(key, objectKey(m));
    controller.enqueue(key);
  };

  machines.on('add', (m) => {
    // Already being deleted when first seen (after a restart, say): it only matters as a deletion.
    if (m.metadata?.deletionTimestamp) return gone(m);
    const key = ownerKey(m);
    if (key) {
      expectations.creationObserved(key);
      controller.enqueue(key);
    } else if (!controllerOf(m)) {
      for (const k of selectingSets(m)) controller.enqueue(k);
    }
  });
  machines.on('update', (m, old) => {
    if (m.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    if (m.metadata?.deletionTimestamp) return gone(m);
    const cur = controllerOf(m);
    const prev = controllerOf(old);
    if (prev && prev.uid !== cur?.uid) {
      const oldKey = ownerKey(old);
      if (oldKey) controller.enqueue(oldKey);
    }
    if (cur) {
      const key = ownerKey(m);
      if (key && (prev?.uid !== cur.uid || countedOf(m) !== countedOf(old))) controller.enqueue(key);
      return;
    }
    const labelsChanged = JSON.stringify(m.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (labelsChanged || prev) for (const k of selectingSets(m)) controller.enqueue(k);
  });
  machines.on('delete', gone);

  const setsOfNode = (node: Node): void => {
    for (const m of machines.store.byIndex(NODE_INDEX, node.metadata?.name ?? '')) {
      const key = ownerKey(m);
      if (key) controller.enqueue(key);
    }
  };
  nodes.on('add', setsOfNode);
  nodes.on('update', (node, old) => {
    if (readinessOf(node) !== readinessOf(old)) setsOfNode(node);
  });
  nodes.on('delete', setsOfNode);
  return controller;
}

export interface MachineSetReconcileDeps {
  readonly client: ApiClient;
  readonly recorder: EventSink;
  readonly logger: Logger;
  readonly machineSets: Informer<MachineSet>;
  readonly machines: Informer<Machine>;
  readonly nodes: Informer<V1Node>;
  readonly expectations: Expectations;
  readonly burstReplicas: number;
  readonly expectationsTtlMs: number;
  /** Wall clock in ms: Machine ages, Node readiness times. */
  readonly now: () => number;
}

/** Ownership races lost to someone else: the Machine is gone (404), changed (409) or its new owner refused ours (422). */
const lostRace = (err: unknown): boolean => err instanceof ApiError && (err.code === 404 || err.code === 409 || err.code === 422);

/** An Event's subject: list items in a cache carry no kind or apiVersion, and `kubectl describe` finds Events by kind. */
function subject(ms: MachineSetView) {
  const m = ms.metadata ?? {};
  return { apiVersion: MachineSet.apiVersion, kind: MachineSet.kind, metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion } };
}

function makeMachineSetReconcile(deps: MachineSetReconcileDeps): (key: string) => Promise<ReconcileResult> {
  const { client, logger, expectations } = deps;
  const recorder = { event: (ms: MachineSetView, type: 'Normal' | 'Warning', reason: string, message: string) => deps.recorder.event(subject(ms), type, reason, message) };

  /**
   * Appends the set's controller reference to each orphan, on the resourceVersion it was seen
   * at; returns the ones that could not be adopted (they are not counted) and the first error
   * that was not a lost race. Before the first write the set is read back from the server: a
   * stale cache must not let a deleted set grab Machines (kube's RecheckDeletionTimestamp).
   */
  async function adopt(ms: MachineSetView, orphans: readonly MachineView[]): Promise<{ failed: Set<MachineView>; error?: unknown }> {
    const failed = new Set<MachineView>();
    if (orphans.length === 0) return { failed };
    const fresh = await client.get<MachineSet>(MACHINE_SETS, ms.metadata?.namespace, ms.metadata?.name ?? '');
    if (fresh.metadata?.uid !== ms.metadata?.uid || fresh.metadata?.deletionTimestamp) return { failed: new Set(orphans) };
    const ref = controllerRefTo(ms);
    let error: unknown;
    for (const m of orphans) {
      const patch = { metadata: { resourceVersion: m.metadata?.resourceVersion, ownerReferences: [...(m.metadata?.ownerReferences ?? []), ref] } };
      try {
        await client.patch(MACHINES, m.metadata?.namespace, m.metadata?.name ?? '', patch, { type: 'merge' });
        logger.info({ machineSet: objectKey(ms), machine: m.metadata?.name }, 'adopted machine');
      } catch (err) {
        failed.add(m);
        if (!lostRace(err)) error ??= err;
        logger.warn({ machineSet: objectKey(ms), machine: m.metadata?.name, err: errorText(err) }, 'failed to adopt machine');
      }
    }
    return { failed, error };
  }

  async function create(ms: MachineSetView, key: string, count: number): Promise<void> {
    const n = Math.min(count, deps.burstReplicas);
    logger.info({ machineSet: key, replicas: ms.spec?.replicas, creating: n }, 'too few replicas');
    expectations.expect(key, { creates: n });
    const results = await Promise.allSettled(Array.from({ length: n }, () => client.create<Machine>(MACHINES, machineFromTemplate(ms))));
    const errors: string[] = [];
    for (const r of results) {
      if (r.status === 'fulfilled') {
        recorder.event(ms, 'Normal', 'SuccessfulCreate', `Created machine "${r.value.metadata?.name ?? ''}"`);
      } else {
        errors.push(errorText(r.reason));
        recorder.event(ms, 'Warning', 'FailedCreate', `Failed to create machine: ${errorText(r.reason)}`);
      }
    }
    if (errors.length === 0) return;
    // Failed creates will never show up in the cache.
    expectations.creationObserved(key, errors.length);
    throw new Error(errors.join('; '));
  }

  async function remove(ms: MachineSetView, key: string, counted: readonly MachineView[], count: number): Promise<void> {
    const policy = ms.spec?.deletePolicy as unknown;
    if (!isDeletePolicy(policy)) throw terminal(new Error(`Unsupported delete policy ${String(policy)}. Must be one of 'Random', 'Newest', or 'Oldest'`));
    const victims = machinesToDelete(counted, Math.min(count, deps.burstReplicas), policy, deps.now());
    logger.info({ machineSet: key, replicas: ms.spec?.replicas, deleting: victims.map((m) => m.metadata?.name), policy: policy || 'Random' }, 'too many replicas');
    expectations.expect(key, { deletes: victims.map(objectKey) });
    const results = await Promise.allSettled(
      victims.map(async (m) => {
        const name = m.metadata?.name ?? '';
        try {
          await client.delete(MACHINES, m.metadata?.namespace, name, { preconditions: { uid: m.metadata?.uid } });
          recorder.event(ms, 'Normal', 'SuccessfulDelete', `Deleted machine "${name}"`);
        } catch (err) {
          // Not deleted by this call: no event of ours to wait for (a 404's own event is not counted twice).
          expectations.deletionObserved(key, objectKey(m));
          if (isNotFound(err)) return;
          recorder.event(ms, 'Warning', 'FailedDelete', `Failed to delete machine "${name}": ${errorText(err)}`);
          throw err;
        }
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Each set as this controller last wrote its status, and the versions known to be older: every
   * one that write or an earlier one in the same run started from (see the header).
   */
  const ownWrites = new Map<string, { readonly older: ReadonlySet<string | undefined>; readonly written: MachineSetView }>();
  /** The set as cached, or as last written while the cache shows an older version. */
  const freshest = (key: string, cached: MachineSetView): MachineSetView => {
    const own = ownWrites.get(key);
    if (own?.older.has(cached.metadata?.resourceVersion)) return own.written;
    ownWrites.delete(key);
    return cached;
  };
  const wrote = (key: string, from: readonly MachineSetView[], written: MachineSetView): void => {
    const older = new Set(ownWrites.get(key)?.older);
    for (const o of from) older.add(o.metadata?.resourceVersion);
    ownWrites.set(key, { older, written });
  };

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const cached = deps.machineSets.store.get(key);
    if (!cached) {
      expectations.forget(key);
      ownWrites.delete(key);
      return;
    }
    const ms = freshest(key, cached);
    // Being deleted (foreground deletion, say): the garbage collector takes its Machines.
    if (ms.metadata?.deletionTimestamp) return;
    const check = checkSelector(ms);
    if (!check.ok) {
      recorder.event(ms, 'Warning', 'ReconcileError', check.message);
      throw terminal(new Error(check.message));
    }
    const replicas = ms.spec?.replicas;
    if (typeof replicas !== 'number') {
      const message = `the Replicas field in Spec for machineset ${ms.metadata?.name ?? ''} is nil, this should not be allowed`;
      recorder.event(ms, 'Warning', 'ReconcileError', message);
      throw terminal(new Error(message));
    }
    const needsSync = expectations.satisfied(key);
    const uid = ms.metadata?.uid ?? '';
    const candidates = [...deps.machines.store.byIndex(OWNER_INDEX, uid), ...deps.machines.store.byIndex(ORPHAN_INDEX, ms.metadata?.namespace ?? '')];
    const { counted, adopt: orphans } = countMachines(ms, check.matches, candidates);
    const adopted = await adopt(ms, orphans);
    const active = adopted.failed.size ? counted.filter((m) => !adopted.failed.has(m)) : counted;

    let manageError: unknown;
    if (needsSync) {
      try {
        const diff = active.length - replicas;
        if (diff < 0) await create(ms, key, -diff);
        else if (diff > 0) await remove(ms, key, active, diff);
      } catch (err) {
        manageError = err;
      }
    }
    const { status, nextAvailableInMs } = machineSetStatus(ms, active, (name) => deps.nodes.store.get(name), deps.now());
    const written = await updateStatus<MachineSetCounts>(deps.client, statusTargetOf(MACHINE_SETS, ms), (s) => ({ ...s, ...status }));
    if (written.changed && written.object) wrote(key, [cached, ms], written.object as MachineSetView);
    if (manageError !== undefined) throw manageError;
    if (adopted.error !== undefined) throw adopted.error;
    // Still waiting for our own writes to show: should an event have been lost, the expectations
    // lapse after their TTL, and nothing else would bring this set back then.
    const waits = [needsSync ? undefined : deps.expectationsTtlMs, nextAvailableInMs].filter((w): w is number => w !== undefined);
    if (waits.length) return { requeueAfterMs: Math.min(...waits) };
  };
}
