/**
 * The daemon's metrics, under the MCO daemon's names where it has them, so its alerts and
 * dashboards read the same: `mcd_state{state,reason}` (1 for the state the node is in),
 * `mcd_update_state{config,err}` (the last update: its config and error, if any),
 * `mcd_drain_err` (1 while the last drain failed), `mcd_config_drift` (when drift was last
 * found, in seconds since the epoch; 0 when none) and, Shipyard's,
 * `mcd_reboots_requested_total`. The reconcile and work-queue metrics of every component come
 * with them (runtime/metrics.ts).
 */
import { Counter, Gauge, Registry } from '../../../api/prometheus.ts';
import { createComponentMetrics, type ComponentMetrics } from '../../../runtime/metrics.ts';

export interface DaemonMetrics {
  readonly registry: Registry;
  readonly component: ComponentMetrics;
  state(state: string, reason: string): void;
  updateState(config: string, err: string): void;
  drainFailed(failed: boolean): void;
  drift(atEpochMs: number | undefined): void;
  rebootRequested(): void;
}

/** Reasons can be long; the label keeps the first line's start, the annotation keeps it all. */
const labelText = (s: string): string => s.split('\n')[0]!.slice(0, 256);

/**
 * `collectDefaults` adds prom-client's process metrics: worth it when the metrics are served,
 * waste for the hundreds of daemons a benchmark runs in one process with nobody scraping them.
 */
export function createDaemonMetrics(component: string, o: { registry?: Registry; collectDefaults?: boolean } = {}): DaemonMetrics {
  const registry = o.registry ?? new Registry();
  const registers = [registry];
  const state = new Gauge({ name: 'mcd_state', help: 'The machine-config daemon state of this node (1 for the current state).', labelNames: ['state', 'reason'], registers });
  const update = new Gauge({ name: 'mcd_update_state', help: 'The last update the daemon made: its config, and its error if it failed.', labelNames: ['config', 'err'], registers });
  const drain = new Gauge({ name: 'mcd_drain_err', help: '1 while the last drain of this node failed.', registers });
  const drift = new Gauge({ name: 'mcd_config_drift', help: 'When a managed file was last found changed by hand, in seconds since the epoch; 0 when none is.', registers });
  const reboots = new Counter({ name: 'mcd_reboots_requested_total', help: 'Reboots the daemon asked the node for.', registers });
  drain.set(0);
  drift.set(0);
  reboots.inc(0);
  return {
    registry,
    component: createComponentMetrics(component, registry, { collectDefaults: o.collectDefaults ?? false }),
    state(s, reason) {
      // One series: the previous state's would otherwise stay at 1 beside it.
      state.reset();
      state.set({ state: s, reason: labelText(reason) }, 1);
    },
    updateState(config, err) {
      update.reset();
      update.set({ config, err: labelText(err) }, 1);
    },
    drainFailed: (failed) => drain.set(failed ? 1 : 0),
    drift: (at) => drift.set(at === undefined ? 0 : Math.floor(at / 1000)),
    rebootRequested: () => reboots.inc(),
  };
}
