/**
 * Routes one request: authentication, then the non-resource endpoints (health, version,
 * metrics, OpenAPI, discovery) or a resource request dispatched by verb and subresource.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { certificateUser } from './auth/client-certs.ts';
import type { UserInfo } from './auth/tokens.ts';
import { attributesOf, type Attributes } from './authz/attributes.ts';
import { forbiddenMessage, type Authorizer } from './authz/authorizer.ts';
import { impersonate, wantsImpersonation } from './authz/impersonation.ts';
import type { ReviewHandler } from './authz/reviews.ts';
import { aggregatedContentType, aggregatedContentTypeBeta, wantsAggregated, type Discovery } from './discovery/discovery.ts';
import { ApiError, errors } from './errors.ts';
import type { RequestScope, ServerContext } from './handlers/context.ts';
import { handleEviction } from './handlers/eviction.ts';
import { handleBinding, handleFinalize, handleLog } from './handlers/pod-subresources.ts';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate, handleWatch, readObjectBody } from './handlers/resource.ts';
import { handleScale } from './handlers/scale.ts';
import { handleTokenRequest } from './handlers/token-request.ts';
import { parseRequestInfo, type RequestInfo, type ResourceRequest } from './http/request-info.ts';
import { negotiate, writeBody, writeRaw } from './http/respond.ts';
import type { HealthEndpoints } from './health.ts';
import type { ApiServerMetrics } from './metrics.ts';
import type { OpenApiService } from './openapi-service.ts';

export interface RouterDeps {
  readonly ctx: ServerContext;
  /** Who sent the request (from its Authorization header); async for tokens that need a store read. */
  readonly auth: { authenticate(authorization: string | undefined): UserInfo | undefined | Promise<UserInfo | undefined> };
  readonly discovery: Discovery;
  readonly openapi: OpenApiService;
  /** `/healthz`, `/livez`, `/readyz` and their single checks. */
  readonly health: HealthEndpoints;
  readonly metrics: ApiServerMetrics;
  readonly version: object;
  readonly serverAddress: () => string;
  /** Authorization of every request and the review APIs; without it every user may do anything. */
  readonly authz?: { readonly authorizer: Authorizer; readonly reviews: ReadonlyMap<string, ReviewHandler> };
  /** Told who sent the request and what it asks, as soon as each is known (the audit log's facts). */
  readonly observe?: (seen: { readonly user?: UserInfo; readonly impersonatedUser?: UserInfo; readonly info?: RequestInfo }) => void;
}

const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/healthz/ping', '/livez/ping', '/readyz/ping']);

function notFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export async function routeRequest(req: IncomingMessage, res: ServerResponse, deps: RouterDeps, label: (verb: string, resource: string) => void): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'https://localhost');
  } catch {
    throw errors.badRequest(`malformed request URL ${JSON.stringify(req.url)}`);
  }
  const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.replace(/\/+$/, '') : url.pathname;
  // A verified client certificate first, then the bearer token, as kube's authenticator union.
  const socket = req.socket as TLSSocket;
  let user = (socket.authorized ? certificateUser(socket) : undefined) ?? (await deps.auth.authenticate(req.headers.authorization));
  deps.observe?.({ user });
  if (publicPaths.has(path)) {
    // Health and version are everyone's (kube binds system:public-info-viewer to all, even the
    // unauthenticated): the load balancer's checks need no credentials and no authorization.
    label('get', path);
    if (path === '/version') return writeBody(res, 200, deps.version);
    return deps.health.serve(res, deps.health.target(path)!, url.searchParams);
  }
  if (!user) {
    req.resume();
    // The audit log names what an unauthenticated request asked for, as kube's (its request info precedes authentication).
    try {
      deps.observe?.({ info: parseRequestInfo(req.method ?? 'GET', path, url.searchParams) });
    } catch {
      /* a path that does not parse: the 401 stands */
    }
    throw errors.unauthorized();
  }
  const authz = deps.authz;
  const authenticated = user;
  if (authz && wantsImpersonation(req.headers)) user = impersonate(user, req.headers, authz.authorizer);
  const info = parseRequestInfo(req.method ?? 'GET', path, url.searchParams);
  deps.observe?.({ user: authenticated, impersonatedUser: user === authenticated ? undefined : user, info });
  if (authz) authorize(authz.authorizer, attributesOf(user, req.method ?? 'GET', path, info), req);
  // A single check (`/readyz/shutdown`) says why it fails, so it is not public, as in kube.
  const health = deps.health.target(path);
  if (health) {
    label('get', path);
    return deps.health.serve(res, health, url.searchParams);
  }
  if (path === '/metrics') {
    label('get', '/metrics');
    return writeRaw(res, 200, await deps.metrics.registry.metrics(), deps.metrics.registry.contentType);
  }
  if (path === '/openapi/v2') {
    label('get', '/openapi/v2');
    // JSON, or gnostic protobuf for kubectl's client-side validation; 406 for anything else.
    const doc = deps.openapi.v2For(req.headers.accept);
    if (!doc) throw errors.notAcceptable(req.headers.accept ?? '');
    return writeRaw(res, 200, doc.body, doc.contentType);
  }
  if (path === '/openapi/v3' || path.startsWith('/openapi/v3/')) {
    label('get', '/openapi/v3');
    const gv = path === '/openapi/v3' ? undefined : path.slice('/openapi/v3/'.length);
    const doc = gv === undefined ? deps.openapi.v3Root() : deps.openapi.v3(gv);
    if (doc === undefined) throw notFound();
    return writeRaw(res, 200, doc, 'application/json');
  }
  if (info.kind === 'nonresource') {
    label(req.method?.toLowerCase() ?? 'get', 'nonresource');
    throw notFound();
  }
  if (info.kind === 'discovery') {
    label('get', 'discovery');
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotAllowed(req.method ?? '', path);
    const accept = req.headers.accept;
    const d = deps.discovery;
    if (!info.version && (info.legacy || !info.group)) {
      const aggregated = wantsAggregated(accept);
      if (aggregated) return writeRaw(res, 200, d.aggregated(info.legacy, aggregated), aggregated === 'v2' ? aggregatedContentType : aggregatedContentTypeBeta);
      return writeBody(res, 200, info.legacy ? d.apiVersions(deps.serverAddress()) : d.apiGroupList());
    }
    if (!info.version) {
      const doc = d.apiGroupDoc(info.group!);
      if (!doc) throw notFound();
      return writeBody(res, 200, doc);
    }
    const list = d.apiResourceList(info.group ?? '', info.version);
    if (!list) throw notFound();
    return writeBody(res, 200, list);
  }
  await routeResource(req, res, deps, { info, url, user }, label);
}

function authorize(authorizer: Authorizer, a: Attributes, req: IncomingMessage): void {
  const d = authorizer.authorize(a);
  if (d.allowed) return;
  req.resume();
  if (a.kind === 'nonresource') throw new ApiError(403, 'Forbidden', forbiddenMessage(a, d.reason), {});
  throw new ApiError(403, 'Forbidden', forbiddenMessage(a, d.reason), { name: a.name || undefined, group: a.apiGroup || undefined, kind: a.resource });
}

async function routeResource(
  req: IncomingMessage,
  res: ServerResponse,
  deps: RouterDeps,
  { info, url, user }: { info: ResourceRequest; url: URL; user: UserInfo | undefined },
  label: (verb: string, resource: string) => void,
): Promise<void> {
  const { ctx } = deps;
  label(info.verb, info.subresource ? `${info.resource}/${info.subresource}` : info.resource);
  const def = ctx.registry.lookup(info.group, info.version, info.resource);
  if (!def || !def.served) {
    req.resume();
    throw notFound();
  }
  if (!def.namespaced && info.namespace) throw notFound();
  if (def.namespaced && info.name && !info.namespace) throw notFound();
  const format = negotiate(req.headers.accept);
  if (!format) throw errors.notAcceptable(req.headers.accept ?? '');
  const scope: RequestScope = { req, res, url, info, def, user, format, warnings: [] };
  if (def.verbs) {
    if (!def.verbs.includes(info.verb) || info.subresource) throw errors.methodNotAllowed(req.method ?? '', def.resource);
    const review = deps.authz?.reviews.get(`${def.group}/${def.resource}`);
    if (!review || !user) throw notFound();
    const { value } = await readObjectBody(scope);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw errors.badRequest(`the body must be a ${def.kind} object`);
    return writeBody(res, 201, await review(value as Record<string, unknown>, info.namespace, user), format);
  }
  const sub = info.subresource;
  if (!sub) {
    switch (info.verb) {
      case 'get':
        return handleGet(scope, ctx);
      case 'list':
        return handleList(scope, ctx);
      case 'watch':
        return handleWatch(scope, ctx);
      case 'create':
        return handleCreate(scope, ctx);
      case 'update':
        return handleUpdate(scope, ctx);
      case 'patch':
        return handlePatch(scope, ctx);
      case 'delete':
        return handleDelete(scope, ctx);
      case 'deletecollection':
        return handleDeleteCollection(scope, ctx);
    }
  }
  const s = def.subresources;
  const method = req.method ?? '';
  if (sub === 'status' && s.status) {
    if (info.verb === 'get') return handleGet(scope, ctx);
    if (info.verb === 'update') return handleUpdate(scope, ctx, 'status');
    if (info.verb === 'patch') return handlePatch(scope, ctx, 'status');
    throw errors.methodNotAllowed(method, `${def.resource}/status`);
  }
  if (sub === 'approval' && s.approval) {
    if (info.verb === 'get') return handleGet(scope, ctx);
    if (info.verb === 'update') return handleUpdate(scope, ctx, 'approval');
    if (info.verb === 'patch') return handlePatch(scope, ctx, 'approval');
    throw errors.methodNotAllowed(method, `${def.resource}/approval`);
  }
  if (sub === 'scale' && s.scale) return handleScale(scope, ctx);
  if (sub === 'eviction' && s.eviction) {
    if (info.verb !== 'create') throw errors.methodNotAllowed(method, `${def.resource}/eviction`);
    return handleEviction(scope, ctx);
  }
  if (sub === 'binding' && s.binding) {
    if (info.verb !== 'create') throw errors.methodNotAllowed(method, `${def.resource}/binding`);
    return handleBinding(scope, ctx);
  }
  if (sub === 'log' && s.log) {
    if (info.verb !== 'get') throw errors.methodNotAllowed(method, `${def.resource}/log`);
    return handleLog(scope, ctx);
  }
  if (sub === 'token' && s.token) {
    if (info.verb !== 'create') throw errors.methodNotAllowed(method, `${def.resource}/token`);
    return handleTokenRequest(scope, ctx);
  }
  if (sub === 'finalize' && s.finalize) {
    if (info.verb !== 'update') throw errors.methodNotAllowed(method, `${def.resource}/finalize`);
    return handleFinalize(scope, ctx);
  }
  throw notFound();
}
