/**
 * The revision controller's decisions (issue 17, item 4; library-go's revisioncontroller), as
 * pure functions of what the cache holds: which revision is the latest ready one, and whether
 * the inputs still match that revision's `<name>-<latest>` copies — and if not, the reason
 * text upstream writes into `revision-status-N` and its events, so `kubectl get events` and
 * `revision-status-N` read as OpenShift's do.
 */
import { revisionAnnotations, revisionedName, revisionStatusPrefix } from '../../../api/operator/index.ts';

/** One ConfigMap or Secret in the operand namespace that every revision snapshots. */
export interface RevisionInput {
  readonly kind: 'configmap' | 'secret';
  readonly name: string;
  /** Absent = empty; a revision without it is still complete. */
  readonly optional?: boolean;
}

/** What the decisions need of a ConfigMap or Secret: its name, annotations and data. */
export interface DataObject {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly data?: Readonly<Record<string, string>>;
}

/** The highest `data.revision` among `revision-status-*` ConfigMaps marked ready; 0 when none is. */
export function latestReadyRevision(configMaps: Iterable<DataObject>): number {
  let latest = 0;
  for (const cm of configMaps) {
    if (!cm.metadata?.name?.startsWith(revisionStatusPrefix)) continue;
    // A status whose copies are still being written is not a revision yet.
    if (cm.metadata.annotations?.[revisionAnnotations.ready] !== 'true') continue;
    const n = Number(cm.data?.revision);
    if (Number.isInteger(n) && n > latest) latest = n;
  }
  return latest;
}

export type RevisionDecision =
  | { readonly kind: 'current' }
  /** Cut the next revision, `reason` going into `revision-status-N` and the events. */
  | { readonly kind: 'new'; readonly reason: string }
  /** A required input is missing: no revision (one without it could never start). */
  | { readonly kind: 'blocked'; readonly message: string };

/** kube's NotFound wording, which upstream writes verbatim into the reason or the condition. */
export const notFoundText = (input: Pick<RevisionInput, 'kind'>, name: string): string => `${input.kind === 'configmap' ? 'configmaps' : 'secrets'} "${name}" not found`;

const equalData = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean => {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
};

/**
 * Whether `latest`'s copies still hold what the inputs hold (`.data` only: labels and
 * annotations are not part of a revision), checked in upstream's order: ConfigMaps, then
 * Secrets, a missing required input or copy ending the check at once. A missing copy is itself
 * the reason (revision 1's is `configmaps "kube-apiserver-pod-0" not found`). Changes are
 * listed Secrets first, joined by `,`, as upstream joins them.
 */
export function decideRevision(inputs: readonly RevisionInput[], latest: number, get: (kind: RevisionInput['kind'], name: string) => DataObject | undefined): RevisionDecision {
  const changes: Record<RevisionInput['kind'], string[]> = { configmap: [], secret: [] };
  for (const kind of ['configmap', 'secret'] as const) {
    for (const input of inputs.filter((i) => i.kind === kind)) {
      const required = get(kind, input.name);
      if (!required && !input.optional) return { kind: 'blocked', message: notFoundText(input, input.name) };
      const copyName = revisionedName(input.name, latest);
      const existing = get(kind, copyName);
      if (!existing && !input.optional) return { kind: 'new', reason: notFoundText(input, copyName) };
      const existingData = existing?.data ?? {};
      if (equalData(existingData, required?.data ?? {})) continue;
      const verb = Object.keys(existingData).length === 0 ? 'been created' : 'changed';
      changes[kind].push(`${input.optional ? 'optional' : 'required'} ${kind}/${input.name} has ${verb}`);
    }
  }
  const all = [...changes.secret, ...changes.configmap];
  return all.length > 0 ? { kind: 'new', reason: all.join(',') } : { kind: 'current' };
}

/** The text of `StartingNewRevision` and `RevisionTriggered`. */
export const newRevisionMessage = (revision: number, reason: string): string => `new revision ${revision} triggered by ${JSON.stringify(reason)}`;

/** How the decisions read an input or a copy: from the informer cache, or from the API server. */
export type DataGetter = (kind: RevisionInput['kind'], name: string) => DataObject | undefined;

/**
 * The decision, with a cut confirmed against the API server. The cache alone can be behind in
 * one informer and not another: the KubeAPIServer's can show latestAvailableRevision N before
 * the ConfigMaps' shows N's copies (two watches, maybe through two API server replicas), and a
 * copy missing only there would cut N+1 with nothing changed, moving every master twice. So a
 * cut the cache asks for is decided again from live reads of every input and copy, and the
 * revision is copied from what those reads returned (`get`), never from a cache that may hold
 * an older input.
 */
export async function confirmedDecision(
  inputs: readonly RevisionInput[],
  latest: number,
  cached: DataGetter,
  read: (kind: RevisionInput['kind'], name: string) => Promise<DataObject | undefined>,
): Promise<{ decision: RevisionDecision; get: DataGetter }> {
  const decision = decideRevision(inputs, latest, cached);
  if (decision.kind !== 'new') return { decision, get: cached };
  const names = inputs.flatMap((input) => [input.name, revisionedName(input.name, latest)].map((name) => [input.kind, name] as const));
  const live = new Map(await Promise.all(names.map(async ([kind, name]) => [`${kind}/${name}`, await read(kind, name)] as const)));
  const get: DataGetter = (kind, name) => live.get(`${kind}/${name}`);
  return { decision: decideRevision(inputs, latest, get), get };
}
