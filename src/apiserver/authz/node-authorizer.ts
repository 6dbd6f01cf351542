/**
 * Kube's Node authorizer: a kubelet (user `system:node:<name>` in group `system:nodes`) may
 * read the Secrets and ConfigMaps, and request tokens for the ServiceAccounts, of pods bound to
 * its node and nothing else of those kinds; it may touch only its own Lease; for everything
 * else it holds the rules of kube's `system:node` role (`nodeRules`). What a kubelet may write
 * to Nodes, Leases and pods is narrowed further by NodeRestriction (`admission.ts`).
 *
 * The pod → object relation is kept from the store's events, as kube's graph is from informers.
 */
import type { UserInfo } from '../auth/tokens.ts';
import type { StoreEvent, StoreEventSource } from '../controllers/event-source.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import type { Attributes, ResourceAttributes } from './attributes.ts';
import type { Decision } from './rbac-index.ts';
import { rulesAllow, type PolicyRule } from './rules.ts';

export const nodesGroup = 'system:nodes';
const nodeUserPrefix = 'system:node:';

/** The node a user is the kubelet of, or undefined. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  const name = user.name.slice(nodeUserPrefix.length);
  return name || undefined;
}

const read = ['get', 'list', 'watch'];

/** Kube's bootstrap policy NodeRules, less what Shipyard does not serve. */
export const nodeRules: readonly PolicyRule[] = [
  { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'] },
  { verbs: read, apiGroups: [''], resources: ['services'] },
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes/status'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['create', 'update', 'patch'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] },
  { verbs: read, apiGroups: [''], resources: ['pods'] },
  { verbs: ['create', 'delete'], apiGroups: [''], resources: ['pods'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['pods/status'] },
  { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
  { verbs: ['get'], apiGroups: [''], resources: ['endpoints', 'persistentvolumeclaims', 'persistentvolumes'] },
  { verbs: ['get', 'create', 'update', 'patch', 'delete'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
  // A kubelet renews its own client certificate with a CertificateSigningRequest.
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'] },
];

type Ref = `${'secret' | 'configmap' | 'serviceaccount'}/${string}/${string}`;

/** What a pod's spec refers to that its kubelet must read. */
export function podReferences(pod: KubeObject): Ref[] {
  const ns = pod.metadata?.namespace ?? '';
  const spec = pod.spec ?? {};
  const refs = new Set<Ref>();
  refs.add(`serviceaccount/${ns}/${spec.serviceAccountName || 'default'}`);
  // Shipyard's kubelet projects the service-account volume itself (kube's ServiceAccount
  // admission writes it into the pod spec instead), and that volume holds the namespace's CA.
  if (spec.automountServiceAccountToken !== false) refs.add(`configmap/${ns}/kube-root-ca.crt`);
  for (const s of spec.imagePullSecrets ?? []) if (s?.name) refs.add(`secret/${ns}/${s.name}`);
  for (const v of spec.volumes ?? []) {
    if (v?.secret?.secretName) refs.add(`secret/${ns}/${v.secret.secretName}`);
    if (v?.configMap?.name) refs.add(`configmap/${ns}/${v.configMap.name}`);
    for (const p of v?.projected?.sources ?? []) {
      if (p?.secret?.name) refs.add(`secret/${ns}/${p.secret.name}`);
      if (p?.configMap?.name) refs.add(`configmap/${ns}/${p.configMap.name}`);
    }
  }
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  for (const c of containers) {
    for (const e of c?.env ?? []) {
      if (e?.valueFrom?.secretKeyRef?.name) refs.add(`secret/${ns}/${e.valueFrom.secretKeyRef.name}`);
      if (e?.valueFrom?.configMapKeyRef?.name) refs.add(`configmap/${ns}/${e.valueFrom.configMapKeyRef.name}`);
    }
    for (const e of c?.envFrom ?? []) {
      if (e?.secretRef?.name) refs.add(`secret/${ns}/${e.secretRef.name}`);
      if (e?.configMapRef?.name) refs.add(`configmap/${ns}/${e.configMapRef.name}`);
    }
  }
  return [...refs];
}

export class NodeGraph {
  private readonly pods = new Map<string, { node: string; refs: Ref[] }>();
  private readonly byNode = new Map<string, Map<Ref, number>>();

  async start(events: StoreEventSource, store: ObjectStore, registry: ResourceRegistry): Promise<void> {
    events.subscribe('core/pods', (ev: StoreEvent) => this.apply(ev.type === 'delete' ? undefined : ev.object, ev.object));
    const def = registry.lookup('', 'v1', 'pods')!;
    for (const pod of (await store.list(def, undefined)).items) this.apply(pod, pod);
  }

  /** Records a pod (undefined: `was` is gone). Public for tests. */
  apply(pod: KubeObject | undefined, was: KubeObject): void {
    const id = `${was.metadata.namespace}/${was.metadata.name}`;
    const old = this.pods.get(id);
    if (old) {
      const counts = this.byNode.get(old.node)!;
      for (const r of old.refs) {
        const n = counts.get(r)! - 1;
        if (n === 0) counts.delete(r);
        else counts.set(r, n);
      }
      if (counts.size === 0) this.byNode.delete(old.node);
      this.pods.delete(id);
    }
    const node = pod?.spec?.nodeName;
    if (!pod || !node) return;
    const refs = podReferences(pod);
    this.pods.set(id, { node, refs });
    let counts = this.byNode.get(node);
    if (!counts) this.byNode.set(node, (counts = new Map()));
    for (const r of refs) counts.set(r, (counts.get(r) ?? 0) + 1);
  }

  related(node: string, ref: Ref): boolean {
    return this.byNode.get(node)?.has(ref) ?? false;
  }
}

const noRelation = (node: string): Decision => ({ allowed: false, reason: `no relationship found between node '${node}' and this object` });

const denied = (reason: string): Decision => ({ allowed: false, reason });

/** A single object the graph must relate to the node (kube's `authorize`). */
function related(graph: NodeGraph, node: string, ref: Ref, name: string): Decision {
  if (!name) return denied('No Object name found');
  return graph.related(node, ref) ? { allowed: true, reason: '' } : noRelation(node);
}

/** Secrets and ConfigMaps: read one at a time (get, or a list or watch of one name), kube's authorizeReadNamespacedObject. */
function authorizeRead(graph: NodeGraph, node: string, kind: 'secret' | 'configmap', a: ResourceAttributes): Decision {
  if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return denied('can only read resources of this type');
  if (a.subresource) return denied('cannot read subresource');
  if (!a.namespace) return denied('can only read namespaced object of this type');
  return related(graph, node, `${kind}/${a.namespace}/${a.name}`, a.name);
}

/** ServiceAccounts: only tokens, for the service accounts of its pods (kube's authorizeCreateToken). */
function authorizeCreateToken(graph: NodeGraph, node: string, a: ResourceAttributes): Decision {
  if (a.verb !== 'create' || !a.name) return denied('can only create tokens for individual service accounts');
  if (a.subresource !== 'token') return denied('can only create token subresource of serviceaccount');
  return related(graph, node, `serviceaccount/${a.namespace}/${a.name}`, a.name);
}

/** Only its own heartbeat Lease (kube's authorizeLease); a create's name is checked at admission. */
function authorizeLease(node: string, a: ResourceAttributes): Decision {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return denied('can only get, create, update, patch, or delete a node lease');
  if (a.namespace !== 'kube-node-lease') return denied('can only access leases in the "kube-node-lease" system namespace');
  if (a.verb !== 'create' && a.name !== node) return denied('can only access node lease with the same name as the requesting node');
  return { allowed: true, reason: '' };
}

/**
 * The Node authorizer's decision; undefined when the user is not a kubelet or the request is
 * none of its business (no opinion). A refusal is no opinion either: RBAC may still allow.
 */
export function authorizeNode(graph: NodeGraph, a: Attributes): Decision | undefined {
  const node = nodeNameOf(a.user);
  if (node === undefined) return undefined;
  if (a.kind === 'resource') {
    if (a.apiGroup === '' && a.resource === 'secrets') return authorizeRead(graph, node, 'secret', a);
    if (a.apiGroup === '' && a.resource === 'configmaps') return authorizeRead(graph, node, 'configmap', a);
    if (a.apiGroup === '' && a.resource === 'serviceaccounts') return authorizeCreateToken(graph, node, a);
    if (a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') return authorizeLease(node, a);
  }
  return rulesAllow(nodeRules, a) ? { allowed: true, reason: '' } : undefined;
}
