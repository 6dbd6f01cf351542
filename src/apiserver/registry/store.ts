/**
 * The generic registry store: one implementation of get, list, create, update, delete and
 * guaranteed update for every resource, calling the resource's strategy at the points
 * kube-apiserver's generic registry does. Objects are stored as JSON in their storage
 * version, without `resourceVersion`: the store revision of the row is the resourceVersion.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { FieldError } from '../../api/field-errors.ts';
import { generateName } from '../../api/names.ts';
import { formatTimestamp } from '../../api/time.ts';
import { CompactedError, FutureRevisionError, type Backend, type KeyValue } from '../../storage/types.ts';
import { coerceCustomResource } from '../crd/coerce.ts';
import { ApiError, errors, isAlreadyExists, isNotFound } from '../errors.ts';
import type { LabelMatcher, ObjectMatcher } from './list-filter.ts';
import { validateFinalizerNames, validateMetaUpdate, validateObjectMeta } from './metadata.ts';
import type { ResourceRegistry } from './registry.ts';
import { apiVersionOf, type KubeObject, type RequestUser, type ResourceDefinition } from './resource.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteContext {
  /** The field manager recorded in managedFields. */
  readonly manager: string;
  readonly dryRun?: boolean;
  readonly fieldValidation?: FieldValidation;
  /** Warnings to send back as `Warning` headers. */
  readonly warnings?: string[];
  /** Set for subresource writes (`status`). */
  readonly subresource?: 'status' | 'finalize' | 'binding' | 'approval';
  /** Set by server-side apply, whose result already carries its managedFields. */
  readonly applied?: boolean;
  /** Who writes (absent for the server's own writes): what authorization admission checks. */
  readonly user?: RequestUser;
}

export interface ListOptions {
  readonly matcher?: ObjectMatcher;
  readonly limit?: number;
  readonly continueToken?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  /** Collect items as served JSON text where that needs no parsing (see `ObjectStore.served`). */
  readonly raw?: boolean;
}

export interface ListResult {
  readonly items: KubeObject[];
  /** With `raw`: every item as served JSON text, in order (then `items` is empty). */
  readonly rawItems?: string[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
  readonly remainingItemCount?: number;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly orphanDependents?: boolean;
}

/** Hooks that sit outside the generic store: per-kind admission that needs other objects, and field management. */
export interface StoreHooks {
  /** Runs after validation, before a create is written (e.g. ClusterIP allocation). */
  admitCreate?(def: ResourceDefinition, obj: KubeObject): Promise<void>;
  /**
   * Checks a validated create (`old` undefined) or update of any subresource against who makes
   * it (RBAC escalation, NodeRestriction); throws to refuse. Runs before `admitCreate`.
   */
  admit?(def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, ctx: WriteContext): void;
  /** Checks a delete of a stored object against who makes it; throws to refuse. */
  admitDelete?(def: ResourceDefinition, obj: KubeObject, ctx: WriteContext): void;
  /** Computes managedFields for a non-apply write. */
  managedFields?(def: ResourceDefinition, live: KubeObject | undefined, updated: KubeObject, ctx: WriteContext): unknown[] | undefined;
  /**
   * Schema checks for custom resources and unknown-field handling; returns field errors.
   * `old` is the stored object on an update (CEL transition rules compare against it).
   */
  checkSchema?(def: ResourceDefinition, obj: KubeObject, ctx: WriteContext, old?: KubeObject): FieldError[];
  /** True when the namespace is known to be Active (a cache); false means "look it up". */
  namespaceActive?(name: string): boolean;
  /** Graceful pod deletion needs to know whether the node exists. */
  gracefulDeletionSeconds?(def: ResourceDefinition, obj: KubeObject, requested: number | undefined): Promise<number>;
}

interface ContinueToken {
  v: 'meta.k8s.io/v1';
  rv: number;
  start: string;
}

const maxPageFetch = 1000;

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start } satisfies ContinueToken)).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || !Number.isInteger(t.rv) || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw errors.badRequest(`continue: Invalid value: ${JSON.stringify(token)}: continue key is not valid`);
  }
}

function parseRv(value: string, field = 'resourceVersion'): number {
  if (!/^\d+$/.test(value)) throw errors.badRequest(`${field}: Invalid value: ${JSON.stringify(value)}: must be a non-negative integer`);
  return Number(value);
}

export function nowTimestamp(now = new Date()): string {
  return formatTimestamp(now);
}

/** The parts of an object that `generation` tracks: everything but metadata (and status, when it is a subresource). */
function specOf(obj: KubeObject, withStatusSubresource: boolean): KubeObject {
  const { metadata: _m, status, ...rest } = obj;
  return withStatusSubresource ? rest : { ...rest, status };
}

export class ObjectStore {
  private readonly servedPrefixes = new WeakMap<ResourceDefinition, string>();
  constructor(
    readonly backend: Backend,
    readonly registry: ResourceRegistry,
    private readonly hooks: StoreHooks = {},
  ) {}

  key(def: ResourceDefinition, namespace: string | undefined, name: string): string {
    return def.namespaced ? `/registry/${def.storagePrefix}/${namespace}/${name}` : `/registry/${def.storagePrefix}/${name}`;
  }

  prefix(def: ResourceDefinition, namespace?: string): string {
    return def.namespaced && namespace ? `/registry/${def.storagePrefix}/${namespace}/` : `/registry/${def.storagePrefix}/`;
  }

  /** Turns a stored row into the object as served at `def`'s version. */
  decode(def: ResourceDefinition, kv: KeyValue): KubeObject {
    let obj = JSON.parse(kv.value) as KubeObject;
    if (def.conversion) obj = def.conversion.fromStorage(obj);
    else obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;
    obj.metadata ??= {};
    if (def.crd && def.structural && def.schema) this.coerceStored(def, obj);
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  }

  /**
   * Custom resources are pruned and defaulted on every read too, as kube-apiserver's storage
   * decoder does (with the storage version's schema, then the served one's), so an object
   * stored before a default or a schema change reads as the schema now says.
   */
  private coerceStored(def: ResourceDefinition, obj: KubeObject): void {
    const served = def.schema!.root;
    const storageVersion = def.storageVersion.slice(def.group.length + 1);
    const storage = storageVersion === def.version ? served : this.registry.lookup(def.group, storageVersion, def.resource)?.schema?.root;
    if (storage && storage !== served) coerceCustomResource(obj, storage);
    coerceCustomResource(obj, served);
  }

  private encode(def: ResourceDefinition, obj: KubeObject): string {
    const converted = def.conversion ? def.conversion.toStorage(obj) : obj;
    const { apiVersion: _a, kind: _k, metadata, ...rest } = converted;
    const { resourceVersion: _rv, ...meta } = metadata ?? {};
    // apiVersion, kind and metadata lead, so that `served` can splice in the resourceVersion without parsing.
    return JSON.stringify({ apiVersion: def.conversion ? converted.apiVersion : def.storageVersion, kind: converted.kind ?? def.kind, metadata: meta, ...rest });
  }

  /**
   * The object as served, as JSON text, made from the stored text without parsing it when
   * the served version is the stored one: the resourceVersion is spliced in after
   * `"metadata":{`. Undefined when the object must be decoded (conversion, other version,
   * custom resources, which are pruned and defaulted on the way out).
   */
  served(def: ResourceDefinition, kv: KeyValue): string | undefined {
    if (def.conversion || def.storageVersion !== apiVersionOf(def) || (def.crd && def.structural && def.schema)) return undefined;
    let prefix = this.servedPrefixes.get(def);
    if (prefix === undefined) this.servedPrefixes.set(def, (prefix = `{"apiVersion":${JSON.stringify(def.storageVersion)},"kind":${JSON.stringify(def.kind)},"metadata":{`));
    const v = kv.value;
    if (!v.startsWith(prefix) || v.charCodeAt(prefix.length) === 125 /* } */) return undefined;
    return `${prefix}"resourceVersion":"${kv.modRevision}",${v.slice(prefix.length)}`;
  }

  /** The object just written, as served: `obj` itself with its new resourceVersion, unless it needs converting back. */
  private written(def: ResourceDefinition, obj: KubeObject, kv: KeyValue): KubeObject {
    if (def.conversion) return this.decode(def, kv);
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  }

  private mapStorageError(e: unknown): never {
    if (e instanceof CompactedError) throw errors.expired(`too old resource version: ${e.requested} (${e.compactRevision})`);
    if (e instanceof FutureRevisionError) throw new ApiError(504, 'Timeout', `Too large resource version: ${e.requested}, current: ${e.currentRevision}`, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
    throw e;
  }

  async getRaw(def: ResourceDefinition, namespace: string | undefined, name: string): Promise<KeyValue | undefined> {
    return this.backend.get(this.key(def, namespace, name));
  }

  async get(def: ResourceDefinition, namespace: string | undefined, name: string): Promise<KubeObject> {
    const kv = await this.getRaw(def, namespace, name);
    if (!kv) throw errors.notFound(def, name);
    return this.decode(def, kv);
  }

  async list(def: ResourceDefinition, namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult> {
    const prefix = this.prefix(def, namespace);
    let revision = 0;
    let startAfter: string | undefined;
    if (opts.continueToken) {
      if (opts.resourceVersion && opts.resourceVersion !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
      const token = decodeContinue(opts.continueToken);
      revision = token.rv;
      startAfter = prefix + token.start;
      const compacted = await this.backend.compactRevision();
      if (revision <= compacted) {
        throw errors.expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
      }
    } else if (opts.resourceVersion && opts.resourceVersion !== '0') {
      const rv = parseRv(opts.resourceVersion);
      if (opts.resourceVersionMatch === 'Exact') revision = rv;
      else {
        const current = await this.backend.currentRevision();
        if (rv > current) this.mapStorageError(new FutureRevisionError(rv, current));
      }
    } else if (opts.resourceVersionMatch === 'Exact') {
      throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const items: KubeObject[] = [];
    const rawItems: string[] | undefined = opts.raw && !opts.matcher ? [] : undefined;
    const collected = (): number => (rawItems ? rawItems.length : items.length);
    let lastKey: string | undefined;
    let more = false;
    let remaining: number | undefined;
    try {
      for (;;) {
        const want = limit ? Math.min(maxPageFetch, Math.max(limit - collected(), opts.matcher ? 64 : 1)) : 0;
        const page = await this.backend.list(prefix, { revision, startAfter, limit: want });
        revision = page.revision;
        let stoppedEarly = false;
        for (let i = 0; i < page.kvs.length; i++) {
          const kv = page.kvs[i]!;
          startAfter = kv.key;
          if (rawItems) {
            rawItems.push(this.served(def, kv) ?? JSON.stringify(this.decode(def, kv)));
          } else {
            const obj = this.decode(def, kv);
            if (opts.matcher && !opts.matcher(obj)) continue;
            items.push(obj);
          }
          lastKey = kv.key;
          if (limit && collected() >= limit) {
            stoppedEarly = i < page.kvs.length - 1 || page.more;
            // remainingItemCount is optional; it is sent only when the store counted it.
            if (stoppedEarly && !opts.matcher && page.remaining !== undefined) remaining = page.remaining + (page.kvs.length - 1 - i);
            break;
          }
        }
        if (limit && collected() >= limit) {
          more = stoppedEarly;
          break;
        }
        if (!page.more || !want) break;
      }
    } catch (e) {
      this.mapStorageError(e);
    }
    const result: ListResult = { items, rawItems, resourceVersion: String(revision) };
    if (more && lastKey) return { ...result, continueToken: encodeContinue(revision, lastKey.slice(prefix.length)), remainingItemCount: remaining };
    return result;
  }

  private async checkNamespace(def: ResourceDefinition, namespace: string | undefined): Promise<void> {
    if (!def.namespaced || !namespace || this.hooks.namespaceActive?.(namespace)) return;
    const kv = await this.backend.get(`/registry/core/namespaces/${namespace}`);
    if (!kv) throw errors.notFound({ resource: 'namespaces', group: '' }, namespace);
    const ns = JSON.parse(kv.value) as KubeObject;
    if (ns.metadata?.deletionTimestamp || ns.status?.phase === 'Terminating') {
      throw errors.forbidden(def, '', `unable to create new content in namespace ${namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
      ]);
    }
  }

  private invalid(def: ResourceDefinition, name: string, errs: FieldError[]): never {
    throw errors.invalid(def.kind, def.group, name, errs);
  }

  async create(def: ResourceDefinition, namespace: string | undefined, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    return (await this.createServed(def, namespace, input, ctx)).object;
  }

  /**
   * `create`, also returning the created object as served JSON text when it can be spliced from
   * the stored text (see `served`), so the create handler need not serialize it again. With
   * `owned`, the caller hands `input` over (a request body parsed for this call) and it becomes
   * the created object instead of a copy.
   */
  async createServed(
    def: ResourceDefinition,
    namespace: string | undefined,
    input: KubeObject,
    ctx: WriteContext,
    opts: { owned?: boolean } = {},
  ): Promise<{ object: KubeObject; text?: string }> {
    const obj = opts.owned ? input : structuredClone(input);
    obj.metadata ??= {};
    const meta = obj.metadata;
    if (def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) meta.name = generateName(meta.generateName);
    await this.checkNamespace(def, namespace);
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (def.strategy.tracksGeneration || def.crd) meta.generation = 1;
    else delete meta.generation;
    obj.apiVersion = apiVersionOf(def);
    obj.kind = def.kind;
    def.strategy.prepareForCreate?.(obj, ctx.user);
    if (def.crd && def.subresources.status) delete obj.status;
    const errs = [...validateObjectMeta(obj, { namespaced: def.namespaced, nameRule: def.strategy.nameRule })];
    errs.push(...(this.hooks.checkSchema?.(def, obj, ctx) ?? []));
    if (!errs.length) errs.push(...(def.strategy.validate?.(obj) ?? []));
    if (errs.length) this.invalid(def, meta.name ?? meta.generateName ?? '', errs);
    ctx.warnings?.push(...(def.strategy.warningsOnCreate?.(obj) ?? []));
    this.hooks.admit?.(def, obj, undefined, ctx);
    await this.hooks.admitCreate?.(def, obj);
    const managed = this.hooks.managedFields?.(def, undefined, obj, ctx);
    if (managed?.length) meta.managedFields = managed;
    else delete meta.managedFields;
    if (ctx.dryRun) {
      // As kube's dry-run storage: a create that would collide still fails.
      if (await this.backend.get(this.key(def, namespace, meta.name))) throw errors.alreadyExists(def, meta.name);
      return { object: obj };
    }
    const res = await this.backend.create(this.key(def, namespace, meta.name), this.encode(def, obj));
    if (!res.ok) throw errors.alreadyExists(def, meta.name);
    return { object: this.written(def, obj, res.kv), text: this.served(def, res.kv) };
  }

  /**
   * Applies an update computed from the stored object. `next` receives a private copy of
   * the current object and returns the desired object (or throws). Retries on conflict unless
   * the desired object carries a resourceVersion precondition.
   */
  async guaranteedUpdate(
    def: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    ctx: WriteContext,
    next: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    opts: { createIfMissing?: (() => Promise<KubeObject>) | undefined; attempts?: number } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const attempts = opts.attempts ?? 10;
    for (let attempt = 0; ; attempt++) {
      const kv = await this.getRaw(def, namespace, name);
      if (!kv) {
        if (opts.createIfMissing) {
          const desired = await opts.createIfMissing();
          try {
            return { object: await this.create(def, namespace, desired, ctx), created: true };
          } catch (e) {
            if (isAlreadyExists(e) && attempt < attempts) continue;
            throw e;
          }
        }
        throw errors.notFound(def, name);
      }
      const current = this.decode(def, kv);
      const desired = await next(structuredClone(current));
      const precondition = desired.metadata?.resourceVersion;
      try {
        return { object: await this.commitUpdate(def, current, kv, desired, ctx), created: false };
      } catch (e) {
        if (e instanceof ApiError && e.reason === 'Conflict' && !precondition && attempt < attempts && e.details?.causes === undefined) continue;
        throw e;
      }
    }
  }

  /** PUT: a full replacement, optionally creating (kube allows create-on-update for some kinds; not here). */
  async update(def: ResourceDefinition, namespace: string | undefined, name: string, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    const kv = await this.getRaw(def, namespace, name);
    if (!kv) throw errors.notFound(def, name);
    const current = this.decode(def, kv);
    const rv = input.metadata?.resourceVersion;
    if (!rv && !def.strategy.allowUnconditionalUpdate && !ctx.subresource) {
      this.invalid(def, name, [{ type: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update' }]);
    }
    return this.commitUpdate(def, current, kv, structuredClone(input), ctx);
  }

  /** The update write path: strategy, generation, validation, managed fields, compare-and-swap. */
  async commitUpdate(def: ResourceDefinition, current: KubeObject, kv: KeyValue, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    const name = current.metadata.name as string;
    const precondition = input.metadata?.resourceVersion;
    if (precondition && precondition !== current.metadata.resourceVersion) throw errors.conflict(def, name);
    if (input.metadata?.uid && input.metadata.uid !== current.metadata.uid) {
      throw errors.conflict(def, name, `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    let obj: KubeObject;
    if (ctx.subresource === 'binding') {
      // A binding sets the node directly, as kube's binding REST does: pod spec immutability does not apply.
      obj = structuredClone(current);
      obj.spec = { ...(obj.spec ?? {}), nodeName: input.spec?.nodeName };
      obj.status = input.status;
    } else if (ctx.subresource === 'finalize') {
      obj = structuredClone(current);
      obj.spec = { ...(obj.spec ?? {}), finalizers: input.spec?.finalizers ?? [] };
    } else if (ctx.subresource === 'status') {
      obj = structuredClone(current);
      obj.status = input.status;
      // Status writers may maintain labels/annotations as kube allows; everything else is kept.
      if (input.metadata?.managedFields) obj.metadata.managedFields = input.metadata.managedFields;
      def.strategy.prepareForStatusUpdate?.(obj, current);
    } else if (ctx.subresource === 'approval') {
      // As kube's approval strategy: only the conditions come from the request.
      obj = structuredClone(current);
      obj.status = { ...(obj.status ?? {}), conditions: input.status?.conditions };
      if (obj.status.conditions === undefined) delete obj.status.conditions;
      def.strategy.prepareForApprovalUpdate?.(obj, current);
    } else {
      obj = input;
      obj.metadata ??= {};
      obj.apiVersion = apiVersionOf(def);
      obj.kind = def.kind;
      def.strategy.prepareForUpdate?.(obj, current);
      if (def.subresources.status && def.crd) {
        if (current.status === undefined) delete obj.status;
        else obj.status = current.status;
      }
    }
    const meta = obj.metadata;
    const old = current.metadata;
    for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
      if (old[f] === undefined) delete meta[f];
      else meta[f] = old[f];
    }
    if (def.namespaced) meta.namespace ??= old.namespace;
    meta.name ??= old.name;
    meta.resourceVersion = current.metadata.resourceVersion;
    if (old.generation !== undefined) {
      const changed = !isDeepStrictEqual(specOf(obj, !!def.subresources.status), specOf(current, !!def.subresources.status));
      meta.generation = old.generation + (changed && ctx.subresource !== 'status' && ctx.subresource !== 'approval' ? 1 : 0);
    }
    const errs = [...validateMetaUpdate(obj, current)];
    if (ctx.subresource === 'binding') {
      // nothing beyond metadata: the node name was checked by the binding handler
    } else if (ctx.subresource === 'status') {
      // As kube's status strategy for custom resources: the whole object is pruned, defaulted
      // and validated against the schema (CEL rules included), though only status changed.
      if (def.crd) errs.push(...(this.hooks.checkSchema?.(def, obj, ctx, current) ?? []));
      errs.push(...(def.strategy.validateStatusUpdate?.(obj, current) ?? []));
    } else if (ctx.subresource === 'approval') errs.push(...(def.strategy.validateApprovalUpdate?.(obj, current) ?? []));
    else if (ctx.subresource === 'finalize') errs.push(...validateFinalizerNames(obj.spec.finalizers, 'spec.finalizers'));
    else {
      errs.push(...validateObjectMeta(obj, { namespaced: def.namespaced, nameRule: def.strategy.nameRule }));
      errs.push(...(this.hooks.checkSchema?.(def, obj, ctx, current) ?? []));
      if (!errs.length) errs.push(...(def.strategy.validateUpdate?.(obj, current) ?? []));
    }
    if (errs.length) this.invalid(def, name, errs);
    if (!ctx.subresource) ctx.warnings?.push(...(def.strategy.warningsOnUpdate?.(obj, current) ?? []));
    this.hooks.admit?.(def, obj, current, ctx);
    const managed = this.hooks.managedFields?.(def, current, obj, ctx);
    if (managed) meta.managedFields = managed;
    else if (managed === undefined && current.metadata.managedFields && !meta.managedFields) meta.managedFields = current.metadata.managedFields;
    if (ctx.dryRun) return obj;
    // A graceful deletion (a pod waiting for its kubelet) is finished by a DELETE with grace 0, not by an update.
    const finishing = meta.deletionTimestamp && !(meta.deletionGracePeriodSeconds > 0) && (!meta.finalizers || meta.finalizers.length === 0) && !(def.strategy.pendingFinalizers?.(obj).length);
    if (finishing) {
      const res = await this.backend.delete(kv.key, kv.modRevision);
      if (!res.ok) {
        if (!res.current) throw errors.notFound(def, name);
        throw errors.conflict(def, name);
      }
      meta.resourceVersion = String(res.revision);
      return obj;
    }
    if (isDeepStrictEqual(withoutVolatile(obj), withoutVolatile(current))) return current;
    const res = await this.backend.update(kv.key, this.encode(def, obj), kv.modRevision);
    if (!res.ok) {
      if (!res.current) throw errors.notFound(def, name);
      throw errors.conflict(def, name);
    }
    return this.written(def, obj, res.kv);
  }

  /**
   * DELETE: honours preconditions, graceful pod deletion, finalizers and the propagation
   * policy (Foreground and Orphan are finalizers the garbage collector acts on).
   * Returns the object and whether it is gone from storage.
   */
  async delete(def: ResourceDefinition, namespace: string | undefined, name: string, options: DeleteOptions, ctx: WriteContext): Promise<{ object: KubeObject; deleted: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const kv = await this.getRaw(def, namespace, name);
      if (!kv) throw errors.notFound(def, name);
      const current = this.decode(def, kv);
      const pre = options.preconditions ?? {};
      if (pre.uid && pre.uid !== current.metadata.uid) {
        throw errors.conflict(def, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
      }
      if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw errors.conflict(def, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
      }
      this.hooks.admitDelete?.(def, current, ctx);
      const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : options.orphanDependents === false ? 'Background' : def.strategy.defaultPropagationPolicy);
      const obj = structuredClone(current);
      const meta = obj.metadata;
      const finalizers = new Set<string>(meta.finalizers ?? []);
      if (policy === 'Foreground') {
        finalizers.delete('orphan');
        finalizers.add('foregroundDeletion');
      } else if (policy === 'Orphan') {
        finalizers.delete('foregroundDeletion');
        finalizers.add('orphan');
      } else if (policy === 'Background' && !meta.deletionTimestamp) {
        finalizers.delete('orphan');
        finalizers.delete('foregroundDeletion');
      }
      const grace = (await this.hooks.gracefulDeletionSeconds?.(def, current, options.gracePeriodSeconds)) ?? 0;
      const pending = def.strategy.pendingFinalizers?.(current) ?? [];
      if (finalizers.size === 0 && grace === 0 && pending.length === 0) {
        if (ctx.dryRun) return { object: current, deleted: true };
        const res = await this.backend.delete(kv.key, kv.modRevision);
        if (res.ok) return { object: current, deleted: true };
        if (!res.current) throw errors.notFound(def, name);
        if (attempt < 10) continue;
        throw errors.conflict(def, name);
      }
      const now = Date.now();
      const wasDeleting = !!meta.deletionTimestamp;
      const deadline = wasDeleting ? Date.parse(meta.deletionTimestamp) : Infinity;
      if (!wasDeleting || now + grace * 1000 < deadline) {
        meta.deletionTimestamp = nowTimestamp(new Date(now + grace * 1000));
        meta.deletionGracePeriodSeconds = grace;
      }
      meta.finalizers = finalizers.size ? [...finalizers] : undefined;
      if (meta.finalizers === undefined) delete meta.finalizers;
      if (!wasDeleting && meta.generation !== undefined) meta.generation += 1;
      if (!wasDeleting) def.strategy.prepareForDelete?.(obj);
      if (isDeepStrictEqual(obj, current)) return { object: current, deleted: false };
      if (ctx.dryRun) return { object: obj, deleted: false };
      const res = await this.backend.update(kv.key, this.encode(def, obj), kv.modRevision);
      if (res.ok) return { object: this.decode(def, res.kv), deleted: false };
      if (!res.current) throw errors.notFound(def, name);
      if (attempt < 10) continue;
      throw errors.conflict(def, name);
    }
  }

  /** Removes a finalizer (no-op when absent); the write that empties the list removes the object. */
  async removeFinalizer(def: ResourceDefinition, namespace: string | undefined, name: string, finalizer: string, manager: string): Promise<void> {
    try {
      await this.guaranteedUpdate(def, namespace, name, { manager }, (obj) => {
        obj.metadata.finalizers = (obj.metadata.finalizers ?? []).filter((f: string) => f !== finalizer);
        if (!obj.metadata.finalizers.length) delete obj.metadata.finalizers;
        delete obj.metadata.resourceVersion;
        return obj;
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

/** What an update compares to decide it is a no-op: everything but managedFields timestamps. */
function withoutVolatile(obj: KubeObject): KubeObject {
  const { metadata, ...rest } = obj;
  const { managedFields, resourceVersion: _rv, ...meta } = metadata ?? {};
  const fields = Array.isArray(managedFields) ? managedFields.map((m: KubeObject) => ({ ...m, time: undefined })) : managedFields;
  return { ...rest, metadata: { ...meta, managedFields: fields } };
}

export type { LabelMatcher, ObjectMatcher };
