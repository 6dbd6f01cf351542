/**
 * Test support: controllers running in the test process against a freshly started API server,
 * wired as a controller-manager wires them (one client, one set of shared informers, one
 * context) but without a manager or leader election, so a test sees only the controllers it
 * names. Not a test file itself.
 */
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { ApiClient } from '../../src/runtime/client.ts';
import { realClock, type Clock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import type { Controller } from '../../src/runtime/controller.ts';
import { createEventRecorder } from '../../src/runtime/events.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';

export interface ControllerHarnessOptions {
  readonly server?: TestServerOptions;
  /** The client's User-Agent, which tells this test's requests apart in the server's log. */
  readonly userAgent: string;
  /**
   * Writes the controllers' Events to the API as this component, for tests that read them back;
   * without it Events are dropped.
   */
  readonly eventsAs?: string;
  /** Runs before any informer starts: objects the controllers are to find already there at start. */
  readonly seed?: (client: ApiClient) => Promise<void>;
  /** The controllers' clock; the real one unless given (a FakeClock drives their timers and the times they write). */
  readonly clock?: Clock;
}

export interface RunningControllers {
  readonly ts: TestServer;
  readonly kubeConfig: KubeConfig;
  readonly client: ApiClient;
  readonly informers: InformerFactory;
  readonly ctx: ControllerContext;
  /** Stops the controllers, then the client, then the server; calling it again waits for the first call. */
  stop(): Promise<void>;
}

/** Starts a server, then the controllers `build` makes from a context on it, once their informers have synced. */
export async function startControllers(options: ControllerHarnessOptions, build: (ctx: ControllerContext) => readonly Controller[]): Promise<RunningControllers> {
  const ts = await startTestServer(options.server);
  const abort = new AbortController();
  let client: ApiClient | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      abort.abort();
      // Each step runs even if the one before it threw: a failed controller must not leave the server up.
      try {
        await running;
      } finally {
        try {
          client?.close();
        } finally {
          await ts.stop();
        }
      }
    })());
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: options.userAgent });
    await options.seed?.(client);
    const informers = new InformerFactory({ client, signal: abort.signal });
    const ctx: ControllerContext = {
      client,
      informers,
      recorder: options.eventsAs ? createEventRecorder({ kubeConfig, component: options.eventsAs, signal: abort.signal, retryDelayMs: 100 }) : { event: () => {} },
      logger: pino({ level: 'silent' }),
      clock: options.clock ?? realClock,
    };
    const controllers = build(ctx);
    await informers.waitForSync();
    running = Promise.all(controllers.map((c) => c.run(abort.signal)));
    return { ts, kubeConfig, client, informers, ctx, stop };
  } catch (err) {
    // The caller gets no stop() to call: take down what was started here.
    await stop().catch(() => {});
    throw err;
  }
}
