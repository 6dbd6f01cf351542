/**
 * Prometheus metrics at `/metrics`: requests by verb, resource and code, their latency,
 * open watches, and the store revision. One registry per server, so several servers in one
 * process (tests) do not collide.
 */
import { Counter, Gauge, Histogram, Registry } from '../api/prometheus.ts';

export class ApiServerMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'verb' | 'resource' | 'code'>;
  readonly latency: Histogram<'verb' | 'resource'>;
  readonly watchers: Gauge<'resource'>;
  readonly watchEvents: Counter<'resource'>;
  /** Writes per store transaction: with the default durability each transaction is one fsync. */
  readonly storageBatchWrites: Histogram;

  constructor(currentRevision: () => Promise<number>) {
    this.requests = new Counter({ name: 'apiserver_request_total', help: 'API requests by verb, resource and HTTP code.', labelNames: ['verb', 'resource', 'code'], registers: [this.registry] });
    this.latency = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'API request latency by verb and resource (watches excluded).',
      labelNames: ['verb', 'resource'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.watchers = new Gauge({ name: 'apiserver_registered_watchers', help: 'Open watch streams by resource.', labelNames: ['resource'], registers: [this.registry] });
    this.watchEvents = new Counter({ name: 'apiserver_watch_events_total', help: 'Watch events sent, by resource.', labelNames: ['resource'], registers: [this.registry] });
    this.storageBatchWrites = new Histogram({
      name: 'apiserver_storage_batch_writes',
      help: 'Writes acknowledged per store transaction (group commit); with the default durability each transaction costs one fsync.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [this.registry],
    });
    new Gauge({
      name: 'apiserver_storage_revision',
      help: 'The newest revision in the store (the largest resourceVersion).',
      registers: [this.registry],
      async collect() {
        this.set(await currentRevision());
      },
    });
  }
}
