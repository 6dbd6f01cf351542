/**
 * One declaration per custom resource kind: its names, scope, spec and status schemas and
 * printer columns produce the apiextensions.k8s.io/v1 CustomResourceDefinition manifest, the
 * REST coordinates controllers address it by, and (through `ResourceOf`) its TypeScript type.
 */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { JSONSchemaProps } from '../schema.ts';
import type { Schema, Validation } from './schema-builder.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

/** The manifest as this module writes it: every field the API server needs is present. */
export interface CustomResourceDefinitionManifest {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: { plural: string; singular: string; kind: string; listKind: string; shortNames?: string[]; categories?: string[] };
    scope: 'Cluster' | 'Namespaced';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema: { openAPIV3Schema: JSONSchemaProps };
      subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
      additionalPrinterColumns?: PrinterColumn[];
    }>;
  };
}

/** Where `/scale` finds the replica counts and the selector (`kubectl scale`, autoscalers). */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** A path to a string selector (`a=b,c in (d)`), as HorizontalPodAutoscalers read it. */
  readonly labelSelectorPath?: string;
}

export interface CustomResourceOptions<Spec, Status> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** Defaults to the lower-cased kind. */
  readonly singular?: string;
  readonly shortNames?: readonly string[];
  /** Groupings `kubectl get <category>` lists together. */
  readonly categories?: readonly string[];
  readonly scope: 'Cluster' | 'Namespaced';
  readonly description?: string;
  /** Annotations on the CRD object itself (e.g. the release-profile inclusion annotation). */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly spec: Schema<Spec>;
  /** Whether the schema lists `spec` as required; default true (OpenShift's MachineConfig does not). */
  readonly specRequired?: boolean;
  readonly status?: Schema<Status>;
  /** Whether `status` is a subresource (written only through `/status`); default true when there is a status. */
  readonly statusSubresource?: boolean;
  readonly scale?: ScaleSubresource;
  readonly printerColumns?: readonly PrinterColumn[];
  /** CEL rules on the whole object. */
  readonly rules?: readonly Validation[];
}

/** A custom resource kind: where it lives in the API and the CRD that serves it. */
export interface CustomResourceKind<Spec, Status> {
  readonly group: string;
  readonly version: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The plural, as in the REST path (`ResourceRef.resource` in runtime/resources.ts). */
  readonly resource: string;
  readonly namespaced: boolean;
  readonly crd: CustomResourceDefinitionManifest;
  readonly spec: Schema<Spec>;
  readonly status: Schema<Status> | undefined;
}

/** An object of a kind, shaped as @kubernetes/client-node shapes the built-in kinds. */
export interface CustomResource<Spec, Status> {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type ResourceOf<K> = K extends CustomResourceKind<infer Spec, infer Status> ? CustomResource<Spec, Status> : never;

export function defineCustomResource<Spec, Status = never>(opts: CustomResourceOptions<Spec, Status>): CustomResourceKind<Spec, Status> {
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'The REST resource this object represents.' },
    metadata: { type: 'object' },
    spec: opts.spec.json,
  };
  if (opts.status) properties.status = opts.status.json;
  const root: JSONSchemaProps = { type: 'object', properties };
  if (opts.specRequired ?? true) root.required = ['spec'];
  if (opts.description) root.description = opts.description;
  if (opts.rules?.length) root['x-kubernetes-validations'] = opts.rules.map((r) => ({ ...r }));

  const version: CustomResourceDefinitionManifest['spec']['versions'][number] = {
    name: opts.version,
    served: true,
    storage: true,
    schema: { openAPIV3Schema: root },
  };
  if (opts.status && (opts.statusSubresource ?? true)) version.subresources = { status: {} };
  if (opts.scale) version.subresources = { ...version.subresources, scale: { ...opts.scale } };
  if (opts.printerColumns?.length) version.additionalPrinterColumns = opts.printerColumns.map((c) => ({ ...c }));

  const names: CustomResourceDefinitionManifest['spec']['names'] = {
    plural: opts.plural,
    singular: opts.singular ?? opts.kind.toLowerCase(),
    kind: opts.kind,
    listKind: `${opts.kind}List`,
  };
  if (opts.shortNames?.length) names.shortNames = [...opts.shortNames];
  if (opts.categories?.length) names.categories = [...opts.categories];

  const metadata: CustomResourceDefinitionManifest['metadata'] = { name: `${opts.plural}.${opts.group}` };
  if (opts.annotations) metadata.annotations = { ...opts.annotations };

  return {
    group: opts.group,
    version: opts.version,
    apiVersion: `${opts.group}/${opts.version}`,
    kind: opts.kind,
    resource: opts.plural,
    namespaced: opts.scope === 'Namespaced',
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata,
      spec: { group: opts.group, names, scope: opts.scope, versions: [version] },
    },
    spec: opts.spec,
    status: opts.status,
  };
}
