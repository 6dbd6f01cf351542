import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import {
  commonFieldAccessors,
  compileFieldSelector,
  escapeFieldValue,
  eventFieldAccessors,
  fieldExactMatch,
  fieldRequirementsToString,
  namespaceFieldAccessors,
  nodeFieldAccessors,
  parseFieldSelector,
  podFieldAccessors,
  replicaSetFieldAccessors,
  secretFieldAccessors,
  selectableFieldAccessors,
} from './field-selector.ts';

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

describe('parseFieldSelector', () => {
  const cases: Array<{ selector: string; expected: Array<[string, string, string]> }> = [
    { selector: '', expected: [] },
    { selector: 'metadata.name=web', expected: [['metadata.name', '=', 'web']] },
    { selector: 'metadata.name==web', expected: [['metadata.name', '==', 'web']] },
    { selector: 'status.phase!=Failed', expected: [['status.phase', '!=', 'Failed']] },
    { selector: 'b=2,a=1', expected: [['a', '=', '1'], ['b', '=', '2']] },
    { selector: 'a=1,', expected: [['a', '=', '1']] },
    { selector: 'a=', expected: [['a', '=', '']] },
    { selector: 'a=x\\,y,b=z', expected: [['a', '=', 'x,y'], ['b', '=', 'z']] },
    { selector: 'a=x\\=y', expected: [['a', '=', 'x=y']] },
    { selector: 'a=x\\\\', expected: [['a', '=', 'x\\']] },
    { selector: 'a!=x\\\\\\,y', expected: [['a', '!=', 'x\\,y']] },
  ];
  for (const c of cases) {
    it(`parses ${JSON.stringify(c.selector)}`, () => {
      assert.deepEqual(
        parseFieldSelector(c.selector).map((r) => [r.field, r.operator, r.value]),
        c.expected,
      );
    });
  }

  const errorCases: Array<{ selector: string; message: string }> = [
    { selector: 'a', message: "invalid selector: 'a'; can't understand 'a'" },
    { selector: 'x=1,b', message: "invalid selector: 'x=1,b'; can't understand 'b'" },
    { selector: 'a=b\\c', message: 'invalid field selector: invalid escape sequence: \\c' },
    { selector: 'a=b\\', message: 'invalid field selector: invalid escape sequence: \\' },
    { selector: 'a=b=c', message: 'invalid field selector: unescaped character in value: 61' },
  ];
  for (const c of errorCases) {
    it(`refuses ${JSON.stringify(c.selector)}`, () => {
      const err = failure(() => parseFieldSelector(c.selector));
      assert.equal(err.code, 400);
      assert.equal(err.message, c.message);
    });
  }

  it('escapes and prints values so they parse back', () => {
    const value = 'a,b=c\\d';
    assert.equal(escapeFieldValue(value), 'a\\,b\\=c\\\\d');
    const reqs = parseFieldSelector(`x=${escapeFieldValue(value)},y!=1`);
    assert.equal(reqs[0]!.value, value);
    assert.equal(fieldRequirementsToString(reqs), 'x=a\\,b\\=c\\\\d,y!=1');
  });

  it('finds the value a selector pins a field to', () => {
    assert.equal(fieldExactMatch(parseFieldSelector('metadata.name=web,x!=y'), 'metadata.name'), 'web');
    assert.equal(fieldExactMatch(parseFieldSelector('metadata.name!=web'), 'metadata.name'), undefined);
  });
});

describe('compileFieldSelector', () => {
  const pods = { ...commonFieldAccessors, ...podFieldAccessors };
  const pod = (name: string, node: string | undefined, phase: string) => ({ metadata: { name, namespace: 'default' }, spec: { nodeName: node }, status: { phase } });
  const a = pod('a', 'n1', 'Running');
  const b = pod('b', 'n2', 'Succeeded');
  const c = pod('c', undefined, 'Pending');

  const cases: Array<{ selector: string; matches: string[] }> = [
    { selector: '', matches: ['a', 'b', 'c'] },
    { selector: 'metadata.name=a', matches: ['a'] },
    { selector: 'metadata.namespace=default', matches: ['a', 'b', 'c'] },
    { selector: 'spec.nodeName=n1', matches: ['a'] },
    { selector: 'spec.nodeName=', matches: ['c'] },
    { selector: 'spec.nodeName!=', matches: ['a', 'b'] },
    { selector: 'spec.nodeName=n2,status.phase!=Succeeded,status.phase!=Failed', matches: [] },
    { selector: 'status.phase!=Succeeded,status.phase!=Failed', matches: ['a', 'c'] },
  ];
  for (const t of cases) {
    it(`${JSON.stringify(t.selector)} selects ${t.matches.join(',') || 'nothing'}`, () => {
      const match = compileFieldSelector(t.selector, pods);
      assert.deepEqual(
        [a, b, c].filter(match).map((p) => p.metadata.name),
        t.matches,
      );
    });
  }

  it('refuses a field the resource does not support, as kube-apiserver words it', () => {
    const err = failure(() => compileFieldSelector('metadata.name=a,spec.foo=bar', pods));
    assert.equal(err.code, 400);
    assert.equal(err.message, 'field label not supported: spec.foo');
    assert.equal(failure(() => compileFieldSelector('toString=x', commonFieldAccessors)).message, 'field label not supported: toString');
  });
});

describe('field accessors', () => {
  const cases: Array<{ name: string; accessors: Record<string, (o: unknown) => string | undefined>; field: string; obj: unknown; expected: string | undefined }> = [
    { name: 'pod host network set', accessors: podFieldAccessors, field: 'spec.hostNetwork', obj: { spec: { hostNetwork: true } }, expected: 'true' },
    { name: 'pod host network unset', accessors: podFieldAccessors, field: 'spec.hostNetwork', obj: { spec: {} }, expected: 'false' },
    { name: 'pod IP from podIPs', accessors: podFieldAccessors, field: 'status.podIP', obj: { status: { podIP: '127.128.0.1', podIPs: [{ ip: '127.128.0.1' }, { ip: '2001:db8::1' }] } }, expected: '127.128.0.1' },
    { name: 'pod IP without podIPs', accessors: podFieldAccessors, field: 'status.podIP', obj: { status: { podIP: '127.128.0.2' } }, expected: '127.128.0.2' },
    { name: 'pod restart policy', accessors: podFieldAccessors, field: 'spec.restartPolicy', obj: { spec: { restartPolicy: 'Never' } }, expected: 'Never' },
    { name: 'pod scheduler', accessors: podFieldAccessors, field: 'spec.schedulerName', obj: { spec: { schedulerName: 'default-scheduler' } }, expected: 'default-scheduler' },
    { name: 'pod service account', accessors: podFieldAccessors, field: 'spec.serviceAccountName', obj: { spec: { serviceAccountName: 'sa' } }, expected: 'sa' },
    { name: 'pod nominated node', accessors: podFieldAccessors, field: 'status.nominatedNodeName', obj: { status: { nominatedNodeName: 'n3' } }, expected: 'n3' },
    { name: 'node unschedulable', accessors: nodeFieldAccessors, field: 'spec.unschedulable', obj: { spec: { unschedulable: true } }, expected: 'true' },
    { name: 'node schedulable', accessors: nodeFieldAccessors, field: 'spec.unschedulable', obj: {}, expected: 'false' },
    { name: 'secret type', accessors: secretFieldAccessors, field: 'type', obj: { type: 'kubernetes.io/tls' }, expected: 'kubernetes.io/tls' },
    { name: 'namespace phase', accessors: namespaceFieldAccessors, field: 'status.phase', obj: { status: { phase: 'Terminating' } }, expected: 'Terminating' },
    { name: 'replicaset replicas', accessors: replicaSetFieldAccessors, field: 'status.replicas', obj: { status: { replicas: 3 } }, expected: '3' },
    { name: 'event involved uid', accessors: eventFieldAccessors, field: 'involvedObject.uid', obj: { involvedObject: { uid: 'u1' } }, expected: 'u1' },
    { name: 'event involved kind (events.k8s.io)', accessors: eventFieldAccessors, field: 'involvedObject.kind', obj: { regarding: { kind: 'Pod' } }, expected: 'Pod' },
    { name: 'event source component', accessors: eventFieldAccessors, field: 'source', obj: { source: { component: 'kubelet' } }, expected: 'kubelet' },
    { name: 'event source falls back to the reporting controller', accessors: eventFieldAccessors, field: 'source', obj: { reportingComponent: 'scheduler' }, expected: 'scheduler' },
    { name: 'event reporting component', accessors: eventFieldAccessors, field: 'reportingComponent', obj: { reportingComponent: 'kubelet' }, expected: 'kubelet' },
    { name: 'event type', accessors: eventFieldAccessors, field: 'type', obj: { type: 'Warning' }, expected: 'Warning' },
    { name: 'event reason', accessors: eventFieldAccessors, field: 'reason', obj: { reason: 'BackOff' }, expected: 'BackOff' },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(c.accessors[c.field]!(c.obj), c.expected));
  }

  it('has every involvedObject field for events', () => {
    for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) assert.ok(eventFieldAccessors[`involvedObject.${f}`], f);
  });

  it('builds accessors for CRD selectable fields', () => {
    const fields = selectableFieldAccessors(['.spec.color', '.spec.size', '.spec.enabled', '.spec.nested', '.spec.missing', "['odd'", undefined]);
    assert.deepEqual(Object.keys(fields).sort(), ['spec.color', 'spec.enabled', 'spec.missing', 'spec.nested', 'spec.size']);
    const obj = { spec: { color: 'blue', size: 3, enabled: false, nested: { a: 1 } } };
    assert.equal(fields['spec.color']!(obj), 'blue');
    assert.equal(fields['spec.size']!(obj), '3');
    assert.equal(fields['spec.enabled']!(obj), 'false');
    assert.equal(fields['spec.nested']!(obj), undefined);
    assert.equal(fields['spec.missing']!(obj), undefined);
    const match = compileFieldSelector('spec.color=blue,spec.size!=4', { ...commonFieldAccessors, ...fields });
    assert.equal(match(obj), true);
  });
});
