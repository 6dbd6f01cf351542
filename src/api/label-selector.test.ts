import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compileLabelSelector,
  formatLabelSelector,
  formatLabels,
  isEmptySelector,
  labelSelectorRequirements,
  labelSelectorToString,
  LabelSelectorParseError,
  matchesLabelSet,
  matchesRequirements,
  matchLabelSelector,
  parseLabelRequirements,
  requirementsToString,
  type LabelSelector,
} from './label-selector.ts';

function parseError(selector: string): LabelSelectorParseError {
  try {
    parseLabelRequirements(selector);
  } catch (err) {
    assert.ok(err instanceof LabelSelectorParseError, `expected a LabelSelectorParseError, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${JSON.stringify(selector)} to be refused`);
}

const parseLabelSelector = (selector: string) => {
  const requirements = parseLabelRequirements(selector);
  return (labels: Record<string, string> | undefined) => matchesRequirements(requirements, labels);
};

describe('parseLabelRequirements', () => {
  const cases: Array<{ selector: string; printed: string; requirements?: Array<[string, string, string[]]> }> = [
    { selector: '', printed: '', requirements: [] },
    { selector: '   ', printed: '', requirements: [] },
    { selector: 'app=web', printed: 'app=web', requirements: [['app', '=', ['web']]] },
    { selector: 'app==web', printed: 'app==web', requirements: [['app', '==', ['web']]] },
    { selector: 'app!=web', printed: 'app!=web', requirements: [['app', '!=', ['web']]] },
    { selector: 'tier in (b, a)', printed: 'tier in (a,b)', requirements: [['tier', 'in', ['a', 'b']]] },
    { selector: 'tier notin (a,b,a)', printed: 'tier notin (a,b)', requirements: [['tier', 'notin', ['a', 'b']]] },
    { selector: 'app', printed: 'app', requirements: [['app', 'exists', []]] },
    { selector: '!app', printed: '!app', requirements: [['app', '!', []]] },
    { selector: '  app = web ,\ttier in ( a , b ) ', printed: 'app=web,tier in (a,b)' },
    { selector: 'x in (foo,,baz),y,z notin ()', printed: 'x in (,baz,foo),y,z notin ()' },
    { selector: 'a in (in,notin)', printed: 'a in (in,notin)' },
    { selector: 'in=notin', printed: 'in=notin' },
    { selector: 'example.com/app=web', printed: 'example.com/app=web' },
    { selector: 'a=', printed: 'a=', requirements: [['a', '=', ['']]] },
    { selector: 'a=,b', printed: 'a=,b' },
    { selector: 'count>3,count<10', printed: 'count>3,count<10' },
    { selector: 'b=1,a in (z,y)', printed: 'a in (y,z),b=1' },
    { selector: 'a in (x,)', printed: 'a in (,x)' },
  ];
  for (const c of cases) {
    it(`parses ${JSON.stringify(c.selector)}`, () => {
      const reqs = parseLabelRequirements(c.selector);
      assert.equal(requirementsToString(reqs), c.printed);
      if (c.requirements) assert.deepEqual(reqs.map((r) => [r.key, r.operator, r.values]), c.requirements);
    });
  }

  const nameRule = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
  const valueRule = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`;
  const errorCases: Array<{ selector: string; message: string }> = [
    { selector: 'app=web,', message: "found '', expected: identifier after ','" },
    { selector: ',a', message: "found ',', expected: !, identifier, or 'end of string'" },
    { selector: 'a b', message: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt" },
    { selector: 'a in b', message: "unable to parse requirement: found 'b' expected: '('" },
    { selector: 'a in (b', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { selector: 'a in (b c)', message: "unable to parse requirement: found 'c', expected: ',' or ')'" },
    { selector: 'a in (=)', message: "unable to parse requirement: found '=', expected: ',', ')' or identifier" },
    { selector: 'a=b c', message: "found 'c', expected: ',' or 'end of string'" },
    { selector: 'a=b=c', message: "found '=', expected: ',' or 'end of string'" },
    { selector: '!a=b', message: "found '=', expected: ',' or 'end of string'" },
    { selector: 'a=(b)', message: "unable to parse requirement: found '(', expected: identifier" },
    { selector: '!!a', message: "unable to parse requirement: found '!', expected: identifier" },
    { selector: '-a=b', message: `unable to parse requirement: <nil>: Invalid value: "-a": ${nameRule}` },
    { selector: `${'k'.repeat(64)}=v`, message: `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters` },
    { selector: 'a=-b', message: `unable to parse requirement: values[0][a]: Invalid value: "-b": ${valueRule}` },
    { selector: 'a>b', message: `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer` },
    {
      selector: 'a in (-x,-y)',
      message: `unable to parse requirement: [values[0][a]: Invalid value: "-x": ${valueRule}, values[1][a]: Invalid value: "-y": ${valueRule}]`,
    },
  ];
  for (const c of errorCases) {
    it(`refuses ${JSON.stringify(c.selector)}`, () => {
      assert.equal(parseError(c.selector).message, c.message);
    });
  }
});

describe('parseLabelSelector matching', () => {
  const labels = { app: 'web', tier: 'frontend', count: '5', empty: '' };
  const cases: Array<[selector: string, input: Record<string, string> | undefined, expected: boolean]> = [
    ['', labels, true],
    ['', undefined, true],
    ['app=web', labels, true],
    ['app=db', labels, false],
    ['app==web', labels, true],
    ['app!=db', labels, true],
    ['app!=web', labels, false],
    ['missing!=x', labels, true],
    ['tier in (frontend,backend)', labels, true],
    ['tier in (backend)', labels, false],
    ['missing in (x)', labels, false],
    ['tier notin (backend)', labels, true],
    ['tier notin (frontend)', labels, false],
    ['missing notin (x)', labels, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['empty=', labels, true],
    ['empty', labels, true],
    ['count>4', labels, true],
    ['count>5', labels, false],
    ['count<6', labels, true],
    ['tier>1', labels, false],
    ['app=web,tier=frontend', labels, true],
    ['app=web,tier=backend', labels, false],
    ['app', undefined, false],
    ['!app', undefined, true],
    ['toString', {}, false],
  ];
  for (const [selector, input, expected] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(parseLabelSelector(selector)(input), expected);
    });
  }
});

describe('structured label selectors', () => {
  const labels = { app: 'web', tier: 'frontend' };
  const cases: Array<{ name: string; selector: LabelSelector | null | undefined; matches: boolean; text: string; formatted: string }> = [
    { name: 'missing selects nothing', selector: undefined, matches: false, text: '', formatted: '<none>' },
    { name: 'null selects nothing', selector: null, matches: false, text: '', formatted: '<none>' },
    { name: 'empty selects everything', selector: {}, matches: true, text: '', formatted: '<none>' },
    { name: 'matchLabels', selector: { matchLabels: { app: 'web' } }, matches: true, text: 'app=web', formatted: 'app=web' },
    { name: 'matchLabels miss', selector: { matchLabels: { app: 'db' } }, matches: false, text: 'app=db', formatted: 'app=db' },
    {
      name: 'labels and expressions',
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend', 'api'] }] },
      matches: true,
      text: 'app=web,tier in (api,frontend)',
      formatted: 'app=web,tier in (api,frontend)',
    },
    { name: 'NotIn', selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['frontend'] }] }, matches: false, text: 'tier notin (frontend)', formatted: 'tier notin (frontend)' },
    { name: 'Exists', selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, matches: true, text: 'tier', formatted: 'tier' },
    { name: 'DoesNotExist', selector: { matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, matches: true, text: '!canary', formatted: '!canary' },
    { name: 'sorted by key', selector: { matchLabels: { z: '1', a: '2' } }, matches: false, text: 'a=2,z=1', formatted: 'a=2,z=1' },
    { name: 'an unknown operator matches nothing', selector: { matchExpressions: [{ key: 'tier', operator: 'Like', values: ['x'] }] }, matches: false, text: '', formatted: '<error>' },
    { name: 'In without values is invalid', selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: [] }] }, matches: false, text: 'tier in ()', formatted: '<error>' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(matchLabelSelector(c.selector, labels), c.matches);
      assert.equal(labelSelectorToString(c.selector), c.text);
      assert.equal(formatLabelSelector(c.selector), c.formatted);
    });
  }

  it('formats label maps as kubectl does', () => {
    assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(formatLabels(undefined), '<none>');
  });
});

describe('compileLabelSelector', () => {
  it('follows the LabelSelector rules: missing selects nothing, empty everything', () => {
    assert.equal(compileLabelSelector(undefined).matches!({ a: 'b' }), false);
    assert.equal(compileLabelSelector(null).matches!({ a: 'b' }), false);
    assert.equal(compileLabelSelector({}).matches!({ a: 'b' }), true);
    assert.equal(compileLabelSelector({}).matches!(undefined), true);
    assert.equal(compileLabelSelector({ matchLabels: {}, matchExpressions: [] }).matches!({}), true);
    const sel = compileLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'canary', operator: 'DoesNotExist' }] }).matches!;
    assert.equal(sel({ app: 'web', tier: 'a' }), true);
    assert.equal(sel({ app: 'web', tier: 'c' }), false);
    assert.equal(sel({ app: 'web', tier: 'a', canary: '' }), false);
    assert.equal(sel(undefined), false);
    assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] }).matches!({}), true);
    assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Exists', values: null }] }).matches!({ x: '' }), true);
  });

  it('reads only own labels, not what every object inherits', () => {
    assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }).matches!({}), false);
    assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'toString', operator: 'DoesNotExist' }] }).matches!({}), true);
  });

  it('refuses selectors kube would reject, naming the field', () => {
    const cases: Array<{ selector: LabelSelector; error: string }> = [
      { selector: { matchExpressions: [{ key: 'x', operator: 'Near' }] }, error: 'spec.selector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"' },
      { selector: { matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }, error: "spec.selector.matchExpressions[0].values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty" },
      { selector: { matchExpressions: [{ key: 'x', operator: 'NotIn' }] }, error: "spec.selector.matchExpressions[0].values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty" },
      {
        selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'x', operator: 'DoesNotExist', values: ['y'] }] },
        error: `spec.selector.matchExpressions[1].values: Invalid value: []string{"y"}: values set must be empty for exists and does not exist`,
      },
      { selector: { matchExpressions: [{ key: '-x', operator: 'Exists' }] }, error: 'spec.selector.matchExpressions[0].key: Invalid value: "-x": name part must consist of' },
      { selector: { matchExpressions: [{ key: 'x', operator: 'In', values: ['-y'] }] }, error: 'spec.selector.matchExpressions[0].values[0][x]: Invalid value: "-y": a valid label must be' },
      { selector: { matchLabels: { '-x': 'y' } }, error: 'spec.selector.matchLabels: Invalid value: "-x": name part must consist of' },
      { selector: { matchLabels: { x: '-y' } }, error: 'spec.selector.matchLabels: Invalid value: "-y": a valid label must be' },
    ];
    for (const c of cases) {
      const compiled = compileLabelSelector(c.selector, 'spec.selector');
      assert.equal(compiled.matches, undefined, JSON.stringify(c.selector));
      assert.ok(compiled.error?.startsWith(c.error), `${compiled.error}\n  does not start with\n${c.error}`);
      assert.equal(matchLabelSelector(c.selector, { x: 'y' }), false, 'an invalid selector matches nothing');
    }
    assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Near' }] }).error, 'matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"');
  });

  it('converts to requirements sorted by key, or says it selects nothing', () => {
    assert.deepEqual(labelSelectorRequirements(undefined), { kind: 'nothing' });
    assert.deepEqual(labelSelectorRequirements({}), { kind: 'requirements', requirements: [] });
    const converted = labelSelectorRequirements({ matchLabels: { z: '1' }, matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] });
    assert.equal(converted.kind === 'requirements' && requirementsToString(converted.requirements), 'a notin (x),z=1');
  });

  it('tells an empty selector and a full label set apart', () => {
    assert.equal(isEmptySelector({}), true);
    assert.equal(isEmptySelector({ matchLabels: {}, matchExpressions: [] }), true);
    assert.equal(isEmptySelector(undefined), false, 'missing is not empty: it selects nothing');
    assert.equal(isEmptySelector({ matchLabels: { a: 'b' } }), false);
    assert.equal(matchesLabelSet({ a: '1' }, { a: '1', b: '2' }), true);
    assert.equal(matchesLabelSet({ a: '1', b: '2' }, { a: '1' }), false);
    assert.equal(matchesLabelSet({}, undefined), true);
    assert.equal(matchesLabelSet(undefined, { a: '1' }), true);
    assert.equal(matchesLabelSet({ a: '1' }, undefined), false);
  });
});
