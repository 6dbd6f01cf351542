import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateJsonPath, formatJsonPathResults, formatJsonPathValue, validateJsonPath } from './jsonpath.ts';

const obj = {
  metadata: { name: 'web', labels: { app: 'shop', 'app.kubernetes.io/name': 'store' } },
  spec: {
    replicas: 3,
    paused: false,
    nothing: null,
    containers: [
      { name: 'main', image: 'nginx', ports: [{ containerPort: 80 }] },
      { name: 'side', image: 'busybox' },
    ],
  },
  status: {
    conditions: [
      { type: 'Available', status: 'True', count: 1 },
      { type: 'Ready', status: 'False', count: 2, reason: 'Waiting' },
      { type: 'Progressing', status: 'True', count: 3 },
    ],
    mixed: [{ v: 1 }, { v: 'x' }],
  },
};

describe('evaluateJsonPath', () => {
  const cases: Array<[path: string, expected: unknown[]]> = [
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['$.spec.replicas', [3]],
    ['.spec.paused', [false]],
    ['.spec.nothing', [null]],
    ['.metadata.labels.app', ['shop']],
    [".metadata.labels['app.kubernetes.io/name']", ['store']],
    ['.metadata.labels["app.kubernetes.io/name"]', ['store']],
    ['.metadata.labels.app\\.kubernetes\\.io/name', ['store']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type=='Ready')].reason", ['Waiting']],
    ['.status.conditions[?(@.status!="True")].type', ['Ready']],
    ['.status.conditions[?(@.count>1)].type', ['Ready', 'Progressing']],
    ['.status.conditions[?(@.count<=2)].type', ['Available', 'Ready']],
    ['.status.conditions[?(@.reason)].type', ['Ready']],
    ['.status.conditions[0].type', ['Available']],
    ['.status.conditions[-1].type', ['Progressing']],
    ['.status.conditions[*].type', ['Available', 'Ready', 'Progressing']],
    ['.status.conditions[0:2].type', ['Available', 'Ready']],
    ['.status.conditions[1:].type', ['Ready', 'Progressing']],
    ['.status.conditions[::2].type', ['Available', 'Progressing']],
    ['.status.conditions[0,2].type', ['Available', 'Progressing']],
    ['.spec.containers[*].ports[0].containerPort', [80]],
    ['.metadata.labels.*', ['shop', 'store']],
    ['.spec.containers..name', ['main', 'side']],
    ['..image', ['nginx', 'busybox']],
    ['.missing', []],
    ['.spec.replicas.deeper', []],
    ['.status.conditions[9].type', []],
    ['.metadata.labels[0]', []],
    ['.metadata[?(@.x)]', []],
    ['.status.mixed[?(@.v==1)]', []],
  ];
  for (const [path, expected] of cases) {
    it(path, () => assert.deepEqual(evaluateJsonPath(obj, path), expected));
  }

  it('throws on a malformed path', () => {
    assert.throws(() => evaluateJsonPath(obj, '.spec['), /unterminated array/);
  });
});

describe('validateJsonPath', () => {
  const cases: Array<[path: string, problem: string | undefined]> = [
    ['.spec.replicas', undefined],
    ['.status.conditions[?(@.type=="Ready")].status', undefined],
    [".metadata.labels['a.b']", undefined],
    ['', 'must not be empty'],
    ['spec.replicas', 'must be a simple json path starting with .'],
    ['.spec[', 'invalid JSONPath: unterminated array'],
    ['.spec[x]', 'invalid JSONPath: invalid array index x'],
    ['.a[?(@.x=<1)]', 'invalid JSONPath: unrecognized filter operator =<'],
    ['.a[?(@.x==1]', 'invalid JSONPath: unterminated filter'],
    ['.a%b', undefined],
    ['.a %', "invalid JSONPath: unrecognized character in action: U+0025 '%'"],
    ['.a b', 'invalid JSONPath: unrecognized identifier b'],
  ];
  for (const [path, problem] of cases) {
    it(JSON.stringify(path), () => assert.equal(validateJsonPath(path), problem));
  }
});

describe('formatJsonPathValue', () => {
  const cases: Array<[value: unknown, printed: string]> = [
    ['text', 'text'],
    [3, '3'],
    [-7, '-7'],
    [1.5, '1.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e21, '1e+21'],
    [123456789012, '123456789012'],
    [true, 'true'],
    [false, 'false'],
    [null, '<no value>'],
    [{ b: 1, a: '<&>' }, '{"a":"\\u003c\\u0026\\u003e","b":1}'],
    [[1, 'a', { z: null }], '[1,"a",{"z":null}]'],
  ];
  for (const [value, printed] of cases) {
    it(`${JSON.stringify(value)} → ${printed}`, () => assert.equal(formatJsonPathValue(value), printed));
  }

  it('joins several results with spaces', () => {
    assert.equal(formatJsonPathResults(evaluateJsonPath(obj, '.spec.containers[*].name')), 'main side');
  });
});
