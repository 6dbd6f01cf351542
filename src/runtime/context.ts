/**
 * What every controller is given: the client, the shared informers, where to record events,
 * where to log, what to count, and the clock. A controller module exports a function taking
 * this context and returning its `Controller`s; the component that hosts it (controller-manager,
 * an operator) builds the context once, so controllers never construct clients or informers
 * of their own and tests can hand them a context on a real API server.
 */
import type { Logger } from 'pino';
import type { ApiClient } from './client.ts';
import type { Clock } from './clock.ts';
import type { ControllerObserver } from './controller.ts';
import type { InformerFactory } from './informer-factory.ts';

/** Any object an Event can be about. */
export interface EventSubject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly uid?: string; readonly resourceVersion?: string };
}

export interface EventSink {
  /** Never blocks and never throws: events are best effort, as in Kubernetes. */
  event(obj: EventSubject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface ObserverFactory {
  forController(name: string): ControllerObserver;
}

export interface ControllerContext {
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly recorder: EventSink;
  readonly logger: Logger;
  readonly metrics?: ObserverFactory;
  readonly clock: Clock;
}
