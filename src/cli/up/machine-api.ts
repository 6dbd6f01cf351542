/**
 * The Machine API's part of the install, as openshift-install does it on a cloud: the nodes
 * `shipyard up` launched become Machines, the masters on their own and the workers in one
 * MachineSet per zone they run in (`<infra>-worker-<zone>`), so from then on the machine
 * controllers own them, and scaling a MachineSet adds machines that boot from the
 * machine-config server. It also writes what those controllers read and nobody else may:
 *
 * - `shipyard-cloud-credentials` (keys `url`, `token`): the cloud API, readable only by the
 *   machine controllers' ServiceAccount (the payload's Role names this one Secret);
 * - `worker-user-data` and `master-user-data` (key `userData`): the pointer Ignition a new
 *   machine boots from, `https://<api host>:22623/config/<pool>` with the cluster CA and the
 *   config server's bootstrap token, as the installer's user-data Secrets point at
 *   `api-int:22623`. The token Secret is created here if the machine-config operator has not
 *   made one yet; the operator keeps an existing one.
 *
 * Everything is created only when missing, so a retried install changes nothing that exists.
 */
import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { encodeDataUrl } from '../../api/ignition/index.ts';
import { machineAPINamespace, machineLabels } from '../../api/machine/names.ts';
import { Machine, MachineSet } from '../../api/machine/index.ts';
import { machineConfigOperatorNamespace, machineConfigServer } from '../../api/machineconfiguration/index.ts';
import { isNotFound, type ApiClient } from '../../runtime/client.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import type { LoadedPayload } from '../../release/payload.ts';
import { cloudCredentialsSecret, userDataSecret, providerSpecFor } from '../../operators/machine-api/providers/shipyard/install.ts';

export interface LaunchedInstance {
  readonly name: string;
  readonly role: 'master' | 'worker';
  readonly type: string;
  readonly zone: string;
  readonly providerID: string;
}

export interface MachineApiInstall {
  readonly infraName: string;
  readonly instances: readonly LaunchedInstance[];
  /** The cloud API (`http://<block host>:<cloud port>`) and its token. */
  readonly cloudUrl: string;
  readonly cloudToken: string;
  /** `https://<block host>:22623`, the config server's load balancer. */
  readonly configServerUrl: string;
  readonly caPem: string;
}

const ref = (kind: { group: string; version: string; resource: string; kind: string }): ResourceRef => ({ group: kind.group, version: kind.version, resource: kind.resource, kind: kind.kind, namespaced: true });

/** The first-boot Ignition of a new machine of `pool`: everything comes from the config server. */
export function pointerIgnition(o: { configServerUrl: string; pool: string; token: string; caPem: string }): string {
  return JSON.stringify({
    ignition: {
      version: '3.4.0',
      config: { merge: [{ source: `${o.configServerUrl}/config/${o.pool}`, httpHeaders: [{ name: 'Authorization', value: `Bearer ${o.token}` }] }] },
      security: { tls: { certificateAuthorities: [{ source: encodeDataUrl(o.caPem) }] } },
    },
  });
}

async function bootstrapToken(client: ApiClient, payload: LoadedPayload): Promise<string> {
  const name = machineConfigServer.bootstrapTokenSecret;
  const key = machineConfigServer.bootstrapTokenKey;
  try {
    const s = await client.get<KubernetesObject & { data?: Record<string, string> }>(resources.secrets, machineConfigOperatorNamespace, name);
    const existing = s.data?.[key];
    if (existing) return Buffer.from(existing, 'base64').toString('utf8');
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const ns = payload.manifests.find((m) => m.kind === 'Namespace' && m.name === machineConfigOperatorNamespace);
  await client.createIfMissing(resources.namespaces, (ns ? structuredClone(ns.object) : { apiVersion: 'v1', kind: 'Namespace', metadata: { name: machineConfigOperatorNamespace } }) as KubernetesObject);
  const token = randomBytes(32).toString('base64url');
  await client.createIfMissing(resources.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: machineConfigOperatorNamespace }, type: 'Opaque', data: { [key]: Buffer.from(token).toString('base64') } } as KubernetesObject);
  // Read back: another writer (the operator) may have won the race with a token of its own.
  const s = await client.get<KubernetesObject & { data?: Record<string, string> }>(resources.secrets, machineConfigOperatorNamespace, name);
  return Buffer.from(s.data?.[key] ?? '', 'base64').toString('utf8');
}

function machineLabelsFor(infraName: string, role: 'master' | 'worker'): Record<string, string> {
  return { [machineLabels.cluster]: infraName, [machineLabels.role]: role, [machineLabels.type]: role };
}

export function workerMachineSetName(infraName: string, zone: string): string {
  return `${infraName}-worker-${zone}`;
}

/** Creates the Secrets, Machines and MachineSets. Needs the payload's Machine API CRDs served. */
export async function createMachineApiObjects(client: ApiClient, payload: LoadedPayload, o: MachineApiInstall): Promise<void> {
  const ns = payload.manifests.find((m) => m.kind === 'Namespace' && m.name === machineAPINamespace);
  await client.createIfMissing(resources.namespaces, (ns ? structuredClone(ns.object) : { apiVersion: 'v1', kind: 'Namespace', metadata: { name: machineAPINamespace } }) as KubernetesObject);
  await client.createIfMissing(resources.secrets, cloudCredentialsSecret(machineAPINamespace, { url: o.cloudUrl, token: o.cloudToken }) as KubernetesObject);
  const token = await bootstrapToken(client, payload);
  for (const pool of ['worker', 'master'] as const) {
    await client.createIfMissing(resources.secrets, userDataSecret(machineAPINamespace, `${pool}-user-data`, pointerIgnition({ configServerUrl: o.configServerUrl, pool, token, caPem: o.caPem })) as KubernetesObject);
  }

  const machineRef = ref(Machine);
  const setRef = ref(MachineSet);
  const zonesUsed = [...new Set(o.instances.filter((i) => i.role === 'worker').map((i) => i.zone))].sort();
  const workerType = o.instances.find((i) => i.role === 'worker')?.type ?? 's.large';
  for (const i of o.instances) {
    const labels = machineLabelsFor(o.infraName, i.role);
    if (i.role === 'worker') labels[machineLabels.machineSet] = workerMachineSetName(o.infraName, i.zone);
    await client.createIfMissing(machineRef, {
      apiVersion: Machine.apiVersion,
      kind: Machine.kind,
      metadata: { name: i.name, namespace: machineAPINamespace, labels },
      spec: {
        // The installer knows which instance it launched; the provider finds it by this id.
        providerID: i.providerID,
        providerSpec: { value: providerSpecFor({ instanceType: i.type, zone: i.zone, userDataSecret: `${i.role}-user-data` }) },
      },
    } as KubernetesObject);
  }
  // With no workers, still one set (at zero) so that `kubectl scale machineset` can add some.
  for (const zone of zonesUsed.length > 0 ? zonesUsed : ['local-a']) {
    const name = workerMachineSetName(o.infraName, zone);
    const labels = { ...machineLabelsFor(o.infraName, 'worker'), [machineLabels.machineSet]: name };
    await client.createIfMissing(setRef, {
      apiVersion: MachineSet.apiVersion,
      kind: MachineSet.kind,
      metadata: { name, namespace: machineAPINamespace, labels: machineLabelsFor(o.infraName, 'worker') },
      spec: {
        replicas: o.instances.filter((i) => i.role === 'worker' && i.zone === zone).length,
        selector: { matchLabels: { [machineLabels.cluster]: o.infraName, [machineLabels.machineSet]: name } },
        template: {
          metadata: { labels },
          spec: { providerSpec: { value: providerSpecFor({ instanceType: workerType, zone, userDataSecret: 'worker-user-data' }) } },
        },
      },
    } as KubernetesObject);
  }
}
