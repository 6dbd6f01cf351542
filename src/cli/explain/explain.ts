/** `shipyard explain <kind>/<name>`: which explanations exist, and reaching the cluster for one. */
import { existsSync } from 'node:fs';
import { isNotFound } from '../../runtime/client.ts';
import { ApiClient } from '../../runtime/client.ts';
import { ClientConfig } from '../../runtime/kubeconfig.ts';
import { renderPoolExplanation } from './explain-pool.ts';
import { gatherPoolFacts } from './pool-facts.ts';

const poolKinds = new Set(['mcp', 'machineconfigpool', 'machineconfigpools', 'machineconfigpool.machineconfiguration.openshift.io']);

export async function explain(ref: string, kubeconfigPath: string): Promise<string> {
  const slash = ref.indexOf('/');
  const kind = slash > 0 ? ref.slice(0, slash).toLowerCase() : '';
  const name = slash > 0 ? ref.slice(slash + 1) : '';
  if (!poolKinds.has(kind) || !name) throw new Error(`cannot explain ${JSON.stringify(ref)}: expected mcp/<pool> (a MachineConfigPool)`);
  if (!existsSync(kubeconfigPath)) throw new Error(`${kubeconfigPath} does not exist: no cluster has been created in this data directory (shipyard up creates one)`);
  const kc = new ClientConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new ApiClient(kc, { userAgent: 'shipyard-explain', timeoutMs: 10_000 });
  try {
    return renderPoolExplanation(await gatherPoolFacts(client, name));
  } catch (err) {
    if (isNotFound(err)) throw new Error(`machineconfigpool ${JSON.stringify(name)} not found`);
    const code = (err as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET') throw new Error(`cannot reach the cluster at ${kc.getCurrentCluster()?.server ?? '?'}: is \`shipyard up\` running on this data directory?`);
    throw err;
  } finally {
    client.close();
  }
}
