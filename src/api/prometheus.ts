/**
 * prom-client's registry and metric types, loaded from its own files rather than its index.
 * The index also loads the Pushgateway (and with it zlib), the Summary and the cluster
 * aggregator, which no component uses. Measured in a process that already talks HTTPS to an
 * API server: the index adds ~2.3 MiB of heap and ~0.45 MiB of the node binary resident, these
 * files ~1.3 MiB and ~0.2 MiB. Every component process counts its reconciles, so each of a
 * cluster's thirty-odd processes would pay the difference.
 */
import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof prom.Registry = require('prom-client/lib/registry');
export type Registry = prom.Registry;
export const Counter: typeof prom.Counter = require('prom-client/lib/counter');
export type Counter<T extends string = string> = prom.Counter<T>;
export const Gauge: typeof prom.Gauge = require('prom-client/lib/gauge');
export type Gauge<T extends string = string> = prom.Gauge<T>;
export const Histogram: typeof prom.Histogram = require('prom-client/lib/histogram');
export type Histogram<T extends string = string> = prom.Histogram<T>;
/** prom-client's process_* and nodejs_* metrics. */
export const collectDefaultMetrics: typeof prom.collectDefaultMetrics = require('prom-client/lib/defaultMetrics');
