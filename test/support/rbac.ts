/**
 * Test support for checking a payload's roles against a real API server that enforces RBAC:
 * serve the CRDs whose kinds the roles name (kubectl resolves each resource through discovery),
 * then ask `kubectl auth can-i --as` for each case. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { resources } from '../../src/runtime/resources.ts';
import type { TestServer } from './server.ts';
import { until } from './until.ts';

/** Creates the CRDs and waits until each is Established. */
export async function serveCRDs(ts: TestServer, crds: readonly { readonly metadata: { readonly name: string } }[]): Promise<void> {
  const config = new ClientConfig();
  config.loadFromFile(ts.server.kubeconfigPath);
  const admin = new ApiClient(config);
  try {
    await createEstablishedCRDs(admin, crds);
  } finally {
    admin.close();
  }
}

/** `serveCRDs` with a client the caller has (a controller harness's `seed`). */
export async function createEstablishedCRDs(client: ApiClient, crds: readonly { readonly metadata: { readonly name: string } }[]): Promise<void> {
  for (const crd of crds) await client.create(resources.customResourceDefinitions, crd as never);
  for (const crd of crds) {
    await until(`${crd.metadata.name} Established`, async () => {
      const got = await client.get<{ metadata?: object; status?: { conditions?: { type: string; status: string }[] } }>(resources.customResourceDefinitions, undefined, crd.metadata.name);
      return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
}

/** One `kubectl auth can-i` question: `resource` may be `x/name` (a name) or `x#sub` (a subresource), as kubectl writes them. */
export type AccessCase = readonly [verb: string, resource: string, namespace: string | undefined, allowed: boolean];

/** Asks every case as `user` and compares the answers at the end, so one run names every mismatch. */
export async function expectAccess(ts: TestServer, user: string, cases: readonly AccessCase[]): Promise<void> {
  const wrong: string[] = [];
  for (const [verb, resource, ns, want] of cases) {
    const [what, sub] = resource.split('#');
    const r = await ts.kubectl(['auth', 'can-i', verb, what!, `--as=${user}`, ...(sub ? [`--subresource=${sub}`] : []), ...(ns ? ['-n', ns] : [])]);
    const got = r.stdout.trim() === 'yes';
    if (got !== want) wrong.push(`${verb} ${resource}${ns ? ` -n ${ns}` : ''}: ${got ? 'yes' : 'no'} (want ${want ? 'yes' : 'no'})`);
  }
  assert.deepEqual(wrong, []);
}
