/**
 * The Shipyard machine provider (platform `Shipyard`): Machines as instances of the datacenter's
 * simulated cloud, driven through its API (`cloudclient/`), as OpenShift's AWS provider drives
 * EC2.
 *
 * - **Credentials** come from a Secret in the Machine's namespace (`credentialsSecret`, default
 *   `shipyard-cloud-credentials`, keys `url` and `token`), read again after at most a second, so a
 *   rotated token is picked up and nothing is kept that RBAC would not let this controller read
 *   again. Within that second every call shares one read: a reconcile calls `exists` then
 *   `update`, and 200 Machines scaled up at once read the same Secret some 8 times each
 *   otherwise (OpenShift's providers read it from the controller's cache, which the role here
 *   does not allow). One client per cloud URL and token keeps its connections, and the cloud's
 *   catalogue (instance types, zones) is read once a minute, not at every launch. Likewise
 *   what `exists` finds serves the `update` or `create` the controller calls right after it in
 *   the same pass, once and for at most a second: one look at the cloud per pass, not two.
 * - **User data** is the Secret `userDataSecret` (default `worker-user-data`, key `userData`): an
 *   Ignition config, usually a pointer to the machine-config server, which the instance applies
 *   at first boot.
 * - **Identity.** The instance is named after the Machine (the Node's name) and tagged
 *   `machine.openshift.io/machine: <namespace>/<name>` and `kubernetes.io/cluster/<id>: owned`, so
 *   `exists` finds it by tag before `spec.providerID` is written: a controller that crashed
 *   between the launch and its status write finds the instance instead of launching a second one.
 *   Once written, the providerID is what finds it.
 * - **Errors.** A providerSpec that can never work (unknown instance type or zone, a malformed
 *   field; the cloud's catalogue is the judge) is `InvalidConfiguration`, naming the field. A cloud
 *   that does not answer or answers 5xx is `RequeueAfterError`; anything else (a missing Secret, a
 *   refused token) is a `CreateError`/`UpdateError`/`DeleteError`, retried with backoff.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { machineAnnotations, machineLabels } from '../../../../api/machine/index.ts';
import { CloudApiError, CloudClient } from '../../../../cloudclient/client.ts';
import type { InstanceView } from '../../../../cloudclient/types.ts';
import { isNotFound, type ApiClient } from '../../../../runtime/client.ts';
import { resources } from '../../../../runtime/resources.ts';
import {
  MachineError,
  RequeueAfterError,
  type MachineErrorReason,
  type MachineProvider,
  type MachineUpdate,
  type ReadonlyMachine,
} from '../provider.ts';
import {
  aggregateMessage,
  clusterTagPrefix,
  credentialsSecretName,
  parseProviderSpec,
  providerSpecApiVersion,
  providerSpecPath,
  providerStatusKind,
  type Catalogue,
  type ShipyardProviderSpec,
} from './provider-spec.ts';
import { compareStrings } from '../../../../api/compare.ts';

export const machineTag = 'machine.openshift.io/machine';

/** How long one read of a Secret serves every call (see the header). */
const secretReuseMs = 1000;
/** The catalogue changes only with the cloud itself. */
const catalogueReuseMs = 60_000;
/** How long what `exists` found serves the call after it (see the header). */
const foundReuseMs = 1000;

interface Reused<V> {
  readonly at: number;
  readonly value: Promise<V>;
}

/** `load()`'s promise, shared by every caller for `ttlMs`; a rejection is not kept, so the next call tries again. */
function reused<K, V>(cache: Map<K, Reused<V>>, key: K, ttlMs: number, load: () => Promise<V>): Promise<V> {
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && now - hit.at < ttlMs) return hit.value;
  const entry = { at: now, value: load() };
  cache.set(key, entry);
  entry.value.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return entry.value;
}

export interface ShipyardProviderOptions {
  /** Reads the Secrets; the controller's own client. */
  readonly client: ApiClient;
  /** How long to wait after a transient cloud error, and between looks at an instance shutting down. */
  readonly requeueAfterMs?: number;
  /** Per cloud request. */
  readonly cloudTimeoutMs?: number;
}

export class ShipyardProvider implements MachineProvider {
  private readonly client: ApiClient;
  private readonly requeueAfterMs: number;
  private readonly cloudTimeoutMs: number;
  private readonly clients = new Map<string, CloudClient>();
  private readonly catalogues = new Map<CloudClient, Reused<Catalogue>>();
  private readonly secrets = new Map<string, Reused<V1Secret>>();
  /** What `exists` last found, by Machine, until the next call takes it. */
  private readonly found = new Map<string, { readonly at: number; readonly instance: InstanceView | undefined }>();

  constructor(options: ShipyardProviderOptions) {
    this.client = options.client;
    this.requeueAfterMs = options.requeueAfterMs ?? 30_000;
    this.cloudTimeoutMs = options.cloudTimeoutMs ?? 30_000;
  }

  async create(machine: ReadonlyMachine): Promise<MachineUpdate> {
    return this.guard('CreateError', async () => {
      const cloud = await this.cloud(machine);
      const spec = this.spec(machine, await reused(this.catalogues, cloud, catalogueReuseMs, () => catalogueOf(cloud)));
      // Idempotent: an instance launched by an earlier try whose status write never happened is adopted.
      const existing = (this.takeFound(machine) ?? { instance: await this.find(cloud, machine) }).instance;
      if (existing) return updateFor(existing);
      const userData = await this.userData(machine, spec);
      const instance = await cloud
        .runInstance({ name: machine.metadata?.name ?? '', type: spec.instanceType, ...(spec.zone ? { zone: spec.zone } : {}), userData, tags: tagsFor(machine, spec) })
        .catch((err: unknown) => {
          throw launchError(err);
        });
      return updateFor(instance);
    });
  }

  async exists(machine: ReadonlyMachine): Promise<boolean> {
    return this.guard('UpdateError', async () => {
      const instance = await this.find(await this.cloud(machine), machine);
      this.keepFound(machine, instance);
      return instance !== undefined;
    });
  }

  async update(machine: ReadonlyMachine): Promise<MachineUpdate> {
    return this.guard('UpdateError', async () => {
      const instance = (this.takeFound(machine) ?? { instance: await this.find(await this.cloud(machine), machine) }).instance;
      if (!instance) throw new MachineError('UpdateError', `no instance found for machine ${machineKey(machine)}`);
      return updateFor(instance);
    });
  }

  async delete(machine: ReadonlyMachine): Promise<void> {
    this.found.delete(foundKey(machine));
    return this.guard('DeleteError', async () => {
      const cloud = await this.cloud(machine);
      const instances = await this.all(cloud, machine);
      // Terminate every match: two launches for one Machine (a lost create) leave no orphan.
      for (const i of instances) if (i.state !== 'shutting-down') await cloud.terminateInstance(i.id);
      if (instances.length > 0) throw new RequeueAfterError(this.requeueAfterMs, `instance ${instances.map((i) => i.id).join(', ')} of machine ${machineKey(machine)} is being terminated`);
    });
  }

  private keepFound(machine: ReadonlyMachine, instance: InstanceView | undefined): void {
    const now = Date.now();
    this.found.set(foundKey(machine), { at: now, instance });
    // Entries no call took (a Machine deleted meanwhile, say) go once stale.
    if (this.found.size > 256) for (const [k, v] of this.found) if (now - v.at >= foundReuseMs) this.found.delete(k);
  }

  /** What `exists` found for the Machine (an instance or none) less than a second ago, once; undefined without such a finding. */
  private takeFound(machine: ReadonlyMachine): { readonly instance: InstanceView | undefined } | undefined {
    const key = foundKey(machine);
    const hit = this.found.get(key);
    this.found.delete(key);
    return hit && Date.now() - hit.at < foundReuseMs ? hit : undefined;
  }

  /** The providerSpec, or InvalidConfiguration naming every field at fault. */
  private spec(machine: ReadonlyMachine, catalogue?: Catalogue): ShipyardProviderSpec {
    const parsed = parseProviderSpec(machine.spec?.providerSpec?.value, catalogue);
    if (!parsed.ok) throw new MachineError('InvalidConfiguration', aggregateMessage(parsed.errors), { field: parsed.errors[0]?.field });
    return parsed.spec;
  }

  /**
   * A client on the credentials the providerSpec names. Read leniently: a Machine whose spec went
   * bad must still be found and deleted, so only the Secret's name is taken from it.
   */
  private async cloud(machine: ReadonlyMachine): Promise<CloudClient> {
    const name = credentialsSecretName(machine.spec?.providerSpec?.value);
    const secret = await this.secret(machine, name, `${providerSpecPath}.credentialsSecret`);
    const where = `credentials Secret ${machine.metadata?.namespace}/${name}`;
    const url = secretValue(secret, 'url');
    const token = secretValue(secret, 'token');
    const missing = [url === undefined ? 'url' : '', token === undefined ? 'token' : ''].filter(Boolean);
    if (missing.length) throw new MachineError('CreateError', `${where} has no ${missing.join(' or ')} key`);
    const key = `${url!.trim()} ${token!.trim()}`;
    const known = this.clients.get(key);
    if (known) return known;
    try {
      const client = new CloudClient({ url: url!.trim(), token: token!.trim(), timeoutMs: this.cloudTimeoutMs });
      this.clients.set(key, client);
      return client;
    } catch (err) {
      throw new MachineError('CreateError', `${where}: ${(err as Error).message}`);
    }
  }

  private async userData(machine: ReadonlyMachine, spec: ShipyardProviderSpec): Promise<string> {
    const secret = await this.secret(machine, spec.userDataSecret.name, `${providerSpecPath}.userDataSecret`);
    const value = secretValue(secret, 'userData');
    if (value === undefined) throw new MachineError('CreateError', `user data Secret ${machine.metadata?.namespace}/${spec.userDataSecret.name} has no userData key`);
    return value;
  }

  private async secret(machine: ReadonlyMachine, name: string, field: string): Promise<V1Secret> {
    const namespace = machine.metadata?.namespace ?? '';
    try {
      return await reused(this.secrets, `${namespace}/${name}`, secretReuseMs, () => this.client.get<V1Secret>(resources.secrets, namespace, name));
    } catch (err) {
      // A Secret created later (by the installer, by a user) fixes it: retried, not Failed.
      if (isNotFound(err)) throw new MachineError('CreateError', `Secret ${namespace}/${name} (${field}.name) not found`, { field: `${field}.name` });
      throw err;
    }
  }

  /** The Machine's live instance: by providerID once written, else by its tags (the newest, if a lost create left two). */
  private async find(cloud: CloudClient, machine: ReadonlyMachine): Promise<InstanceView | undefined> {
    const id = instanceIdOf(machine.spec?.providerID);
    if (id) {
      const instance = await cloud.getInstance(id);
      return instance && instance.state !== 'terminated' ? instance : undefined;
    }
    return (await this.byTag(cloud, machine)).sort((a, b) => compareStrings(b.createdAt, a.createdAt))[0];
  }

  /** Every live instance of the Machine, by providerID and by tag. */
  private async all(cloud: CloudClient, machine: ReadonlyMachine): Promise<InstanceView[]> {
    const found = new Map((await this.byTag(cloud, machine)).map((i) => [i.id, i]));
    const id = instanceIdOf(machine.spec?.providerID);
    if (id && !found.has(id)) {
      const instance = await cloud.getInstance(id);
      if (instance && instance.state !== 'terminated') found.set(id, instance);
    }
    return [...found.values()];
  }

  private async byTag(cloud: CloudClient, machine: ReadonlyMachine): Promise<InstanceView[]> {
    const tags: Record<string, string> = { [machineTag]: machineKey(machine) };
    const cluster = clusterIdOf(machine);
    if (cluster) tags[`${clusterTagPrefix}${cluster}`] = 'owned';
    return (await cloud.listInstances({ tags })).filter((i) => i.state !== 'terminated');
  }

  /** Maps what went wrong to the controller's terms: named errors pass, transient ones requeue, the rest is `reason`. */
  private async guard<T>(reason: MachineErrorReason, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof MachineError || err instanceof RequeueAfterError) throw err;
      if (isTransient(err)) throw new RequeueAfterError(this.requeueAfterMs, `cloud API: ${(err as Error).message}`, { cause: err });
      throw new MachineError(reason, (err as Error).message, { cause: err });
    }
  }
}

/** A Machine's key for what `exists` found: its uid too, so a namesake created since is looked up afresh. */
const foundKey = (machine: ReadonlyMachine): string => `${machineKey(machine)}/${machine.metadata?.uid ?? ''}`;

export function machineKey(machine: ReadonlyMachine): string {
  return `${machine.metadata?.namespace ?? ''}/${machine.metadata?.name ?? ''}`;
}

function clusterIdOf(machine: ReadonlyMachine): string | undefined {
  return machine.metadata?.labels?.[machineLabels.cluster] || undefined;
}

/** `shipyard://local/<zone>/<id>` → `<id>`. */
export function instanceIdOf(providerID: string | undefined): string | undefined {
  const m = /^shipyard:\/\/[^/]+\/[^/]+\/(i-[0-9a-f]{17})$/.exec(providerID ?? '');
  return m?.[1];
}

function tagsFor(machine: ReadonlyMachine, spec: ShipyardProviderSpec): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of spec.tags) tags[t.name] = t.value;
  tags.Name = machine.metadata?.name ?? '';
  tags[machineTag] = machineKey(machine);
  const cluster = clusterIdOf(machine);
  if (cluster) tags[`${clusterTagPrefix}${cluster}`] = 'owned';
  return tags;
}

/** What the Machine records of its instance. */
export function updateFor(instance: InstanceView): MachineUpdate {
  return {
    providerID: instance.providerID,
    addresses: [
      { type: 'InternalIP', address: instance.privateIP },
      { type: 'InternalDNS', address: instance.name },
      { type: 'Hostname', address: instance.name },
    ],
    providerStatus: { apiVersion: providerSpecApiVersion, kind: providerStatusKind, instanceId: instance.id, instanceState: instance.state },
    labels: { [machineLabels.instanceType]: instance.type, [machineLabels.region]: instance.region, [machineLabels.zone]: instance.zone },
    annotations: { [machineAnnotations.instanceState]: instance.state },
  };
}

async function catalogueOf(cloud: CloudClient): Promise<Catalogue> {
  const [types, zones] = await Promise.all([cloud.instanceTypes(), cloud.zones()]);
  return { instanceTypes: types.map((t) => t.name), zones: zones.filter((z) => z.state === 'available').map((z) => z.name) };
}

const cloudFields: Readonly<Record<string, string>> = { type: 'instanceType', zone: 'zone', tags: 'tags', userData: 'userDataSecret' };

/** A launch the cloud refused as invalid is the providerSpec's fault; anything else is not. */
function launchError(err: unknown): unknown {
  if (!(err instanceof CloudApiError) || err.status !== 400) return err;
  const field = err.field ? `${providerSpecPath}.${cloudFields[err.field.split('.')[0]!] ?? err.field}` : providerSpecPath;
  return new MachineError('InvalidConfiguration', `${field}: Invalid value: ${err.message}`, { field, cause: err });
}

function isTransient(err: unknown): boolean {
  if (err instanceof CloudApiError) return err.status >= 500 || err.status === 429;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT' || /no answer within/.test((err as Error | undefined)?.message ?? '');
}

function secretValue(secret: V1Secret, key: string): string | undefined {
  const data = secret.data?.[key];
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  return secret.stringData?.[key];
}
