/**
 * The schemas client-node's models cannot express: Kubernetes types that marshal as a
 * scalar or as free-form JSON (Time, MicroTime, IntOrString, Quantity, FieldsV1, the
 * JSONSchemaProps helper types), and the model properties that use them where client-node
 * says only `string`, `Date` or `any`.
 */
import type { JSONSchemaProps } from '../schema.ts';
import { pkg } from './model-names.ts';

/** The prefix of references between components in OpenAPI v3 documents. */
export const componentsPrefix = '#/components/schemas/';

export const componentRef = (name: string): JSONSchemaProps => ({ $ref: `${componentsPrefix}${name}` });

export const names = {
  time: `${pkg.meta}.Time`,
  microTime: `${pkg.meta}.MicroTime`,
  fieldsV1: `${pkg.meta}.FieldsV1`,
  patch: `${pkg.meta}.Patch`,
  objectMeta: `${pkg.meta}.ObjectMeta`,
  listMeta: `${pkg.meta}.ListMeta`,
  status: `${pkg.meta}.Status`,
  deleteOptions: `${pkg.meta}.DeleteOptions`,
  intOrString: `${pkg.intstr}.IntOrString`,
  quantity: `${pkg.resource}.Quantity`,
  json: `${pkg.apiextensions}.JSON`,
  propsOrArray: `${pkg.apiextensions}.JSONSchemaPropsOrArray`,
  propsOrBool: `${pkg.apiextensions}.JSONSchemaPropsOrBool`,
  propsOrStringArray: `${pkg.apiextensions}.JSONSchemaPropsOrStringArray`,
  subresourceStatus: `${pkg.apiextensions}.CustomResourceSubresourceStatus`,
} as const;

/** Components that no client-node class stands for. */
export const specialComponents: Readonly<Record<string, JSONSchemaProps>> = {
  [names.time]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, to the second (e.g. 2024-05-01T12:00:00Z).' },
  [names.microTime]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form with microseconds (e.g. 2024-05-01T12:00:00.000000Z).' },
  [names.fieldsV1]: { type: 'object', description: 'The set of fields a manager owns, as a trie of `f:<name>`, `k:<keys>`, `v:<value>` and `i:<index>` keys.' },
  [names.patch]: { type: 'object', description: 'The body of a PATCH request; its form depends on the request\'s Content-Type.' },
  [names.intOrString]: {
    type: 'string',
    format: 'int-or-string',
    'x-kubernetes-int-or-string': true,
    description: 'Either an integer or a string, such as a port number or name, or a count or percentage.',
  },
  [names.quantity]: {
    oneOf: [{ type: 'string' }, { type: 'number' }],
    description: 'A decimal amount with an optional SI or binary suffix, such as 500m, 2, 1.5Gi or 1e3.',
  },
  [names.json]: { description: 'Any JSON value.', 'x-kubernetes-preserve-unknown-fields': true },
  [names.propsOrArray]: { description: 'A schema, or an array of schemas (one per position).', 'x-kubernetes-preserve-unknown-fields': true },
  [names.propsOrBool]: { description: 'A schema, or a boolean that allows (true) or forbids (false) any value.', 'x-kubernetes-preserve-unknown-fields': true },
  [names.propsOrStringArray]: { description: 'A schema, or a list of property names.', 'x-kubernetes-preserve-unknown-fields': true },
  [names.subresourceStatus]: {
    type: 'object',
    description: 'Enables the status subresource: writes to the main resource ignore `status`, and `/status` writes change only `status`. Has no fields.',
  },
};

const quantity = componentRef(names.quantity);
const quantityMap: JSONSchemaProps = { type: 'object', additionalProperties: quantity };

/** Property schemas that replace what client-node's attribute types would give, by definition name and wire name. */
export const propertyOverrides: Readonly<Record<string, Readonly<Record<string, JSONSchemaProps>>>> = {
  [`${pkg.core}.ResourceRequirements`]: { limits: quantityMap, requests: quantityMap },
  [`${pkg.core}.VolumeResourceRequirements`]: { limits: quantityMap, requests: quantityMap },
  [`${pkg.core}.NodeStatus`]: { capacity: quantityMap, allocatable: quantityMap },
  [`${pkg.core}.PodSpec`]: { overhead: quantityMap },
  [`${pkg.core}.PodStatus`]: { allocatedResources: quantityMap },
  [`${pkg.core}.ContainerStatus`]: { allocatedResources: quantityMap },
  [`${pkg.core}.EmptyDirVolumeSource`]: { sizeLimit: quantity },
  [`${pkg.core}.ResourceFieldSelector`]: { divisor: quantity },
  [`${pkg.meta}.ManagedFieldsEntry`]: { fieldsV1: componentRef(names.fieldsV1) },
  [`${pkg.apiextensions}.CustomResourceSubresources`]: { status: componentRef(names.subresourceStatus) },
  [`${pkg.apiextensions}.JSONSchemaProps`]: {
    items: componentRef(names.propsOrArray),
    additionalProperties: componentRef(names.propsOrBool),
    additionalItems: componentRef(names.propsOrBool),
    default: componentRef(names.json),
    example: componentRef(names.json),
    enum: { type: 'array', items: componentRef(names.json) },
    dependencies: { type: 'object', additionalProperties: componentRef(names.propsOrStringArray) },
  },
};
