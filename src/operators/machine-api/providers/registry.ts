/**
 * Which provider runs a platform's Machines, chosen by `infrastructure.config.openshift.io/cluster`
 * `status.platformStatus.type`, as OpenShift ships one machine-controller image per platform.
 * This image holds one: `Shipyard`, the datacenter's simulated cloud. Another platform is
 * another entry here behind the same interface.
 */
import type { ApiClient } from '../../../runtime/client.ts';
import type { MachineProvider } from './provider.ts';
import { ShipyardProvider } from './shipyard/provider.ts';

export interface ProviderContext {
  readonly client: ApiClient;
  /** After a transient cloud error, and between looks at a termination under way. */
  readonly requeueAfterMs?: number;
}

const providers: Readonly<Record<string, (ctx: ProviderContext) => MachineProvider>> = {
  Shipyard: (ctx) => new ShipyardProvider({ client: ctx.client, requeueAfterMs: ctx.requeueAfterMs }),
};

export const supportedPlatforms: readonly string[] = Object.keys(providers);

/** Throws, naming the platforms this machine controller serves, unless it serves `platform`. */
export function assertSupportedPlatform(platform: string | undefined): asserts platform is string {
  if (platform && providers[platform]) return;
  throw new Error(
    `no machine provider for platform ${JSON.stringify(platform ?? '')} (infrastructure.config.openshift.io/cluster status.platformStatus.type); this machine controller serves: ${supportedPlatforms.join(', ')}`,
  );
}

/** The provider for `platform`; see assertSupportedPlatform. */
export function providerFor(platform: string | undefined, ctx: ProviderContext): MachineProvider {
  assertSupportedPlatform(platform);
  return providers[platform]!(ctx);
}
