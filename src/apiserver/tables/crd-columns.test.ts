import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdTableConvertor, printerCell } from './crd-columns.ts';

const now = Date.parse('2025-01-01T12:00:00Z');
const ago = (ms: number): string => new Date(now - ms).toISOString();

const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', creationTimestamp: ago(90_000), labels: { 'app.kubernetes.io/name': 'shop' } },
  spec: { replicas: 3, ratio: 0.25, enabled: true, color: 'blue', size: { cpu: 2 }, tags: ['a', 'b'] },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(3 * 3_600_000) }] },
};

describe('crdTableConvertor', () => {
  it('adds the implicit Age column when a version has no printer columns', () => {
    for (const columns of [undefined, null, []]) {
      const t = crdTableConvertor(columns);
      assert.deepEqual(
        t.columns.map((c) => [c.name, c.type, c.format, c.priority]),
        [
          ['Name', 'string', 'name', 0],
          ['Age', 'date', '', 0],
        ],
      );
      assert.deepEqual(t.cells(widget, now), ['w1', '90s']);
    }
  });

  it('uses the printer columns, Name first, with no implicit Age', () => {
    const t = crdTableConvertor([
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'How many' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1, format: 'byte' },
      { name: 'Since', type: 'date', jsonPath: '.status.conditions[0].lastTransitionTime' },
    ]);
    assert.deepEqual(
      t.columns.map((c) => [c.name, c.type, c.format, c.description, c.priority]),
      [
        ['Name', 'string', 'name', t.columns[0]!.description, 0],
        ['Replicas', 'integer', '', 'How many', 0],
        ['Ready', 'string', '', '', 0],
        ['Color', 'string', 'byte', '', 1],
        ['Since', 'date', '', '', 0],
      ],
    );
    assert.deepEqual(t.cells(widget, now), ['w1', 3, 'True', 'blue', '3h']);
  });

  const cellCases: Array<{ name: string; type: string; jsonPath: string; expected: unknown }> = [
    { name: 'integer', type: 'integer', jsonPath: '.spec.replicas', expected: 3 },
    { name: 'integer from a float truncates', type: 'integer', jsonPath: '.spec.ratio', expected: 0 },
    { name: 'integer from a string is empty', type: 'integer', jsonPath: '.spec.color', expected: null },
    { name: 'number', type: 'number', jsonPath: '.spec.ratio', expected: 0.25 },
    { name: 'number from an integer', type: 'number', jsonPath: '.spec.replicas', expected: 3 },
    { name: 'boolean', type: 'boolean', jsonPath: '.spec.enabled', expected: true },
    { name: 'boolean from a string is empty', type: 'boolean', jsonPath: '.spec.color', expected: null },
    { name: 'string of a map is JSON', type: 'string', jsonPath: '.spec.size', expected: '{"cpu":2}' },
    { name: 'string of a list is JSON', type: 'string', jsonPath: '.spec.tags', expected: '["a","b"]' },
    { name: 'string of a number', type: 'string', jsonPath: '.spec.ratio', expected: '0.25' },
    { name: 'string of a boolean', type: 'string', jsonPath: '.spec.enabled', expected: 'true' },
    { name: 'label with dots', type: 'string', jsonPath: ".metadata.labels['app.kubernetes.io/name']", expected: 'shop' },
    { name: 'first of several results', type: 'string', jsonPath: '.spec.tags[*]', expected: 'a' },
    { name: 'date', type: 'date', jsonPath: '.metadata.creationTimestamp', expected: '90s' },
    { name: 'date from a non-date string', type: 'date', jsonPath: '.spec.color', expected: '<invalid>' },
    { name: 'date from a number is empty', type: 'date', jsonPath: '.spec.replicas', expected: null },
    { name: 'missing value', type: 'string', jsonPath: '.spec.missing', expected: null },
    { name: 'missing integer', type: 'integer', jsonPath: '.status.replicas', expected: null },
    { name: 'unparseable path', type: 'string', jsonPath: '.spec[', expected: null },
  ];
  for (const c of cellCases) {
    it(`cell: ${c.name}`, () => {
      const t = crdTableConvertor([{ name: 'X', type: c.type, jsonPath: c.jsonPath }]);
      assert.deepEqual(t.cells(widget, now), ['w1', c.expected]);
    });
  }

  it('converts dates as metav1.Time query parameters do', () => {
    assert.equal(printerCell('date', '', now), '<unknown>');
    assert.equal(printerCell('date', 'null', now), '<unknown>');
    assert.equal(printerCell('date', '2025-01-01T11:00:00Z', now), '60m');
    assert.equal(printerCell('date', '2025-01-01T13:00:00Z', now), '<invalid>');
    assert.equal(printerCell('string', null, now), '<no value>');
    assert.equal(printerCell('integer', null, now), null);
  });
});
