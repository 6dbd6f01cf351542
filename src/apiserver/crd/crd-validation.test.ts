import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultCustomResourceDefinition, validateCustomResourceDefinition } from './crd-validation.ts';
import type { CustomResourceDefinition } from './types.ts';

// Tests reach into the fixture freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

function widgetCrd(): Any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    replicas: { type: 'integer', default: 1, minimum: 0 },
                    selector: { type: 'string' },
                    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
          selectableFields: [{ jsonPath: '.spec.selector' }],
        },
      ],
      conversion: { strategy: 'None' },
    },
  };
}

const v0 = 'spec.versions[0]';
const root = `${v0}.schema.openAPIV3Schema`;
const specProps = `${root}.properties[spec].properties`;
const schemaOf = (c: Any): Any => c.spec.versions[0].schema.openAPIV3Schema;
const specOf = (c: Any): Any => schemaOf(c).properties.spec;
const dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function messages(crd: CustomResourceDefinition, old?: CustomResourceDefinition): string[] {
  return validateCustomResourceDefinition(crd, old).map((e) => e.message);
}

describe('defaultCustomResourceDefinition', () => {
  const cases: Array<{ name: string; mutate: (c: Any) => void; check: (c: Any) => void }> = [
    { name: 'singular from kind', mutate: (c) => delete c.spec.names.singular, check: (c) => assert.equal(c.spec.names.singular, 'widget') },
    { name: 'listKind from kind', mutate: (c) => delete c.spec.names.listKind, check: (c) => assert.equal(c.spec.names.listKind, 'WidgetList') },
    { name: 'conversion None', mutate: (c) => delete c.spec.conversion, check: (c) => assert.deepEqual(c.spec.conversion, { strategy: 'None' }) },
    { name: 'given names are kept', mutate: (c) => { c.spec.names.singular = 'wdg'; c.spec.names.listKind = 'Widgets'; }, check: (c) => assert.deepEqual([c.spec.names.singular, c.spec.names.listKind], ['wdg', 'Widgets']) },
    { name: 'no listKind without kind', mutate: (c) => { delete c.spec.names.kind; delete c.spec.names.listKind; }, check: (c) => assert.equal(c.spec.names.listKind, undefined) },
    { name: 'scope is not defaulted (v1 requires it)', mutate: (c) => delete c.spec.scope, check: (c) => assert.equal(c.spec.scope, undefined) },
    { name: 'versions are untouched', mutate: () => {}, check: (c) => assert.deepEqual(c.spec.versions, widgetCrd().spec.versions) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const crd = widgetCrd();
      c.mutate(crd);
      defaultCustomResourceDefinition(crd);
      c.check(crd);
    });
  }
});

const invalid: Array<{ name: string; mutate: (c: Any) => void; want: string[] }> = [
  // metadata and names
  { name: 'name must be plural.group', mutate: (c) => (c.metadata.name = 'gadgets.example.com'), want: ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group'] },
  { name: 'group required', mutate: (c) => { c.spec.group = ''; c.metadata.name = 'widgets.'; }, want: ['spec.group: Required value'] },
  { name: 'group needs a dot', mutate: (c) => { c.spec.group = 'example'; c.metadata.name = 'widgets.example'; }, want: ['spec.group: Invalid value: "example": should be a domain with at least one dot'] },
  {
    name: 'group is a DNS subdomain',
    mutate: (c) => { c.spec.group = 'Example.com'; c.metadata.name = 'widgets.Example.com'; },
    want: ['spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'],
  },
  { name: 'plural required', mutate: (c) => { c.spec.names.plural = ''; c.metadata.name = '.example.com'; }, want: ['spec.names.plural: Required value'] },
  { name: 'kind required', mutate: (c) => { c.spec.names.kind = ''; }, want: ['spec.names.kind: Required value'] },
  { name: 'plural is a DNS-1035 label', mutate: (c) => { c.spec.names.plural = 'Widgets'; c.metadata.name = 'Widgets.example.com'; }, want: [`spec.names.plural: Invalid value: "Widgets": ${dns1035}`] },
  { name: 'singular is a DNS-1035 label', mutate: (c) => (c.spec.names.singular = 'a_b'), want: [`spec.names.singular: Invalid value: "a_b": ${dns1035}`] },
  { name: 'kind may have mixed case only', mutate: (c) => (c.spec.names.kind = 'Wid get'), want: [`spec.names.kind: Invalid value: "Wid get": may have mixed case, but should otherwise match: ${dns1035}`] },
  { name: 'kind and listKind differ', mutate: (c) => (c.spec.names.listKind = 'Widget'), want: ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same'] },
  { name: 'short names', mutate: (c) => (c.spec.names.shortNames = ['ok', 'NO']), want: [`spec.names.shortNames[1]: Invalid value: "NO": ${dns1035}`] },
  { name: 'scope required', mutate: (c) => delete c.spec.scope, want: ['spec.scope: Required value'] },
  { name: 'scope values', mutate: (c) => (c.spec.scope = 'Global'), want: ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'] },
  // versions
  { name: 'versions required', mutate: (c) => (c.spec.versions = []), want: ['spec.versions: Invalid value: []: must have exactly one version marked as storage version'] },
  {
    name: 'unique version names, one storage version',
    mutate: (c) => c.spec.versions.push(structuredClone(c.spec.versions[0])),
    want: ['spec.versions: Invalid value: ["v1","v1"]: must contain unique version names', 'spec.versions: Invalid value: ["v1","v1"]: must have exactly one version marked as storage version'],
  },
  { name: 'no storage version', mutate: (c) => (c.spec.versions[0].storage = false), want: ['spec.versions: Invalid value: ["v1"]: must have exactly one version marked as storage version'] },
  { name: 'version names are DNS-1035 labels', mutate: (c) => (c.spec.versions[0].name = 'V1'), want: [`${v0}.name: Invalid value: "V1": ${dns1035}`] },
  {
    name: 'schema required',
    mutate: (c) => delete c.spec.versions[0].schema,
    want: [`${root}: Required value`, `${v0}.selectableFields: Invalid value: "": may only be set when \`version.schema.openAPIV3Schema\` is not included`],
  },
  { name: 'deprecation warning only when deprecated', mutate: (c) => (c.spec.versions[0].deprecationWarning = 'old'), want: [`${v0}.deprecationWarning: Invalid value: "old": can only be set for deprecated versions`] },
  // subresources
  { name: 'specReplicasPath required', mutate: (c) => delete c.spec.versions[0].subresources.scale.specReplicasPath, want: [`${v0}.subresources.scale.specReplicasPath: Required value`] },
  { name: 'specReplicasPath under .spec', mutate: (c) => (c.spec.versions[0].subresources.scale.specReplicasPath = '.status.replicas'), want: [`${v0}.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`] },
  { name: 'statusReplicasPath under .status', mutate: (c) => (c.spec.versions[0].subresources.scale.statusReplicasPath = '.spec.replicas'), want: [`${v0}.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`] },
  { name: 'paths start with a dot', mutate: (c) => (c.spec.versions[0].subresources.scale.statusReplicasPath = 'status.replicas'), want: [`${v0}.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .`] },
  { name: 'labelSelectorPath under .spec or .status', mutate: (c) => (c.spec.versions[0].subresources.scale.labelSelectorPath = '.metadata.labels'), want: [`${v0}.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`] },
  // printer columns
  {
    name: 'printer column fields',
    mutate: (c) => (c.spec.versions[0].additionalPrinterColumns = [{ type: 'float' }]),
    want: [`${v0}.additionalPrinterColumns[0].name: Required value`, `${v0}.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string`, `${v0}.additionalPrinterColumns[0].JSONPath: Required value`],
  },
  { name: 'printer column type required', mutate: (c) => delete c.spec.versions[0].additionalPrinterColumns[0].type, want: [`${v0}.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string`] },
  { name: 'printer column format', mutate: (c) => (c.spec.versions[0].additionalPrinterColumns[0].format = 'hex'), want: [`${v0}.additionalPrinterColumns[0].format: Invalid value: "hex": must be one of byte,date,date-time,double,float,int32,int64,password`] },
  { name: 'printer column jsonPath starts with a dot', mutate: (c) => (c.spec.versions[0].additionalPrinterColumns[0].jsonPath = 'spec.replicas'), want: [`${v0}.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.replicas": must be a simple json path starting with .`] },
  // selectable fields
  { name: 'selectable field type', mutate: (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.template' }]), want: [`${v0}.selectableFields[0].jsonPath: Invalid value: ".spec.template": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`] },
  { name: 'selectable field must exist', mutate: (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.nope' }]), want: [`${v0}.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field`] },
  { name: 'selectable fields unique', mutate: (c) => (c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.selector' }, { jsonPath: '.spec.selector' }]), want: [`${v0}.selectableFields[1].jsonPath: Duplicate value: ".spec.selector"`] },
  // conversion and preserveUnknownFields
  { name: 'Webhook conversion is not supported', mutate: (c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://conv.example.com' }, conversionReviewVersions: ['v1'] } }), want: ['spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"'] },
  { name: 'conversion strategy required', mutate: (c) => (c.spec.conversion = {}), want: ['spec.conversion.strategy: Required value'] },
  { name: 'None with a webhook', mutate: (c) => (c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x' } } }), want: ['spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook'] },
  { name: 'preserveUnknownFields true', mutate: (c) => (c.spec.preserveUnknownFields = true), want: ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'] },
  // API approval
  {
    name: 'k8s.io groups need approval',
    mutate: (c) => { c.spec.group = 'widgets.k8s.io'; c.metadata.name = 'widgets.widgets.k8s.io'; },
    want: ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'],
  },
];

describe('validateCustomResourceDefinition', () => {
  it('accepts a complete CRD', () => {
    assert.deepEqual(messages(widgetCrd()), []);
  });
  it('accepts a minimal CRD once defaulted', () => {
    const crd: Any = { metadata: { name: 'things.example.com' }, spec: { group: 'example.com', scope: 'Cluster', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] } };
    defaultCustomResourceDefinition(crd);
    assert.deepEqual(messages(crd), []);
  });
  it('accepts approved and unapproved-but-bypassed protected groups', () => {
    for (const value of ['https://github.com/kubernetes/enhancements/pull/1111', 'unapproved, experimental']) {
      const crd = widgetCrd();
      crd.spec.group = 'widgets.k8s.io';
      crd.metadata.name = 'widgets.widgets.k8s.io';
      crd.metadata.annotations = { 'api-approved.kubernetes.io': value };
      assert.deepEqual(messages(crd), []);
    }
  });
  for (const c of invalid) {
    it(c.name, () => {
      const crd = widgetCrd();
      c.mutate(crd);
      assert.deepEqual(messages(crd), c.want);
    });
  }
});

const schemaCases: Array<{ name: string; mutate: (c: Any) => void; want: string[] }> = [
  // structural rules
  { name: 'type required on fields', mutate: (c) => delete specOf(c).properties.replicas.type, want: [`${specProps}[replicas].type: Required value: must not be empty for specified object fields`] },
  { name: 'type required on items', mutate: (c) => (specOf(c).properties.list = { type: 'array', items: {} }), want: [`${specProps}[list].items.type: Required value: must not be empty for specified array items`] },
  { name: 'items required for arrays', mutate: (c) => (specOf(c).properties.list = { type: 'array' }), want: [`${specProps}[list].items: Required value: must be specified`] },
  { name: 'type not needed with int-or-string', mutate: (c) => (specOf(c).properties.port = { 'x-kubernetes-int-or-string': true }), want: [] },
  { name: 'type not needed with preserve-unknown-fields', mutate: (c) => (specOf(c).properties.free = { 'x-kubernetes-preserve-unknown-fields': true }), want: [] },
  { name: 'root must be an object', mutate: (c) => { schemaOf(c).type = 'string'; delete c.spec.versions[0].subresources; }, want: [`${root}.type: Invalid value: "string": must be object at the root`] },
  { name: 'root type required', mutate: (c) => { delete schemaOf(c).type; delete c.spec.versions[0].subresources; }, want: [`${root}.type: Required value: must not be empty at the root`] },
  {
    name: 'no additionalProperties at the root',
    mutate: (c) => { delete c.spec.versions[0].subresources; delete schemaOf(c).properties; schemaOf(c).additionalProperties = { type: 'string' }; c.spec.versions[0].selectableFields = []; },
    want: [`${root}.additionalProperties: Forbidden: must not be used at the root`],
  },
  { name: 'properties and additionalProperties are exclusive', mutate: (c) => (specOf(c).additionalProperties = { type: 'string' }), want: [`${root}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`] },
  { name: 'additionalProperties true may join properties', mutate: (c) => (specOf(c).additionalProperties = true), want: [] },
  { name: 'root metadata may restrict name', mutate: (c) => (schemaOf(c).properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } }), want: [] },
  { name: 'root metadata may not restrict anything else', mutate: (c) => (schemaOf(c).properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } }), want: [`${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`] },
  { name: 'root metadata is an object', mutate: (c) => (schemaOf(c).properties.metadata = { type: 'string' }), want: [`${root}.properties[metadata].type: Invalid value: "string": must be object`] },
  { name: 'root kind is a string', mutate: (c) => (schemaOf(c).properties.kind = { type: 'integer' }), want: [`${root}.properties[kind].type: Invalid value: "integer": must be string`] },
  { name: 'embedded resources are objects', mutate: (c) => (specOf(c).properties.template.type = 'string'), want: [`${specProps}[template].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`] },
  { name: 'embedded resources specify properties or preserve', mutate: (c) => delete specOf(c).properties.template['x-kubernetes-preserve-unknown-fields'], want: [`${specProps}[template].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`] },
  { name: 'int-or-string excludes preserve-unknown-fields', mutate: (c) => (specOf(c).properties.port = { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true }), want: [`${specProps}[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`] },
  { name: 'nested value validations have no type', mutate: (c) => (specOf(c).anyOf = [{ type: 'object' }]), want: [`${root}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`] },
  { name: 'nested value validations have no defaults', mutate: (c) => (specOf(c).allOf = [{ properties: { replicas: { default: 2 } } }]), want: [`${root}.properties[spec].allOf[0].properties[replicas].default: Forbidden: must be undefined to be structural`] },
  { name: 'the int-or-string anyOf pattern is allowed', mutate: (c) => (specOf(c).properties.port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }), want: [] },
  {
    name: 'value validations name only specified fields',
    mutate: (c) => { delete c.spec.versions[0].subresources; schemaOf(c).anyOf = [{ properties: { other: { minLength: 1 } } }]; },
    want: [`${root}.properties[other]: Required value: because it is defined in ${root}.anyOf[0].properties[other]`],
  },
  { name: 'patterns compile as RE2', mutate: (c) => (specOf(c).properties.name = { type: 'string', pattern: '^(?!x)' }), want: [`${specProps}[name].pattern: Invalid value: "^(?!x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?!\``] },
  // defaults
  { name: 'defaults validate against their schema', mutate: (c) => (specOf(c).properties.replicas.default = -1), want: [`${specProps}[replicas].default: Invalid value: -1: in body should be greater than or equal to 0`] },
  { name: 'defaults have the right type', mutate: (c) => (specOf(c).properties.replicas.default = 'one'), want: [`${specProps}[replicas].default: Invalid value: "string": in body must be of type integer: "string"`] },
  { name: 'defaults are pruned', mutate: (c) => (specOf(c).default = { replicas: 1, unknown: true }), want: [`${root}.properties[spec].default: Invalid value: {"replicas":1,"unknown":true}: must not have unknown fields`] },
  { name: 'nested default errors name the nested field', mutate: (c) => (specOf(c).default = { replicas: 'x' }), want: [`${root}.properties[spec].default.replicas: Invalid value: "string": replicas in body must be of type integer: "string"`] },
  { name: 'defaults of embedded resources carry apiVersion and kind', mutate: (c) => (specOf(c).properties.template.default = { kind: 'Pod' }), want: [`${specProps}[template].default.apiVersion: Required value`] },
  { name: 'no defaults in top-level metadata', mutate: (c) => (schemaOf(c).properties.metadata = { type: 'object', default: { name: 'x' } }), want: [`${root}.properties[metadata].default: Forbidden: must not be set in top-level metadata`] },
  // OpenAPI rules
  { name: 'types are OpenAPI types', mutate: (c) => (specOf(c).properties.replicas.type = 'int'), want: [`${specProps}[replicas].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"`] },
  { name: 'no uniqueItems', mutate: (c) => (specOf(c).properties.tags = { type: 'array', uniqueItems: true, items: { type: 'string' } }), want: [`${specProps}[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`] },
  { name: 'no $ref', mutate: (c) => (specOf(c).properties.ref = { type: 'object', $ref: '#/definitions/x' }), want: [`${specProps}[ref].$ref: Forbidden: $ref is not supported`] },
  { name: 'preserve-unknown-fields is true or absent', mutate: (c) => (specOf(c)['x-kubernetes-preserve-unknown-fields'] = false), want: [`${root}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`] },
  { name: 'nullable root', mutate: (c) => { schemaOf(c).nullable = true; delete c.spec.versions[0].subresources; }, want: [`${root}.nullable: Forbidden: nullable cannot be true at the root`] },
  { name: 'list-type values', mutate: (c) => (specOf(c).properties.tags = { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } }), want: [`${specProps}[tags].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`] },
  { name: 'list-type on arrays only', mutate: (c) => (specOf(c).properties.tags = { type: 'string', 'x-kubernetes-list-type': 'set' }), want: [`${specProps}[tags].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`] },
  { name: 'map lists need keys', mutate: (c) => (specOf(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { name: { type: 'string' } } } }), want: [`${specProps}[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`] },
  {
    name: 'map list keys are required or defaulted',
    mutate: (c) => (specOf(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } }),
    want: [`${specProps}[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`],
  },
  { name: 'map list keys name item properties', mutate: (c) => (specOf(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: { name: { type: 'string' } } } }), want: [`${specProps}[ports].x-kubernetes-list-map-keys: Invalid value: ["id"]: entries must all be names of item properties`] },
  { name: 'set items that are objects are atomic', mutate: (c) => (specOf(c).properties.objs = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } }), want: [`${specProps}[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`] },
  { name: 'map-type values', mutate: (c) => (specOf(c)['x-kubernetes-map-type'] = 'loose'), want: [`${root}.properties[spec].x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"`] },
  { name: 'CEL rules need a rule', mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: ' ' }]), want: [`${root}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`] },
  { name: 'CEL rules that compile are accepted', mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: 'self.replicas >= 0', message: 'no negatives', fieldPath: '.replicas' }]), want: [] },
  {
    name: 'CEL rules must compile',
    mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: 'self.replicas >=' }]),
    want: [`${root}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"rule":"self.replicas >="}: compilation failed: ERROR: <input>:1:17: Unexpected token: EOF`],
  },
  {
    name: 'CEL rules must yield a bool',
    mutate: (c) => (specOf(c).properties.replicas['x-kubernetes-validations'] = [{ rule: 'self + 1' }]),
    want: [`${specProps}[replicas].x-kubernetes-validations[0].rule: Invalid value: {"rule":"self + 1"}: cel expression must evaluate to a bool`],
  },
  {
    name: 'CEL messageExpressions must compile to a string',
    mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: 'true', messageExpression: '1 + 2' }, { rule: 'true', messageExpression: "'a' +" }]),
    want: [
      `${root}.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: {"rule":"true","messageExpression":"1 + 2"}: messageExpression must evaluate to a string`,
      `${root}.properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: {"rule":"true","messageExpression":"'a' +"}: messageExpression compilation failed: ERROR: <input>:1:6: Unexpected token: EOF`,
    ],
  },
  {
    name: 'CEL transition rules only where an old value can be found',
    mutate: (c) => {
      specOf(c).properties.tags = { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } };
      specOf(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } };
    },
    want: [`${specProps}[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${specProps}[tags].items`],
  },
  {
    name: 'CEL optionalOldSelf only on rules that read oldSelf',
    mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: 'self.replicas >= 0', optionalOldSelf: true }, { rule: '!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas', optionalOldSelf: true }]),
    want: [`${root}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`],
  },
  {
    name: 'CEL rules whose estimated cost is over the limit, alone and together',
    mutate: (c) => {
      // Each check of an unbounded string costs 3 MiB / 10; over an unbounded list that is far over 10^7.
      specOf(c).properties.tags = { type: 'array', items: { type: 'string' } };
      specOf(c)['x-kubernetes-validations'] = [{ rule: "self.tags.all(t, t.contains('x'))" }, { rule: 'size(self.tags) < 10' }];
    },
    want: [
      `${root}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${root}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${root}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ],
  },
  {
    name: 'CEL rules within the cost limits once lists and strings are bounded',
    mutate: (c) => {
      specOf(c).properties.tags = { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } };
      specOf(c)['x-kubernetes-validations'] = [{ rule: "self.tags.all(t, t.contains('x'))" }];
    },
    want: [],
  },
  {
    name: 'CEL rule cost counts how often the rule runs: rules on items of unbounded lists',
    mutate: (c) => {
      specOf(c).properties.tags = { type: 'array', items: { type: 'string', maxLength: 4000, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] } };
    },
    want: [
      `${specProps}[tags].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${specProps}[tags].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      // (4 bytes × 4000 + 1) / 10 for the string, times 8 / 4 for the pattern, plus 1 for self: 3203, run up to 3 MiB / 3 times.
      `${root}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 33.6x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ],
  },
  { name: 'CEL reasons', mutate: (c) => (specOf(c)['x-kubernetes-validations'] = [{ rule: 'true', reason: 'Nope' }]), want: [`${root}.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`] },
  // status subresource root restrictions
  {
    name: 'with status, only some root keywords',
    mutate: (c) => { schemaOf(c).anyOf = [{ required: ['spec'] }]; },
    want: [`${root}: Invalid value: ${'{'}`],
  },
  { name: 'without status, root keywords are free', mutate: (c) => { schemaOf(c).anyOf = [{ required: ['spec'] }]; delete c.spec.versions[0].subresources; }, want: [] },
];

describe('validateCustomResourceDefinition: version schemas', () => {
  for (const c of schemaCases) {
    it(c.name, () => {
      const crd = widgetCrd();
      c.mutate(crd);
      const got = messages(crd);
      if (c.want.length === 1 && c.want[0]!.endsWith('{')) {
        assert.equal(got.length, 1, got.join('\n'));
        assert.ok(got[0]!.startsWith(c.want[0]!), got[0]);
        assert.ok(got[0]!.endsWith('fields are allowed at the root of the schema if the status subresource is enabled'), got[0]);
      } else {
        assert.deepEqual(got, c.want);
      }
    });
  }
});

describe('validateCustomResourceDefinition: updates', () => {
  const established = (c: Any): Any => ({ ...c, status: { conditions: [{ type: 'Established', status: 'True' }] } });
  const cases: Array<{ name: string; old: (c: Any) => Any; mutate: (c: Any) => void; want: string[] }> = [
    { name: 'group is immutable', old: (c) => c, mutate: (c) => { c.spec.group = 'example.org'; c.metadata.name = 'widgets.example.org'; }, want: ['spec.group: Invalid value: "example.org": field is immutable'] },
    { name: 'plural is immutable', old: (c) => c, mutate: (c) => { c.spec.names.plural = 'gizmos'; c.metadata.name = 'gizmos.example.com'; }, want: ['spec.names.plural: Invalid value: "gizmos": field is immutable'] },
    { name: 'scope may change before the CRD is established', old: (c) => c, mutate: (c) => (c.spec.scope = 'Cluster'), want: [] },
    { name: 'scope is immutable once established', old: established, mutate: (c) => (c.spec.scope = 'Cluster'), want: ['spec.scope: Invalid value: "Cluster": field is immutable'] },
    { name: 'kind is immutable once established', old: established, mutate: (c) => { c.spec.names.kind = 'Gadget'; c.spec.names.listKind = 'GadgetList'; }, want: ['spec.names.kind: Invalid value: "Gadget": field is immutable'] },
    { name: 'new versions are validated', old: (c) => c, mutate: (c) => c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: {} } } } } }), want: ['spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields'] },
    {
      name: 'an unchanged schema is not checked again',
      old: (c) => { const o = structuredClone(c); o.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.type = 'int'; return o; },
      mutate: (c) => { c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.type = 'int'; c.spec.versions[0].served = false; },
      want: [],
    },
    { name: 'the approval annotation may stay missing', old: (c) => ({ ...c, spec: { ...c.spec, group: 'x.k8s.io' } }), mutate: (c) => { c.spec.group = 'x.k8s.io'; c.metadata.name = 'widgets.x.k8s.io'; }, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const old = c.old(widgetCrd());
      const crd = widgetCrd();
      c.mutate(crd);
      assert.deepEqual(messages(crd, old), c.want);
    });
  }
});
