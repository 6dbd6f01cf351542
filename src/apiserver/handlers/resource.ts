/**
 * The verbs on a resource and its `status` (and a CSR's `approval`) subresource: get, list, watch, create, update,
 * patch, delete and deletecollection, with the query parameters kubectl and client-node
 * send. Other subresources (scale, eviction, binding, log, finalize) have their own modules.
 */
import { fieldError } from '../../api/field-errors.ts';
import { noteCreatedName } from '../audit/created-name.ts';
import { errors, isNotFound } from '../errors.ts';
import { decodeBody, findDuplicateJsonKeys, mediaType, protobufType, readBody } from '../http/body.ts';
import { addWarnings, writeBody, writeRaw } from '../http/respond.ts';
import { compileSelectors } from '../registry/list-filter.ts';
import { apiVersionOf, type KubeObject } from '../registry/resource.ts';
import type { DeleteOptions } from '../registry/store.ts';
import { admitNamespaceDelete } from '../controllers/namespace-system.ts';
import { serveWatch } from '../watch.ts';
import { checkObjectBody } from './body-checks.ts';
import { dryRunInBody, writeContext, type RequestScope, type ServerContext } from './context.ts';
import { computePatched, patchSetsResourceVersion, patchTypeOf } from './patch.ts';

// kubectl's typed clients (`kubectl create namespace`, `create configmap`, ...) send protobuf.
const comma = Buffer.from(',');
const closeList = Buffer.from(']}');

const bodyTypes = ['application/json', 'application/yaml', protobufType];

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

export async function readObjectBody(scope: RequestScope): Promise<{ value: unknown; text: string }> {
  const type = mediaType(scope.req.headers['content-type']);
  const raw = await readBody(scope.req);
  if (type !== '' && !bodyTypes.includes(type)) {
    throw errors.unsupportedMediaType(type, bodyTypes);
  }
  if (raw.length === 0) throw errors.badRequest('the request body is empty; expected a JSON or YAML object');
  const value = decodeBody(raw, type || 'application/json');
  return { value, text: type === protobufType ? JSON.stringify(value) : raw.toString('utf8') };
}

/** Under fieldValidation=Strict a duplicated JSON key is an error; under Warn, a warning. */
function checkDuplicates(scope: RequestScope, text: string, type: string): void {
  if (type === 'application/yaml') return; // the YAML parser already refuses duplicate keys
  const validation = scope.url.searchParams.get('fieldValidation') ?? 'Warn';
  if (validation === 'Ignore') return;
  const dups = findDuplicateJsonKeys(text);
  if (!dups.length) return;
  if (validation === 'Strict') throw errors.badRequest(`strict decoding error: ${dups.map((d) => `json: duplicate field "${d}"`).join(', ')}`, dups.map((d) => ({ reason: 'FieldValueDuplicate', field: d, message: 'duplicate field' })));
  scope.warnings.push(...dups.map((d) => `duplicate field "${d}"`));
}

function respond(scope: RequestScope, ctx: ServerContext, code: number, obj: KubeObject): void {
  addWarnings(scope.res, scope.warnings);
  const { format, def } = scope;
  if (format.kind === 'table') {
    writeBody(scope.res, code, ctx.toTable(def, [obj], scope.url.searchParams.get('includeObject'), { resourceVersion: obj.metadata?.resourceVersion }, format.version), format, `application/json;as=Table;v=${format.version};g=meta.k8s.io`);
  } else if (format.kind === 'metadata') {
    writeBody(scope.res, code, { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${format.version}`, metadata: obj.metadata }, format);
  } else writeBody(scope.res, code, obj, format);
}

export async function handleGet(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  if (scope.format.kind === 'json') {
    const kv = await ctx.store.getRaw(def, info.namespace, info.name!);
    if (!kv) throw errors.notFound(def, info.name!);
    writeRaw(scope.res, 200, ctx.store.served(def, kv) ?? JSON.stringify(ctx.store.decode(def, kv)), 'application/json');
    return;
  }
  const obj = await ctx.store.get(def, info.namespace, info.name!);
  respond(scope, ctx, 200, obj);
}

export async function handleList(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, url, format } = scope;
  const q = url.searchParams;
  const selectors = compileSelectors(def, q.get('labelSelector'), q.get('fieldSelector'));
  const limit = intParam(q, 'limit');
  if (limit !== undefined && limit < 0) throw errors.badRequest('limit: Invalid value: must be a non-negative integer');
  const list = await ctx.store.list(def, info.namespace, {
    matcher: selectors.matcher,
    limit,
    continueToken: q.get('continue') || undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    raw: format.kind === 'json',
  });
  const listMeta: KubeObject = { resourceVersion: list.resourceVersion };
  if (list.continueToken) listMeta.continue = list.continueToken;
  if (list.remainingItemCount !== undefined) listMeta.remainingItemCount = list.remainingItemCount;
  if (format.kind === 'table') {
    writeBody(scope.res, 200, ctx.toTable(def, list.items, q.get('includeObject'), listMeta, format.version), format, `application/json;as=Table;v=${format.version};g=meta.k8s.io`);
    return;
  }
  if (format.kind === 'metadata') {
    const items = list.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${format.version}`, metadata: o.metadata }));
    writeBody(scope.res, 200, { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${format.version}`, metadata: listMeta, items }, format);
    return;
  }
  if (list.rawItems) {
    // The items are already JSON text; only the envelope is serialized here.
    const head = JSON.stringify({ kind: def.listKind, apiVersion: apiVersionOf(def), metadata: listMeta });
    // Encoding each item on its own is several times faster than joining 500 spliced strings first.
    const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"items":[`)];
    list.rawItems.forEach((item, i) => {
      if (i > 0) parts.push(comma);
      parts.push(Buffer.from(item));
    });
    parts.push(closeList);
    writeRaw(scope.res, 200, Buffer.concat(parts), 'application/json');
    return;
  }
  writeBody(scope.res, 200, { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: listMeta, items: list.items }, format);
}

export async function handleWatch(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, url, format } = scope;
  const q = url.searchParams;
  const selectors = compileSelectors(def, q.get('labelSelector'), q.get('fieldSelector'));
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  const includeObject = q.get('includeObject');
  const tableVersion = format.kind === 'table' ? format.version : 'v1';
  const render =
    format.kind === 'table'
      ? (o: KubeObject) => ctx.toTable(def, [o], includeObject, { resourceVersion: o.metadata?.resourceVersion }, tableVersion)
      : format.kind === 'metadata'
        ? (o: KubeObject) => ({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${format.version}`, metadata: o.metadata })
        : (o: KubeObject) => o;
  await serveWatch(
    scope.req,
    scope.res,
    ctx.store,
    {
      def,
      namespace: info.namespace,
      name: info.name ?? selectors.name,
      matcher: selectors.matcher,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      allowBookmarks: q.get('allowWatchBookmarks') === 'true',
      timeoutSeconds: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds : undefined,
      sendInitialEvents: q.get('sendInitialEvents') === 'true',
      render,
      renderKey: `${format.kind}/${includeObject ?? ''}/${tableVersion}`,
      rendersObject: format.kind === 'json',
    },
    ctx.watch,
  );
}

export async function handleCreate(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  if (info.name) throw errors.methodNotAllowed('POST', `${def.resource}/${info.name}`);
  if (def.namespaced && !info.namespace) throw errors.methodNotAllowed('POST', `${def.resource} without a namespace`);
  const { value, text } = await readObjectBody(scope);
  checkDuplicates(scope, text, mediaType(scope.req.headers['content-type']));
  const obj = checkObjectBody(def, value, { namespace: info.namespace });
  // The body was parsed for this request alone: the store may make it the created object.
  const created = await ctx.store.createServed(def, info.namespace, obj, writeContext(scope), { owned: true });
  noteCreatedName(scope.req, created.object.metadata?.name);
  if (created.text !== undefined && scope.format.kind === 'json') {
    // The stored text with its resourceVersion spliced in: no second serialization of the object.
    addWarnings(scope.res, scope.warnings);
    writeRaw(scope.res, 201, created.text, 'application/json');
    return;
  }
  respond(scope, ctx, 201, created.object);
}

export async function handleUpdate(scope: RequestScope, ctx: ServerContext, subresource?: 'status' | 'approval'): Promise<void> {
  const { def, info } = scope;
  if (!info.name) throw errors.methodNotAllowed('PUT', def.resource);
  const { value, text } = await readObjectBody(scope);
  checkDuplicates(scope, text, mediaType(scope.req.headers['content-type']));
  const obj = checkObjectBody(def, value, { namespace: info.namespace, name: info.name });
  obj.metadata ??= {};
  obj.metadata.name ??= info.name;
  const updated = await ctx.store.update(def, info.namespace, info.name, obj, writeContext(scope, subresource));
  respond(scope, ctx, 200, updated);
}

export async function handlePatch(scope: RequestScope, ctx: ServerContext, subresource?: 'status' | 'approval'): Promise<void> {
  const { def, info, url } = scope;
  if (!info.name) throw errors.methodNotAllowed('PATCH', def.resource);
  const type = patchTypeOf(def, scope.req.headers['content-type']);
  const raw = await readBody(scope.req);
  if (raw.length === 0) throw errors.badRequest('the patch body is empty');
  const patch = decodeBody(raw, type === 'application/apply-patch+yaml' ? type : 'application/json');
  const wctx = writeContext(scope, subresource);
  const isApply = type === 'application/apply-patch+yaml';
  if (isApply && !url.searchParams.get('fieldManager')) {
    throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [{ type: 'FieldValueRequired', field: 'fieldManager', message: 'fieldManager: Required value: is required for apply patch' }]);
  }
  const force = url.searchParams.get('force') === 'true';
  if (force && !isApply) throw errors.invalid('PatchOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'force', message: 'force: Forbidden: may not be specified for non-apply patch' }]);
  const input = { def, type, patch, manager: wctx.manager, force, subresource };
  const keepsRv = patchSetsResourceVersion(type, patch);
  const ctxFor = isApply ? { ...wctx, applied: true } : wctx;
  const { object, created } = await ctx.store.guaranteedUpdate(
    def,
    info.namespace,
    info.name,
    ctxFor,
    (current) => {
      const patched = computePatched(input, current);
      if (!keepsRv && patched.metadata) delete patched.metadata.resourceVersion;
      // A PATCH carries no uid precondition (a PUT body does): changing the uid is an invalid update.
      if (patched.metadata?.uid !== undefined && patched.metadata.uid !== current.metadata.uid) {
        throw errors.invalid(def.kind, def.group, info.name!, [fieldError.invalid('metadata.uid', patched.metadata.uid, 'field is immutable')]);
      }
      return patched;
    },
    {
      createIfMissing: isApply && !subresource
        ? async () => {
            const obj = computePatched(input, undefined);
            obj.metadata ??= {};
            if (obj.metadata.name !== undefined && obj.metadata.name !== info.name) throw errors.badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${info.name})`);
            obj.metadata.name = info.name;
            if (def.namespaced) obj.metadata.namespace = info.namespace;
            return obj;
          }
        : undefined,
    },
  );
  respond(scope, ctx, created ? 201 : 200, object);
}

/** The DeleteOptions of a DELETE (query and body), and the body's `dryRun`, which `writeContext` checks with the query's. */
async function deleteOptionsOf(scope: RequestScope): Promise<{ options: DeleteOptions; bodyDryRun: unknown[] }> {
  const q = scope.url.searchParams;
  let body: KubeObject = {};
  const type = mediaType(scope.req.headers['content-type']);
  const raw = await readBody(scope.req);
  // `kubectl drain` without the eviction API sends protobuf DeleteOptions.
  if (raw.length > 0) {
    const decoded = decodeBody(raw, type || 'application/json');
    if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw errors.badRequest('DeleteOptions: the body must be an object');
    body = decoded as KubeObject;
  }
  const policy = q.get('propagationPolicy') ?? body.propagationPolicy;
  if (policy !== undefined && policy !== null && !['Foreground', 'Background', 'Orphan'].includes(policy)) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'propagationPolicy', message: `propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"` }]);
  }
  const grace = intParam(q, 'gracePeriodSeconds') ?? body.gracePeriodSeconds;
  if (grace !== undefined && (typeof grace !== 'number' || grace < 0)) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueInvalid', field: 'gracePeriodSeconds', message: `gracePeriodSeconds: Invalid value: ${grace}: must be greater than or equal to 0` }]);
  }
  const orphan = q.get('orphanDependents') !== null ? q.get('orphanDependents') === 'true' : body.orphanDependents;
  return { options: { propagationPolicy: policy ?? undefined, gracePeriodSeconds: grace, preconditions: body.preconditions, orphanDependents: orphan }, bodyDryRun: dryRunInBody(body) };
}

export async function handleDelete(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info } = scope;
  const { options, bodyDryRun } = await deleteOptionsOf(scope);
  const wctx = writeContext(scope, undefined, { bodyDryRun });
  admitNamespaceDelete(def, info.name!);
  const { object, deleted } = await ctx.store.delete(def, info.namespace, info.name!, options, wctx);
  addWarnings(scope.res, scope.warnings);
  // As kube-apiserver: the object as it was (or still is, when finalizers or a grace period hold it).
  writeBody(scope.res, !deleted && options.orphanDependents === false ? 202 : 200, object, scope.format.kind === 'yaml' ? scope.format : { kind: 'json' });
}

export async function handleDeleteCollection(scope: RequestScope, ctx: ServerContext): Promise<void> {
  const { def, info, url } = scope;
  const { options, bodyDryRun } = await deleteOptionsOf(scope);
  const wctx = writeContext(scope, undefined, { bodyDryRun });
  const selectors = compileSelectors(def, url.searchParams.get('labelSelector'), url.searchParams.get('fieldSelector'));
  const list = await ctx.store.list(def, info.namespace, { matcher: selectors.matcher });
  const items: KubeObject[] = [];
  for (const obj of list.items) {
    admitNamespaceDelete(def, obj.metadata.name);
    try {
      items.push((await ctx.store.delete(def, obj.metadata.namespace, obj.metadata.name, options, wctx)).object);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  writeBody(scope.res, 200, { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: { resourceVersion: list.resourceVersion }, items });
}
