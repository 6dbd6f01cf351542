/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition as it arrives on the wire: every
 * field optional, since validation is what finds the missing ones.
 */
import type { JSONSchemaProps } from '../../api/schema.ts';

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: Array<{ jsonPath?: string }>;
}

export interface CustomResourceConversion {
  strategy?: string;
  webhook?: { clientConfig?: Record<string, unknown>; conversionReviewVersions?: string[] };
}

export interface CustomResourceDefinitionSpec {
  group?: string;
  names?: CustomResourceDefinitionNames;
  scope?: string;
  versions?: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinition {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; annotations?: Record<string, string>; [k: string]: unknown };
  spec?: CustomResourceDefinitionSpec;
  status?: { conditions?: Array<{ type?: string; status?: string }>; [k: string]: unknown };
}
