/**
 * What the server knows about one served resource (a group/version/resource): its names and
 * scope for discovery, where it lives in storage, which subresources it has, and the small
 * per-kind strategy the generic store calls. Built-ins and custom resources are described
 * the same way, so one generic store, one discovery builder and one router serve both.
 */
import type { FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps, SchemaResolver } from '../../api/schema.ts';

// Objects on the wire are arbitrary JSON documents; strategies narrow what they touch.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = Record<string, any>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** How `/scale` maps onto the object (JSON paths as in a CRD's `subresources.scale`). */
export interface ScaleMapping {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export interface Subresources {
  readonly status?: boolean;
  readonly scale?: ScaleMapping;
  readonly eviction?: boolean;
  readonly binding?: boolean;
  readonly log?: boolean;
  readonly finalize?: boolean;
  /** `serviceaccounts/token` (TokenRequest). */
  readonly token?: boolean;
  /** `certificatesigningrequests/approval`: the Approved/Denied conditions only. */
  readonly approval?: boolean;
}

/** Who makes a write, as a strategy may record it (a CSR keeps its requester). */
export interface RequestUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export type FieldAccessor = (obj: KubeObject) => string | undefined;

export interface Strategy {
  /** Defaults and normalisation before a create is validated (mutates `obj`); `user` is the requester, absent for the server's own writes. */
  prepareForCreate?(obj: KubeObject, user?: RequestUser): void;
  validate?(obj: KubeObject): FieldError[];
  /** Normalisation of a main-resource update, given the stored object (mutates `obj`). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * Warnings about a create that passed validation (kube's WarningsOnCreate): what is accepted
   * but probably not meant, told to the client as `Warning` headers, which kubectl prints.
   */
  warningsOnCreate?(obj: KubeObject): string[];
  /** Warnings about a main-resource update that passed validation (kube's WarningsOnUpdate). */
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /** Normalisation of a `/status` write, after the store kept everything but status (mutates `obj`). */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Validation of a `/status` write. */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Normalisation and validation of an `/approval` write, after the store kept everything but the conditions. */
  prepareForApprovalUpdate?(obj: KubeObject, old: KubeObject): void;
  validateApprovalUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Finalizers outside metadata that also hold a deleted object (a namespace's `spec.finalizers`). */
  pendingFinalizers?(obj: KubeObject): readonly string[];
  /** Marks an object whose deletion has begun (a namespace becomes Terminating). */
  prepareForDelete?(obj: KubeObject): void;
  /** The DNS rule the object's name must satisfy. */
  readonly nameRule?: 'subdomain' | 'label' | 'label1035' | 'path';
  /** Whether a PUT without `metadata.resourceVersion` is allowed (true for most built-ins). */
  readonly allowUnconditionalUpdate?: boolean;
  /** Whether `metadata.generation` is maintained. */
  readonly tracksGeneration?: boolean;
  /** The propagation policy of a DELETE that names none (batch/v1 Jobs orphan their pods, for compatibility). */
  readonly defaultPropagationPolicy?: 'Orphan';
}

export interface SchemaRef {
  readonly root: JSONSchemaProps;
  readonly resolve: SchemaResolver;
}

/** A conversion between the served form and the stored form of an object (same storage, other version). */
export interface Conversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

export interface ResourceDefinition {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly listKind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Storage key segment shared by every version of the resource, e.g. `apps/deployments`. */
  readonly storagePrefix: string;
  /** The apiVersion objects are stored at. */
  readonly storageVersion: string;
  readonly subresources: Subresources;
  readonly strategy: Strategy;
  /** Fields that `fieldSelector` may name, beyond metadata.name and metadata.namespace. */
  readonly fieldAccessors: Readonly<Record<string, FieldAccessor>>;
  /** The schema that drives validation (CRDs), strategic merge and managedFields. */
  readonly schema?: SchemaRef;
  /** Built-ins accept strategic merge patches; custom resources do not. */
  readonly strategicMerge: boolean;
  /** Whether the resource is served at this version (CRD versions can be unserved). */
  readonly served: boolean;
  readonly conversion?: Conversion;
  /** Set for custom resources: the CRD that defines them. */
  readonly crd?: { readonly name: string; readonly uid: string };
  /** OpenAPI component name of the kind (built-ins) or the inline schema's name (CRDs). */
  readonly openApiName?: string;
  /** Whether to validate and prune custom resources against `schema`. */
  readonly structural?: boolean;
  /** Printer columns for custom resources. */
  readonly printerColumns?: readonly PrinterColumn[];
  /**
   * The verbs served, when not all of them: `['create']` for the review APIs, which answer a
   * question and store nothing (kube's NamedCreater-only REST storage).
   */
  readonly verbs?: readonly string[];
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  readonly jsonPath: string;
}

export function apiVersionOf(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function gvrKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
