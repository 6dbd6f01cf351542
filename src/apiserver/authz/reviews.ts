/**
 * The review APIs: questions about authentication and authorization put to the server as
 * create-only resources that are never stored.
 * - authorization.k8s.io/v1 SubjectAccessReview (any user), LocalSubjectAccessReview (any
 *   user, one namespace), SelfSubjectAccessReview (`kubectl auth can-i`) and
 *   SelfSubjectRulesReview (`kubectl auth can-i --list`);
 * - authentication.k8s.io/v1 TokenReview and SelfSubjectReview (`kubectl auth whoami`).
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { UserInfo } from '../auth/tokens.ts';
import { errors } from '../errors.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { Attributes } from './attributes.ts';
import type { Authorizer } from './authorizer.ts';
import { nodeNameOf, nodeRules, type NodeGraph } from './node-authorizer.ts';
import { aggregateMessage, missingRoleMessage, type RbacIndex } from './rbac-index.ts';
import type { PolicyRule } from './rules.ts';

export interface ReviewDeps {
  readonly authorizer: Authorizer;
  readonly rbac: RbacIndex;
  readonly nodes: NodeGraph;
  /** Authenticates a bearer token as the server does (TokenReview). */
  authenticate(authorization: string): UserInfo | undefined | Promise<UserInfo | undefined>;
}

/** Answers one review: `body` is the request object, `namespace` the URL's, `requester` who sent it. */
export type ReviewHandler = (body: KubeObject, namespace: string | undefined, requester: UserInfo) => Promise<KubeObject> | KubeObject;

const authzGroup = 'authorization.k8s.io';
const authnGroup = 'authentication.k8s.io';

function specOf(kind: string, group: string, body: KubeObject): KubeObject {
  const spec = body.spec;
  if (spec === undefined || spec === null) return {};
  if (typeof spec !== 'object' || Array.isArray(spec)) throw errors.invalid(kind, group, body.metadata?.name ?? '', [fieldError.typeInvalid('spec', spec, 'must be an object')]);
  return spec;
}

function attributesFrom(kind: string, spec: KubeObject, user: UserInfo): Attributes {
  const errs: FieldError[] = [];
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if ((ra && nra) || (!ra && !nra)) {
    errs.push(fieldError.invalid('spec.resourceAttributes', ra ?? null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (errs.length) throw errors.invalid(kind, authzGroup, '', errs);
  if (ra) {
    return {
      kind: 'resource',
      user,
      verb: String(ra.verb ?? ''),
      namespace: String(ra.namespace ?? ''),
      apiGroup: String(ra.group ?? ''),
      apiVersion: String(ra.version ?? ''),
      resource: String(ra.resource ?? ''),
      subresource: String(ra.subresource ?? ''),
      name: String(ra.name ?? ''),
    };
  }
  return { kind: 'nonresource', user, verb: String(nra.verb ?? ''), path: String(nra.path ?? '') };
}

function accessStatus(deps: ReviewDeps, a: Attributes): KubeObject {
  const d = deps.authorizer.authorize(a);
  return { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
}

function reviewed(body: KubeObject, kind: string, group: string, spec: KubeObject, status: KubeObject, namespace?: string): KubeObject {
  const metadata: KubeObject = { ...(body.metadata ?? {}), creationTimestamp: null };
  if (namespace) metadata.namespace = namespace;
  return { kind, apiVersion: `${group}/v1`, metadata, spec, status };
}

function userFromSpec(kind: string, spec: KubeObject): UserInfo {
  const groups: string[] = Array.isArray(spec.groups) ? spec.groups.map(String) : [];
  if (!spec.user && groups.length === 0) throw errors.invalid(kind, authzGroup, '', [fieldError.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified')]);
  return { name: String(spec.user ?? ''), uid: String(spec.uid ?? ''), groups, ...(spec.extra ? { extra: spec.extra } : {}) };
}

/** Rules as SelfSubjectRulesReview reports them. */
function splitRules(rules: readonly PolicyRule[]): { resourceRules: KubeObject[]; nonResourceRules: KubeObject[] } {
  const resourceRules: KubeObject[] = [];
  const nonResourceRules: KubeObject[] = [];
  for (const r of rules) {
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    else resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
  }
  return { resourceRules, nonResourceRules };
}

function userInfoStatus(u: UserInfo): KubeObject {
  return { username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: [...u.groups], ...(u.extra ? { extra: u.extra } : {}) };
}

export function reviewHandlers(deps: ReviewDeps): Map<string, ReviewHandler> {
  const handlers = new Map<string, ReviewHandler>();
  handlers.set(`${authzGroup}/subjectaccessreviews`, (body) => {
    const spec = specOf('SubjectAccessReview', authzGroup, body);
    const user = userFromSpec('SubjectAccessReview', spec);
    return reviewed(body, 'SubjectAccessReview', authzGroup, spec, accessStatus(deps, attributesFrom('SubjectAccessReview', spec, user)));
  });
  handlers.set(`${authzGroup}/localsubjectaccessreviews`, (body, namespace) => {
    const spec = specOf('LocalSubjectAccessReview', authzGroup, body);
    if (spec.nonResourceAttributes) throw errors.invalid('LocalSubjectAccessReview', authzGroup, '', [fieldError.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request')]);
    // The object's namespace is the URL's by now, so kube's validation compares the spec with it.
    if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== (namespace ?? '')) {
      throw errors.invalid('LocalSubjectAccessReview', authzGroup, '', [fieldError.invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace')]);
    }
    const user = userFromSpec('LocalSubjectAccessReview', spec);
    return reviewed(body, 'LocalSubjectAccessReview', authzGroup, spec, accessStatus(deps, attributesFrom('LocalSubjectAccessReview', spec, user)), namespace);
  });
  handlers.set(`${authzGroup}/selfsubjectaccessreviews`, (body, _ns, requester) => {
    const spec = specOf('SelfSubjectAccessReview', authzGroup, body);
    return reviewed(body, 'SelfSubjectAccessReview', authzGroup, spec, accessStatus(deps, attributesFrom('SelfSubjectAccessReview', spec, requester)));
  });
  handlers.set(`${authzGroup}/selfsubjectrulesreviews`, (body, _ns, requester) => {
    const spec = specOf('SelfSubjectRulesReview', authzGroup, body);
    const namespace = String(spec.namespace ?? '');
    const held = deps.rbac.rulesFor(requester, namespace);
    const rules = [...held.rules];
    // A kubelet's rules come from the Node authorizer, which cannot list what its graph allows.
    let incomplete = false;
    if (nodeNameOf(requester) !== undefined) {
      rules.push(...nodeRules);
      incomplete = true;
    }
    const status: KubeObject = { ...splitRules(rules), incomplete };
    // Missing roles are reported, not counted as incomplete: kube's RBAC rule resolver says so.
    if (held.missing.length) status.evaluationError = aggregateMessage(held.missing.map((r) => missingRoleMessage(r, 'lister')));
    return reviewed(body, 'SelfSubjectRulesReview', authzGroup, spec, status);
  });
  handlers.set(`${authnGroup}/tokenreviews`, async (body) => {
    const spec = specOf('TokenReview', authnGroup, body);
    if (typeof spec.token !== 'string' || spec.token === '') throw errors.badRequest('token is required for TokenReview in authentication');
    const user = await deps.authenticate(`Bearer ${spec.token}`);
    // A token nothing recognises is `{user: {}}`: kube's `authenticated` is omitted when false, and no authenticator erred.
    const status: KubeObject = user ? { authenticated: true, user: userInfoStatus(user), ...(Array.isArray(spec.audiences) ? { audiences: spec.audiences } : {}) } : { user: {} };
    // The token is a secret: the answer does not repeat it.
    return reviewed(body, 'TokenReview', authnGroup, { ...spec, token: undefined }, status);
  });
  handlers.set(`${authnGroup}/selfsubjectreviews`, (body, _ns, requester) => ({
    kind: 'SelfSubjectReview',
    apiVersion: `${authnGroup}/v1`,
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null },
    status: { userInfo: userInfoStatus(requester) },
  }));
  return handlers;
}
