import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe('Kubernetes format library', () => {
  const valid: Array<[string, string]> = [
    ['dns1123Label', 'my-label-name'],
    ['dns1123Subdomain', 'apiextensions.k8s.io'],
    ['dns1035Label', 'my-label-name'],
    ['qualifiedName', 'apiextensions.k8s.io/v1beta1'],
    ['dns1123LabelPrefix', 'my-label-prefix-'],
    ['dns1123SubdomainPrefix', 'mysubdomain.prefix.-'],
    ['dns1035LabelPrefix', 'my-label-prefix-'],
    ['labelValue', 'my_value.1'],
    ['uri', 'http://example.com'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000'],
    ['byte', 'aGVsbG8='],
    ['date', '2021-01-01'],
    ['datetime', '2021-01-01T00:00:00Z'],
  ];
  for (const [name, value] of valid) {
    it(`format.${name}() and format.named('${name}') accept ${value}`, () => {
      assert.deepEqual(run(`!format.${name}().validate(self).hasValue()`, value), { kind: 'value', value: true });
      assert.deepEqual(run(`!format.named('${name}').value().validate(self).hasValue()`, value), { kind: 'value', value: true });
    });
  }

  const invalid: Array<[string, string, string[]]> = [
    ['dns1123Label', 'My_Label', ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
    ['dns1123Subdomain', 'Not.A.Subdomain', ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]],
    ['dns1035Label', '1abc', ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]],
    ['qualifiedName', 'a/b/c', ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
    ['dns1123Label', 'my-label-', ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]],
    ['labelValue', '-bad', ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]],
    ['uri', 'example.com/path', ['parse "example.com/path": invalid URI for request']],
    ['uuid', 'not-a-uuid', ['does not match the UUID format']],
    ['byte', 'not base64!', ['invalid base64']],
    ['date', '2021-13-01', ['invalid date']],
    ['datetime', '2021-01-01', ['invalid datetime']],
  ];
  for (const [name, value, errors] of invalid) {
    it(`format.${name}() refuses ${value} with Kubernetes' messages`, () => {
      assert.deepEqual(run(`format.${name}().validate(self).value() == ${JSON.stringify(errors)}`, value), { kind: 'value', value: true });
    });
  }

  it('names an unknown format as none, and the OpenShift rules read as written', () => {
    assert.deepEqual(run("!format.named('nope').hasValue()"), { kind: 'value', value: true });
    assert.deepEqual(run('!format.dns1123Subdomain().validate(self).hasValue()', 'bad_subdomain'), { kind: 'value', value: false });
    const c = compileExpression('format.qualifiedName().validate(self).hasValue()', 'rule');
    assert.equal(c.ok, true);
    const message = compileExpression("format.qualifiedName().validate(self).orValue([]).join(', ')", 'message');
    assert.ok(message.ok);
    assert.deepEqual(evaluateExpression(message.expression, { self: 'a/b/c', oldSelf: null }, newBudget()).kind, 'value');
  });
});
