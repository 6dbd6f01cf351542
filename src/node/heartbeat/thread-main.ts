/** The heartbeat thread itself (see heartbeat-thread.ts): renews what it is told to, reports each renewal. */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiClient } from '../../runtime/client.ts';
import { ClientConfig } from '../../runtime/kubeconfig.ts';
import type { FromThread, ThreadInput, ToThread } from './heartbeat-thread.ts';
import { LeaseRenewals } from './lease-renewals.ts';
import type { NodeLease } from './node-lease.ts';

const port = parentPort;
if (!port) throw new Error('thread-main.ts runs as the heartbeat thread, started by startHeartbeatThread');
const input = workerData as ThreadInput;
const kubeConfig = new ClientConfig();
kubeConfig.loadFromString(input.kubeConfig);
const client = new ApiClient(kubeConfig, { maxSockets: input.maxSockets, userAgent: input.userAgent });
/** A client per node identity (a client certificate is per connection), made on first use. */
const byCredentials = new Map<string, ApiClient>();
const clientFor = (lease: NodeLease): ApiClient => {
  if (!lease.credentials) return client;
  let c = byCredentials.get(lease.credentials);
  if (!c) {
    const config = new ClientConfig();
    config.loadFromString(lease.credentials);
    byCredentials.set(lease.credentials, (c = new ApiClient(config, { maxSockets: 2, userAgent: input.userAgent })));
  }
  return c;
};
/** Nodes whose last renewal failed: their next success is reported too. */
const failing = new Set<string>();
const leases = new LeaseRenewals(clientFor, (renewal) => {
  const recovered = renewal.ok && failing.delete(renewal.nodeName);
  if (!renewal.ok) failing.add(renewal.nodeName);
  if (input.reportAll || !renewal.ok || recovered) port.postMessage({ op: 'renewed', renewal } satisfies FromThread);
});

port.on('message', (m: ToThread) => {
  switch (m.op) {
    case 'set':
      leases.set(m.lease);
      break;
    case 'delete':
      leases.delete(m.nodeName);
      failing.delete(m.nodeName);
      break;
    case 'close':
      void leases.close().then(() => {
        client.close();
        for (const c of byCredentials.values()) c.close();
        port.close();
      });
      break;
  }
});
