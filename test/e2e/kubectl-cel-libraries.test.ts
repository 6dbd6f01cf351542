/**
 * Acceptance suite: Kubernetes' CEL libraries in CRD validation rules, and kube's handling of
 * nulls, driven with a real kubectl against one freshly started server. CRDs written here call
 * every function of the IP, CIDR, format, string, regex, URL, semver, quantity, list, set and
 * optional libraries (the OpenShift Infrastructure, ControllerConfig and ClusterMonitoring
 * rules among them); each field carries one rule, so one valid object passes all of a CRD's
 * rules and one invalid object breaks all of them, and the 422 names every field with its
 * rule's message. Transition rules with `oldSelf` and `optionalOldSelf`, rules refused for
 * their estimated cost (on create and on update) or for calling functions Kubernetes 1.32
 * lacks, and the null round trip through kubectl complete it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { getObject, kubectlFails, kubectlJson, kubectlOk, pollUntil, type Json } from './support.ts';

const GROUP = 'cel.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** One field of a CRD's spec with its rules, a value that passes them and one that breaks them. */
interface Case {
  readonly field: string;
  readonly schema: Json;
  readonly rules?: Json[];
  readonly good: unknown;
  readonly bad: unknown;
  /** What kubectl prints for the bad value. */
  readonly want: string[];
}

const str = (maxLength = 253): Json => ({ type: 'string', maxLength });
const strList = (maxItems = 8, maxLength = 63): Json => ({ type: 'array', maxItems, items: str(maxLength) });
const intList: Json = { type: 'array', maxItems: 8, items: { type: 'integer' } };
const obj = (properties: Record<string, Json>): Json => ({ type: 'object', properties });
const rule = (r: string, message: string): Json => ({ rule: r, message });
const fails = (field: string, type: string, message: string): string => `spec.${field}: Invalid value: "${type}": ${message}`;

const network: Case[] = [
  // The OpenShift Infrastructure rules (apiServerInternalIPs, ingressIPs).
  {
    field: 'apiServerInternalIPs',
    schema: { ...strList(2, 39), items: { ...str(39), 'x-kubernetes-validations': [rule('isIP(self)', 'value must be a valid IP address')] } },
    rules: [rule('size(self) == 2 && isIP(self[0]) && isIP(self[1]) ? ip(self[0]).family() != ip(self[1]).family() : true', 'apiServerInternalIPs must contain at most one IPv4 address and at most one IPv6 address')],
    good: ['192.0.2.5', '2001:db8:5dd8:c956::14'],
    bad: ['192.0.2.5', '192.0.2.6'],
    want: [fails('apiServerInternalIPs', 'array', 'apiServerInternalIPs must contain at most one IPv4 address and at most one IPv6 address')],
  },
  {
    field: 'ingressIPs',
    schema: { ...strList(2, 39), items: { ...str(39), 'x-kubernetes-validations': [rule('isIP(self)', 'value must be a valid IP address')] } },
    rules: [rule('self.all(x, isIP(x))', 'ingressIPs must be IP addresses'), rule('size(self) < 2 || ip(self[0]).family() != ip(self[1]).family()', 'ingressIPs must contain at most one address of each family')],
    good: ['192.0.2.4'],
    bad: ['192.0.2.300'],
    want: [fails('ingressIPs[0]', 'string', 'value must be a valid IP address'), fails('ingressIPs', 'array', 'ingressIPs must be IP addresses')],
  },
  {
    field: 'machineIPs',
    schema: strList(2, 39),
    rules: [rule('size(self) < 2 || ip(self[0]).family() != ip(self[1]).family()', 'machineIPs must contain at most one address of each family')],
    good: ['2001:db8::1', '192.0.2.1'],
    bad: ['2001:db8::1', '2001:db8::2'],
    want: [fails('machineIPs', 'array', 'machineIPs must contain at most one address of each family')],
  },
  { field: 'vip', schema: str(39), rules: [rule('ip(self).isGlobalUnicast()', 'vip must be a global unicast address')], good: '192.0.2.5', bad: '255.255.255.255', want: [fails('vip', 'string', 'vip must be a global unicast address')] },
  { field: 'probeIP', schema: str(39), rules: [rule('!ip(self).isLoopback()', 'probeIP must not be a loopback address')], good: '192.0.2.1', bad: '::1', want: [fails('probeIP', 'string', 'probeIP must not be a loopback address')] },
  { field: 'bindIP', schema: str(39), rules: [rule('!ip(self).isUnspecified()', 'bindIP must be a specific address')], good: '192.0.2.1', bad: '0.0.0.0', want: [fails('bindIP', 'string', 'bindIP must be a specific address')] },
  { field: 'nodeIP', schema: str(39), rules: [rule('!ip(self).isLinkLocalUnicast()', 'nodeIP must not be link-local')], good: '2001:db8::5', bad: 'fe80::1', want: [fails('nodeIP', 'string', 'nodeIP must not be link-local')] },
  { field: 'groupIP', schema: str(39), rules: [rule('!ip(self).isLinkLocalMulticast()', 'groupIP must not be link-local multicast')], good: '239.1.1.1', bad: '224.0.0.251', want: [fails('groupIP', 'string', 'groupIP must not be link-local multicast')] },
  { field: 'canonicalIP', schema: str(39), rules: [rule('ip.isCanonical(self)', 'canonicalIP must be written canonically')], good: '2001:db8::1', bad: '2001:DB8:0::1', want: [fails('canonicalIP', 'string', 'canonicalIP must be written canonically')] },
  {
    field: 'ipv6Only',
    schema: str(39),
    rules: [{ rule: 'ip(self).family() == 6', messageExpression: "'ipv6Only: ' + self + ' is not IPv6'" }],
    good: '2001:db8::10',
    bad: '192.0.2.10',
    want: [fails('ipv6Only', 'string', 'ipv6Only: 192.0.2.10 is not IPv6')],
  },
  { field: 'clusterNetwork', schema: str(43), rules: [rule('isCIDR(self)', 'clusterNetwork must be a CIDR')], good: '198.51.100.0/24', bad: '198.51.100.0/33', want: [fails('clusterNetwork', 'string', 'clusterNetwork must be a CIDR')] },
  {
    field: 'serviceNetwork',
    schema: str(43),
    // Comparing two CIDR values would be an equality Kubernetes cannot bound; a string against self it can.
    rules: [rule('string(cidr(self).masked()) == self', 'serviceNetwork must be a network address')],
    good: '198.51.100.0/24',
    bad: '198.51.100.1/24',
    want: [fails('serviceNetwork', 'string', 'serviceNetwork must be a network address')],
  },
  { field: 'machineNetwork', schema: str(43), rules: [rule('cidr(self).prefixLength() <= 24', 'machineNetwork must be a /24 or larger')], good: '192.0.2.0/24', bad: '192.0.2.0/28', want: [fails('machineNetwork', 'string', 'machineNetwork must be a /24 or larger')] },
  { field: 'gatewayNetwork', schema: str(43), rules: [rule('!cidr(self).ip().isLoopback()', 'gatewayNetwork must not be loopback')], good: '203.0.113.0/24', bad: '127.0.0.0/8', want: [fails('gatewayNetwork', 'string', 'gatewayNetwork must not be loopback')] },
  {
    field: 'pod',
    schema: obj({ cidr: str(43), ip: str(39) }),
    rules: [rule('cidr(self.cidr).containsIP(self.ip) && cidr(self.cidr).containsIP(ip(self.ip))', 'pod ip must be inside the pod cidr')],
    good: { cidr: '198.51.100.0/24', ip: '198.51.100.7' },
    bad: { cidr: '198.51.100.0/24', ip: '203.0.113.7' },
    want: [fails('pod', 'object', 'pod ip must be inside the pod cidr')],
  },
  {
    field: 'subnet',
    schema: obj({ parent: str(43), child: str(43) }),
    rules: [rule('cidr(self.parent).containsCIDR(self.child) && cidr(self.parent).containsCIDR(cidr(self.child))', 'subnet child must lie inside its parent')],
    good: { parent: '192.0.2.0/24', child: '192.0.2.128/25' },
    bad: { parent: '192.0.2.128/25', child: '192.0.2.0/24' },
    want: [fails('subnet', 'object', 'subnet child must lie inside its parent')],
  },
];

const labelError = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
/**
 * A field checked by a named format, its message the validator's first error. (Joining all
 * the errors would be a string Kubernetes cannot bound, and it refuses such a messageExpression.)
 */
const formatCase = (field: string, name: string, good: string, bad: string, want: string): Case => ({
  field,
  schema: str(),
  rules: [{ rule: `!format.${name}().validate(self).hasValue()`, messageExpression: `'${field}: ' + format.${name}().validate(self).value()[0]` }],
  good,
  bad,
  want: [fails(field, 'string', `${field}: ${want}`)],
});

const formats: Case[] = [
  formatCase('label', 'dns1123Label', 'my-label', 'My_Label', labelError),
  // The OpenShift ControllerConfig and ClusterMonitoring rules.
  { field: 'subdomain', schema: str(), rules: [rule('!format.dns1123Subdomain().validate(self).hasValue()', 'subdomain must be a valid DNS subdomain')], good: 'apps.example.com', bad: 'bad_subdomain', want: [fails('subdomain', 'string', 'subdomain must be a valid DNS subdomain')] },
  formatCase('qualified', 'qualifiedName', 'example.com/MyName', 'a/b/c', "a qualified name must consist of alphanumeric characters, '-', '_' or '.'"),
  formatCase('label1035', 'dns1035Label', 'abc-1', '1abc', "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character"),
  formatCase('labelPrefix', 'dns1123LabelPrefix', 'gen-', 'Gen-', labelError),
  formatCase('subdomainPrefix', 'dns1123SubdomainPrefix', 'apps.gen-', '-apps', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'"),
  formatCase('label1035Prefix', 'dns1035LabelPrefix', 'x-', '9ab', 'a DNS-1035 label must consist of lower case alphanumeric characters'),
  formatCase('labelValue', 'labelValue', 'My_Value.1', '-bad', "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"),
  formatCase('uri', 'uri', 'https://example.com/x', 'relative/path', 'parse "relative/path": invalid URI for request'),
  formatCase('uuid', 'uuid', '123e4567-e89b-12d3-a456-426614174000', 'not-a-uuid', 'does not match the UUID format'),
  formatCase('base64', 'byte', 'aGVsbG8=', 'not base64!', 'invalid base64'),
  formatCase('day', 'date', '2024-02-29', '2023-02-29', 'invalid date'),
  formatCase('when', 'datetime', '2024-02-29T12:00:00Z', 'yesterday', 'invalid datetime'),
  {
    field: 'named',
    schema: obj({ format: str(), value: str() }),
    rules: [rule('format.named(self.format).hasValue() && !format.named(self.format).value().validate(self.value).hasValue()', 'named value must match the named format')],
    good: { format: 'dns1123Label', value: 'ok' },
    bad: { format: 'dns1123Label', value: 'Not OK' },
    want: [fails('named', 'object', 'named value must match the named format')],
  },
];

const strings: Case[] = [
  { field: 'lower', schema: str(), rules: [rule('self.lowerAscii() == self', 'lower must be lower case')], good: 'abc', bad: 'Abc', want: [fails('lower', 'string', 'lower must be lower case')] },
  { field: 'upper', schema: str(), rules: [rule('self.upperAscii() == self', 'upper must be upper case')], good: 'ABC', bad: 'AbC', want: [fails('upper', 'string', 'upper must be upper case')] },
  { field: 'trimmed', schema: str(), rules: [rule('self.trim() == self', 'trimmed must not start or end with spaces')], good: 'a b', bad: ' a ', want: [fails('trimmed', 'string', 'trimmed must not start or end with spaces')] },
  { field: 'dashes', schema: str(), rules: [rule("self.indexOf('--') == -1", 'dashes must not repeat')], good: 'a-b', bad: 'a--b', want: [fails('dashes', 'string', 'dashes must not repeat')] },
  { field: 'dots', schema: str(), rules: [rule("self.lastIndexOf('.') < self.size() - 1", 'dots must not end the name')], good: 'a.b', bad: 'a.b.', want: [fails('dots', 'string', 'dots must not end the name')] },
  { field: 'initial', schema: str(), rules: [rule("self.charAt(0) != '-'", 'initial must not be a dash')], good: 'a-', bad: '-a', want: [fails('initial', 'string', 'initial must not be a dash')] },
  { field: 'plain', schema: str(), rules: [rule("self.replace('_', '') == self", 'plain must not contain underscores')], good: 'a-b', bad: 'a_b', want: [fails('plain', 'string', 'plain must not contain underscores')] },
  { field: 'prefixed', schema: str(), rules: [rule("self.size() >= 3 && self.substring(0, 3) == 'app'", 'prefixed must start with app')], good: 'app-x', bad: 'web-x', want: [fails('prefixed', 'string', 'prefixed must start with app')] },
  { field: 'pair', schema: str(), rules: [rule("self.split('=').size() == 2", 'pair must be key=value')], good: 'k=v', bad: 'k=v=w', want: [fails('pair', 'string', 'pair must be key=value')] },
  { field: 'path', schema: strList(), rules: [rule("self.join('/').size() <= 10", 'path must join to at most 10 characters')], good: ['a', 'b'], bad: ['aaaa', 'bbbb', 'cccc'], want: [fails('path', 'array', 'path must join to at most 10 characters')] },
  { field: 'digits', schema: { type: 'integer' }, rules: [rule("'%d'.format([self]).size() <= 3", 'digits must have at most 3 digits')], good: 42, bad: 12345, want: [fails('digits', 'integer', 'digits must have at most 3 digits')] },
  { field: 'quotable', schema: str(), rules: [rule('strings.quote(self) == \'"\' + self + \'"\'', 'quotable must need no escaping')], good: 'plain', bad: 'say "hi"', want: [fails('quotable', 'string', 'quotable must need no escaping')] },
  { field: 'numbered', schema: str(), rules: [rule("self.find('[0-9]+') != ''", 'numbered must contain a number')], good: 'v1', bad: 'vx', want: [fails('numbered', 'string', 'numbered must contain a number')] },
  { field: 'lettered', schema: str(), rules: [rule("self.findAll('[a-z]').size() >= 2", 'lettered must contain two letters')], good: 'ab1', bad: 'a1', want: [fails('lettered', 'string', 'lettered must contain two letters')] },
  { field: 'word', schema: str(), rules: [rule("self.matches('^[[:lower:]]+$')", 'word must be lower-case letters')], good: 'abc', bad: 'ab1', want: [fails('word', 'string', 'word must be lower-case letters')] },
];

const urls: Case[] = [
  { field: 'endpoint', schema: str(), rules: [rule('isURL(self)', 'endpoint must be a URL')], good: 'https://api.example.com:6443/', bad: 'api.example.com', want: [fails('endpoint', 'string', 'endpoint must be a URL')] },
  { field: 'secure', schema: str(), rules: [rule("url(self).getScheme() == 'https'", 'secure must use https')], good: 'https://example.com', bad: 'http://example.com', want: [fails('secure', 'string', 'secure must use https')] },
  { field: 'api', schema: str(), rules: [rule("url(self).getHost() == 'api.example.com:6443'", 'api must be api.example.com:6443')], good: 'https://api.example.com:6443/', bad: 'https://api.example.com/', want: [fails('api', 'string', 'api must be api.example.com:6443')] },
  { field: 'domain', schema: str(), rules: [rule("url(self).getHostname().endsWith('.example.com')", 'domain must be under example.com')], good: 'https://www.example.com/', bad: 'https://www.example.org/', want: [fails('domain', 'string', 'domain must be under example.com')] },
  { field: 'port', schema: str(), rules: [rule("url(self).getPort() == '' || url(self).getPort() == '443'", 'port must be 443')], good: 'https://example.com:443/', bad: 'https://example.com:8443/', want: [fails('port', 'string', 'port must be 443')] },
  { field: 'escaped', schema: str(), rules: [rule("url(self).getEscapedPath() == '/v1/a%20b'", 'escaped must be /v1/a b')], good: 'https://example.com/v1/a b', bad: 'https://example.com/v2', want: [fails('escaped', 'string', 'escaped must be /v1/a b')] },
  { field: 'query', schema: str(), rules: [rule("!('debug' in url(self).getQuery())", 'query must not ask for debug')], good: 'https://example.com/?a=1', bad: 'https://example.com/?debug=1', want: [fails('query', 'string', 'query must not ask for debug')] },
];

const versions: Case[] = [
  { field: 'strict', schema: str(), rules: [rule('isSemver(self)', 'strict must be a semantic version')], good: '1.2.3', bad: 'v1.2', want: [fails('strict', 'string', 'strict must be a semantic version')] },
  { field: 'loose', schema: str(), rules: [rule('isSemver(self, true) && semver(self, true).major() == 1', 'loose must be a 1.x version')], good: 'v1.2', bad: 'v2.0', want: [fails('loose', 'string', 'loose must be a 1.x version')] },
  { field: 'small', schema: str(), rules: [rule('semver(self).minor() < 10 && semver(self).patch() < 100', 'small must have a minor below 10 and a patch below 100')], good: '1.2.3', bad: '1.12.0', want: [fails('small', 'string', 'small must have a minor below 10 and a patch below 100')] },
  { field: 'newer', schema: str(), rules: [rule("semver(self).isGreaterThan(semver('1.2.0'))", 'newer must be after 1.2.0')], good: '1.10.0', bad: '1.1.9', want: [fails('newer', 'string', 'newer must be after 1.2.0')] },
  { field: 'older', schema: str(), rules: [rule("semver(self).isLessThan(semver('2.0.0'))", 'older must be before 2.0.0')], good: '2.0.0-rc.1', bad: '2.0.0', want: [fails('older', 'string', 'older must be before 2.0.0')] },
  { field: 'allowed', schema: str(), rules: [rule("semver(self).compareTo(semver('1.5.0')) != 0", '1.5.0 is withdrawn')], good: '1.5.1', bad: '1.5.0', want: [fails('allowed', 'string', '1.5.0 is withdrawn')] },
];

const quantities: Case[] = [
  { field: 'size', schema: str(), rules: [rule('isQuantity(self)', 'size must be a quantity')], good: '1Gi', bad: '1 Gi', want: [fails('size', 'string', 'size must be a quantity')] },
  { field: 'request', schema: str(), rules: [rule("quantity(self).isLessThan(quantity('8Gi'))", 'request must be below 8Gi')], good: '512Mi', bad: '16Gi', want: [fails('request', 'string', 'request must be below 8Gi')] },
  { field: 'limit', schema: str(), rules: [rule("quantity(self).isGreaterThan(quantity('64Mi'))", 'limit must be above 64Mi')], good: '1Gi', bad: '1Mi', want: [fails('limit', 'string', 'limit must be above 64Mi')] },
  { field: 'exact', schema: str(), rules: [rule("quantity(self).compareTo(quantity('1Gi')) == 0", 'exact must be 1Gi')], good: '1024Mi', bad: '1G', want: [fails('exact', 'string', 'exact must be 1Gi')] },
  { field: 'headroom', schema: str(), rules: [rule("quantity(self).add(quantity('1Gi')).sub(1).isLessThan(quantity('4Gi'))", 'headroom plus 1Gi must stay below 4Gi')], good: '1Gi', bad: '4Gi', want: [fails('headroom', 'string', 'headroom plus 1Gi must stay below 4Gi')] },
  { field: 'count', schema: str(), rules: [rule("quantity(self).add(2).sub(quantity('2')).isLessThan(quantity('10'))", 'count must be below 10')], good: '5', bad: '10', want: [fails('count', 'string', 'count must be below 10')] },
  {
    field: 'whole',
    schema: str(),
    rules: [rule('quantity(self).isInteger() && quantity(self).asInteger() > 0 && quantity(self).sign() == 1 && quantity(self).asApproximateFloat() >= 1.0', 'whole must be a positive whole number')],
    good: '2',
    bad: '500m',
    want: [fails('whole', 'string', 'whole must be a positive whole number')],
  },
];

const collections: Case[] = [
  { field: 'sorted', schema: intList, rules: [rule('self.isSorted()', 'sorted must be in order')], good: [1, 2, 2], bad: [2, 1], want: [fails('sorted', 'array', 'sorted must be in order')] },
  { field: 'total', schema: intList, rules: [rule('self.sum() <= 10', 'total must sum to at most 10')], good: [5, 5], bad: [6, 6], want: [fails('total', 'array', 'total must sum to at most 10')] },
  { field: 'smallest', schema: intList, rules: [rule('self.min() >= 0', 'smallest must not be negative')], good: [0, 3], bad: [-1, 3], want: [fails('smallest', 'array', 'smallest must not be negative')] },
  { field: 'largest', schema: intList, rules: [rule('self.max() <= 5', 'largest must be at most 5')], good: [1, 5], bad: [1, 9], want: [fails('largest', 'array', 'largest must be at most 5')] },
  { field: 'ordered', schema: strList(), rules: [rule("self.indexOf('a') == 0 && self.lastIndexOf('a') == 0", 'ordered must start with its only a')], good: ['a', 'b'], bad: ['a', 'b', 'a'], want: [fails('ordered', 'array', 'ordered must start with its only a')] },
  { field: 'required', schema: strList(), rules: [rule("sets.contains(self, ['base'])", 'required must include base')], good: ['base', 'extra'], bad: ['extra'], want: [fails('required', 'array', 'required must include base')] },
  { field: 'pairOf', schema: strList(), rules: [rule("sets.equivalent(self, ['x', 'y'])", 'pairOf must hold x and y only')], good: ['y', 'x', 'x'], bad: ['x'], want: [fails('pairOf', 'array', 'pairOf must hold x and y only')] },
  { field: 'envs', schema: strList(), rules: [rule("sets.intersects(self, ['prod', 'staging'])", 'envs must name prod or staging')], good: ['dev', 'prod'], bad: ['dev'], want: [fails('envs', 'array', 'envs must name prod or staging')] },
  {
    field: 'account',
    schema: obj({ nickname: str() }),
    rules: [rule("self.?nickname.orValue('') != 'admin' && optional.of(self).hasValue() && !optional.none().hasValue()", 'account must not be called admin')],
    good: {},
    bad: { nickname: 'admin' },
    want: [fails('account', 'object', 'account must not be called admin')],
  },
  {
    field: 'range',
    schema: obj({ min: { type: 'integer' }, max: { type: 'integer' } }),
    rules: [{ rule: 'self.min <= self.max', messageExpression: "self.min > self.max + 10 ? 'min is far above max' : 'min is above max'", reason: 'FieldValueForbidden', fieldPath: '.min' }],
    good: { min: 1, max: 3 },
    bad: { min: 5, max: 3 },
    want: ['spec.range.min: Forbidden: min is above max'],
  },
];

const kinds: Array<{ kind: string; plural: string; cases: Case[] }> = [
  { kind: 'Network', plural: 'networks', cases: network },
  { kind: 'Format', plural: 'formats', cases: formats },
  { kind: 'Text', plural: 'texts', cases: strings },
  { kind: 'Link', plural: 'links', cases: urls },
  { kind: 'Version', plural: 'versions', cases: versions },
  { kind: 'Amount', plural: 'amounts', cases: quantities },
  { kind: 'Collection', plural: 'collections', cases: collections },
];

function crd(kind: string, plural: string, spec: Json): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

function caseCrd(kind: string, plural: string, cases: Case[]): Json {
  const properties = Object.fromEntries(cases.map((c) => [c.field, c.rules ? { ...c.schema, 'x-kubernetes-validations': c.rules } : c.schema]));
  return crd(kind, plural, { type: 'object', properties });
}

const resource = (kind: string, name: string, spec: Json): Json => ({ apiVersion: `${GROUP}/v1`, kind, metadata: { name, namespace: 'default' }, spec });
/** Several objects for one kubectl call: a JSON stream. */
const stream = (objects: Json[]): string => objects.map((o) => JSON.stringify(o)).join('\n');

const gateCrd = crd('Gate', 'gates', {
  type: 'object',
  properties: {
    mode: { ...str(), 'x-kubernetes-validations': [rule('self == oldSelf', 'mode is immutable')] },
    level: {
      type: 'integer',
      'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() ? self <= 5 : self >= oldSelf.value()', message: 'level starts at 5 or less and never goes down', optionalOldSelf: true }],
    },
  },
});

const thingCrd = crd('Thing', 'things', {
  type: 'object',
  properties: {
    unsupportedConfigOverrides: { type: 'object', nullable: true, 'x-kubernetes-preserve-unknown-fields': true },
    kernelArguments: { type: 'array', nullable: true, items: str() },
    logLevel: str(),
    providerSpec: obj({ value: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
  },
});

describe('Kubernetes CEL libraries and null handling through kubectl', { timeout: 180_000 }, () => {
  let ts: TestServer;
  const served = (plural: string) => pollUntil(`${plural} served`, async () => (await ts.request('GET', `/apis/${GROUP}/v1/namespaces/default/${plural}`)).status === 200);

  before(async () => {
    ts = await startTestServer();
    const all = [...kinds.map((k) => caseCrd(k.kind, k.plural, k.cases)), gateCrd, thingCrd];
    await kubectlOk(ts, ['apply', '-f', '-'], { input: stream(all) });
    for (const plural of [...kinds.map((k) => k.plural), 'gates', 'things']) await served(plural);
  });
  after(async () => {
    await ts?.stop();
  });

  it('accepts objects every rule holds for', async () => {
    const good = kinds.map((k) => resource(k.kind, 'good', Object.fromEntries(k.cases.map((c) => [c.field, c.good]))));
    await kubectlOk(ts, ['apply', '-f', '-'], { input: stream(good) });
    for (const k of kinds) assert.equal((await kubectlJson(ts, [`${k.plural}.${GROUP}`, 'good'])).metadata.name, 'good', k.kind);
  });

  it('refuses objects that break each rule with 422, naming every field and its rule message', async () => {
    const bad = kinds.map((k) => resource(k.kind, 'bad', Object.fromEntries(k.cases.map((c) => [c.field, c.bad]))));
    const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: stream(bad) });
    for (const k of kinds) {
      assert.ok(r.stderr.includes(`Error from server (Invalid): error when creating "STDIN": ${k.kind}.${GROUP} "bad" is invalid`), `${k.kind} refused with 422 Invalid\n${r.stderr}`);
      for (const c of k.cases) for (const want of c.want) assert.ok(r.stderr.includes(want), `${k.kind}.${c.field}: missing ${JSON.stringify(want)}\n${r.stderr}`);
      assert.equal(await getObject(ts, `/apis/${GROUP}/v1/namespaces/default/${k.plural}/bad`), undefined, `${k.kind} stored nothing`);
    }
  });

  it('runs transition rules on updates, and optionalOldSelf rules on create too', async () => {
    const gate = (name: string, spec: Json) => ({ input: JSON.stringify(resource('Gate', name, spec)) });
    const tooHigh = await kubectlFails(ts, ['create', '-f', '-'], gate('g1', { mode: 'a', level: 7 }));
    assert.match(tooHigh.stderr, /spec\.level: Invalid value: "integer": level starts at 5 or less and never goes down/);
    await kubectlOk(ts, ['create', '-f', '-'], gate('g1', { mode: 'a', level: 3 }));
    const down = await kubectlFails(ts, ['patch', 'gate', 'g1', '--type=merge', '-p', '{"spec":{"level":2}}']);
    assert.match(down.stderr, /The Gate "g1" is invalid: spec\.level: Invalid value: "integer": level starts at 5 or less and never goes down/);
    const mode = await kubectlFails(ts, ['patch', 'gate', 'g1', '--type=merge', '-p', '{"spec":{"mode":"b"}}']);
    assert.match(mode.stderr, /spec\.mode: Invalid value: "string": mode is immutable/);
    await kubectlOk(ts, ['patch', 'gate', 'g1', '--type=merge', '-p', '{"spec":{"level":9}}']);
    assert.deepEqual((await kubectlJson(ts, ['gate', 'g1'])).spec, { mode: 'a', level: 9 });
  });

  it('refuses, on create and on update, a CRD whose rule is estimated too costly', async () => {
    const costly = crd('Costly', 'costlies', {
      type: 'object',
      properties: {
        names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [rule('self.all(x, self.all(y, x == y))', 'names must all be equal')] },
        // A string() of a number has no size Kubernetes can bound, so neither has the message built from it.
        limits: { ...obj({ min: { type: 'integer' }, max: { type: 'integer' } }), 'x-kubernetes-validations': [{ rule: 'self.min <= self.max', messageExpression: "'min (' + string(self.min) + ') exceeds max'" }] },
      },
    });
    const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(costly) });
    const at = 'spec.versions[0].schema.openAPIV3Schema';
    const advice = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
    assert.ok(r.stderr.includes(`${at}.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${advice}`), r.stderr);
    assert.ok(r.stderr.includes(`${at}.properties[spec].properties[limits].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${advice}`), r.stderr);
    assert.ok(r.stderr.includes(`${at}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}`), r.stderr);
    assert.equal(await getObject(ts, `${CRDS}/costlies.${GROUP}`), undefined);

    // The same rule added to a CRD that exists: the update is refused and the CRD stays as it was.
    const text = caseCrd('Text', 'texts', strings);
    text.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.words = { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [rule("self.all(w, w.matches('^[a-z]+$'))", 'words must be lower case')] };
    const update = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(text) });
    assert.ok(update.stderr.includes(`${at}.properties[spec].properties[words].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of`), update.stderr);
    const stored = await getObject(ts, `${CRDS}/texts.${GROUP}`);
    assert.equal(stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.words, undefined);
  });

  it('refuses a CRD that calls list functions Kubernetes 1.32 does not have', async () => {
    const rules = ['self.slice(0, 1).size() == 1', 'self.flatten().size() >= 0', 'self.distinct() == self', 'self.reverse().size() >= 0', 'self.sort() == self', 'lists.range(2).size() == 2'];
    const missing = crd('Missing', 'missings', { type: 'object', properties: { xs: { ...intList, 'x-kubernetes-validations': rules.map((r) => rule(r, 'never')) } } });
    const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(missing) });
    for (let i = 0; i < rules.length; i++) assert.match(r.stderr, new RegExp(`properties\\[xs\\]\\.x-kubernetes-validations\\[${i}\\]\\.rule: Invalid value: .*compilation failed`), r.stderr);
    assert.equal(await getObject(ts, `${CRDS}/missings.${GROUP}`), undefined);
  });

  it('keeps nullable nulls and nulls under x-kubernetes-preserve-unknown-fields, drops the others (kubectl create, replace, get)', async () => {
    const thing = resource('Thing', 't1', {
      unsupportedConfigOverrides: null,
      kernelArguments: null,
      logLevel: null,
      providerSpec: { value: { apiVersion: 'machine.openshift.io/v1beta1', metadata: { creationTimestamp: null }, userDataSecret: null } },
    });
    await kubectlOk(ts, ['create', '-f', '-'], { input: JSON.stringify(thing) });
    const want = { unsupportedConfigOverrides: null, kernelArguments: null, providerSpec: { value: { apiVersion: 'machine.openshift.io/v1beta1', metadata: { creationTimestamp: null }, userDataSecret: null } } };
    const got = await kubectlJson(ts, ['thing', 't1']);
    assert.deepEqual(got.spec, want);
    // A replace of what was read (nulls and all) keeps them too.
    got.metadata.labels = { touched: 'yes' };
    await kubectlOk(ts, ['replace', '-f', '-'], { input: JSON.stringify(got) });
    const again = await kubectlJson(ts, ['thing', 't1']);
    assert.equal(again.metadata.labels.touched, 'yes');
    assert.deepEqual(again.spec, want);
  });
});
