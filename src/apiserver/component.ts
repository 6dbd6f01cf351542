/**
 * The kube-apiserver component: what the `kube-apiserver` static pod on a master runs, as a
 * process or inline. Flags follow kube-apiserver's names where one exists.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { parseDuration } from '../api/duration.ts';
import { isStoreDurability, storeDurabilities } from '../storage/sqlite.ts';
import { startApiServer } from './server.ts';

/** Structurally the runtime's ComponentContext (apiserver/ may not import runtime/). */
interface ComponentContext {
  readonly signal: AbortSignal;
  readonly args: readonly string[];
}

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export async function start(ctx: ComponentContext): Promise<void> {
  const { values } = parseArgs({
    args: [...ctx.args],
    options: {
      'data-dir': { type: 'string' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'secure-port': { type: 'string', default: '6443' },
      'advertise-url': { type: 'string' },
      // The address published in the kubernetes Service's Endpoints (default: --bind-address).
      'advertise-address': { type: 'string' },
      'api-audiences': { type: 'string', multiple: true, default: [] },
      'tls-san': { type: 'string', multiple: true, default: [] },
      'service-cluster-ip-range': { type: 'string', default: '127.64.0.0/16' },
      // fsync (default) or process-crash-only; see ApiServerOptions.storeDurability.
      'store-durability': { type: 'string', default: 'fsync' },
      // How long a replica told to stop keeps serving with /readyz failing, so the load balancer
      // (which checks every second and drops a replica at its first failed check) has sent new
      // connections elsewhere before the listener closes. kube's default is 0 (clients retry),
      // OpenShift's 70s (cloud load balancers check every 10 s, several times); 3s is three of
      // our balancer's checks, and it adds only that to each replica's turn in a rollout and to
      // a one-master cluster's handover from its bootstrap API server.
      'shutdown-delay-duration': { type: 'string', default: '3s' },
      // Over how long watches are ended once the listener closes (0: all at once).
      'shutdown-watch-termination-grace-period': { type: 'string', default: '0s' },
    },
    strict: true,
  });
  const dataDir = values['data-dir'];
  if (!dataDir) throw new Error('kube-apiserver: --data-dir is required');
  const bind = values['bind-address']!;
  if (!LOOPBACK.test(bind)) throw new Error(`kube-apiserver: --bind-address ${bind} is not a loopback address (127.0.0.0/8)`);
  const port = Number(values['secure-port']);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`kube-apiserver: --secure-port ${values['secure-port']} is not a port number`);
  const advertiseAddress = values['advertise-address'];
  if (advertiseAddress !== undefined && !LOOPBACK.test(advertiseAddress)) throw new Error(`kube-apiserver: --advertise-address ${advertiseAddress} is not a loopback address (127.0.0.0/8)`);
  const durability = values['store-durability']!;
  if (!isStoreDurability(durability)) throw new Error(`kube-apiserver: --store-durability ${durability} is not one of ${storeDurabilities.join(', ')}`);
  const sans = values['tls-san'] ?? [];
  const serviceRange = values['service-cluster-ip-range']!;
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}\/(1[6-9]|2[0-4])$/.test(serviceRange)) throw new Error(`kube-apiserver: --service-cluster-ip-range ${serviceRange} is not a loopback range between /16 and /24 (127.0.0.0/8)`);
  const delayMs = durationFlag('shutdown-delay-duration', values['shutdown-delay-duration']!);
  const watchGraceMs = durationFlag('shutdown-watch-termination-grace-period', values['shutdown-watch-termination-grace-period']!);
  const server = await startApiServer({
    dataDir: resolve(dataDir),
    port,
    bind,
    advertiseUrl: values['advertise-url'],
    advertiseAddress,
    apiAudiences: (values['api-audiences'] ?? []).flatMap((a) => a.split(',')).filter(Boolean),
    ipAddresses: sans.filter((s) => LOOPBACK.test(s)),
    dnsNames: sans.filter((s) => !LOOPBACK.test(s)),
    storeDurability: durability,
    serviceClusterIpRange: serviceRange,
    shutdown: { delayMs, watchGraceMs },
  });
  if (!ctx.signal.aborted) await new Promise<void>((done) => ctx.signal.addEventListener('abort', () => done(), { once: true }));
  // SIGTERM, as kube-apiserver: not ready at once, then the delay, then drain (shutdown.ts).
  await server.shutdown();
}

function durationFlag(name: string, value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new Error(`kube-apiserver: --${name}: ${(err as Error).message}`);
  }
  if (ms < 0) throw new Error(`kube-apiserver: --${name} ${value} must not be negative`);
  return ms;
}
