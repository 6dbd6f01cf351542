/**
 * Per-controller Prometheus metrics, named after the component that hosts the controllers
 * (ARCHITECTURE.md, "Conventions"): `<component>_reconcile_total{controller,result}`,
 * `<component>_reconcile_errors_total{controller}`, `<component>_reconcile_seconds{controller}`,
 * `<component>_workqueue_depth{controller}` and `<component>_workqueue_adds_total{controller}`.
 *
 * One metric object per name serves every controller of the component, told apart by the
 * `controller` label; prom-client refuses a second registration of a name, so asking twice for
 * the same component on the same registry returns the metrics already there.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from '../api/prometheus.ts';
import type { ReconcileOutcome, ReconcileReport } from './reconcile-loop.ts';

export interface ControllerMetrics {
  observe(report: ReconcileReport): void;
  setDepth(n: number): void;
  countAdd(): void;
}

export interface ComponentMetrics {
  readonly registry: Registry;
  /** The same object for the same name, so callers need not keep it. */
  forController(name: string): ControllerMetrics;
}

export interface ComponentMetricsOptions {
  /** Also export prom-client's process_* and nodejs_* metrics (once per registry). */
  collectDefaults?: boolean;
}

const OUTCOMES: readonly ReconcileOutcome[] = ['success', 'requeue', 'error', 'terminal'];

/**
 * From a quick in-memory reconcile (1 ms) to one that waits on a slow API call (a minute);
 * few buckets, since there is one series per bucket per controller.
 */
const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** `machine-api-operator` → `machine_api_operator`: Prometheus names allow [a-zA-Z0-9_:] and no leading digit. */
export function sanitizeComponent(component: string): string {
  const s = component.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (!/[a-z0-9]/.test(s)) throw new RangeError(`metrics: component name ${JSON.stringify(component)} has no usable characters`);
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

export function createComponentMetrics(component: string, registry: Registry = new Registry(), options: ComponentMetricsOptions = {}): ComponentMetrics {
  const p = sanitizeComponent(component);
  const registers = [registry];
  const total = getOrCreate(registry, `${p}_reconcile_total`, () => new Counter({ name: `${p}_reconcile_total`, help: 'Reconciles by controller and outcome (success, requeue, error, terminal).', labelNames: ['controller', 'result'], registers }));
  const errors = getOrCreate(registry, `${p}_reconcile_errors_total`, () => new Counter({ name: `${p}_reconcile_errors_total`, help: 'Reconciles that failed, retried or not.', labelNames: ['controller'], registers }));
  const seconds = getOrCreate(registry, `${p}_reconcile_seconds`, () => new Histogram({ name: `${p}_reconcile_seconds`, help: 'Time spent in one reconcile.', labelNames: ['controller'], buckets: RECONCILE_BUCKETS, registers }));
  const depth = getOrCreate(registry, `${p}_workqueue_depth`, () => new Gauge({ name: `${p}_workqueue_depth`, help: 'Keys waiting in the work queue.', labelNames: ['controller'], registers }));
  const adds = getOrCreate(registry, `${p}_workqueue_adds_total`, () => new Counter({ name: `${p}_workqueue_adds_total`, help: 'Keys added to the work queue.', labelNames: ['controller'], registers }));

  // Checked by name rather than remembered, so a registry shared by two components gets them once.
  if (options.collectDefaults && !registry.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics({ register: registry });

  const controllers = new Map<string, ControllerMetrics>();
  return {
    registry,
    forController(name) {
      const existing = controllers.get(name);
      if (existing) return existing;
      const labels = { controller: name };
      // Zero-valued series from the start, so rate() and absent() work before the first event.
      for (const result of OUTCOMES) total.inc({ controller: name, result }, 0);
      errors.inc(labels, 0);
      adds.inc(labels, 0);
      depth.set(labels, 0);
      const m: ControllerMetrics = {
        observe(report) {
          total.inc({ controller: name, result: report.result });
          if (report.result === 'error' || report.result === 'terminal') errors.inc(labels);
          seconds.observe(labels, report.durationMs / 1000);
        },
        setDepth: (n) => depth.set(labels, n),
        countAdd: () => adds.inc(labels),
      };
      controllers.set(name, m);
      return m;
    },
  };
}
