import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from '../api/prometheus.ts';
import { TerminalError } from './reconcile-loop.ts';
import { createComponentMetrics, sanitizeComponent } from './metrics.ts';

/** The value of one sample line in the text exposition, e.g. `x_total{controller="a"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('createComponentMetrics', () => {
  it('counts reconciles by outcome, errors, durations, queue depth and adds per controller', async () => {
    const m = createComponentMetrics('controller-manager');
    const rs = m.forController('replicaset');
    const ds = m.forController('daemonset');
    rs.observe({ key: 'default/a', result: 'success', durationMs: 20 });
    rs.observe({ key: 'default/a', result: 'error', durationMs: 3000, error: new Error('boom') });
    rs.observe({ key: 'default/b', result: 'terminal', durationMs: 1, error: new TerminalError('bad spec') });
    ds.observe({ key: 'x', result: 'requeue', durationMs: 2 });
    rs.countAdd();
    rs.countAdd();
    rs.setDepth(7);

    const text = await m.registry.metrics();
    const p = 'controller_manager';
    assert.equal(sample(text, `${p}_reconcile_total{controller="replicaset",result="success"}`), 1);
    assert.equal(sample(text, `${p}_reconcile_total{controller="replicaset",result="error"}`), 1);
    assert.equal(sample(text, `${p}_reconcile_total{controller="replicaset",result="terminal"}`), 1);
    assert.equal(sample(text, `${p}_reconcile_total{controller="replicaset",result="requeue"}`), 0);
    assert.equal(sample(text, `${p}_reconcile_total{controller="daemonset",result="requeue"}`), 1);
    assert.equal(sample(text, `${p}_reconcile_errors_total{controller="replicaset"}`), 2);
    assert.equal(sample(text, `${p}_reconcile_errors_total{controller="daemonset"}`), 0);
    assert.equal(sample(text, `${p}_reconcile_seconds_count{controller="replicaset"}`), 3);
    assert.equal(sample(text, `${p}_reconcile_seconds_sum{controller="replicaset"}`), 3.021);
    assert.equal(sample(text, `${p}_reconcile_seconds_bucket{le="0.025",controller="replicaset"}`), 2);
    assert.equal(sample(text, `${p}_reconcile_seconds_bucket{le="5",controller="replicaset"}`), 3);
    assert.equal(sample(text, `${p}_workqueue_adds_total{controller="replicaset"}`), 2);
    assert.equal(sample(text, `${p}_workqueue_depth{controller="replicaset"}`), 7);
    assert.equal(sample(text, `${p}_workqueue_depth{controller="daemonset"}`), 0);
    assert.ok(!text.includes('process_cpu'), 'default metrics only when asked');
  });

  it('shares one registration per name: asking again on the same registry does not throw', async () => {
    const registry = new Registry();
    const a = createComponentMetrics('scheduler', registry);
    const b = createComponentMetrics('scheduler', registry);
    assert.equal(a.forController('binder'), a.forController('binder'));
    a.forController('binder').countAdd();
    b.forController('binder').countAdd();
    assert.equal(sample(await registry.metrics(), 'scheduler_workqueue_adds_total{controller="binder"}'), 2);
  });

  it('adds process metrics once when collectDefaults is set', async () => {
    const registry = new Registry();
    createComponentMetrics('kubelet', registry, { collectDefaults: true });
    createComponentMetrics('other', registry, { collectDefaults: true });
    const text = await registry.metrics();
    assert.match(text, /^process_cpu_seconds_total /m);
    assert.match(text, /^# TYPE kubelet_reconcile_total counter$/m);
    assert.match(text, /^# TYPE other_reconcile_total counter$/m);
  });

  it('sanitizes component names for Prometheus', () => {
    assert.equal(sanitizeComponent('Machine-API.Operator'), 'machine_api_operator');
    assert.equal(sanitizeComponent('3scale'), '_3scale');
    assert.throws(() => sanitizeComponent('--'), /no usable characters/);
  });
});
