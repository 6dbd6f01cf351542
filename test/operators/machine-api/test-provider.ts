/**
 * Test support: a machine provider with no cloud behind it, as OpenShift's TestActuator: it
 * counts every call per Machine, keeps "instances" in a map the test can change (make one vanish,
 * hold one in termination), and can be told to fail a call. Not a test file itself.
 */
import { machineAnnotations, machineLabels } from '../../../src/api/machine/index.ts';
import { type MachineProvider, type MachineUpdate, type ReadonlyMachine } from '../../../src/operators/machine-api/providers/provider.ts';

export type Call = 'create' | 'exists' | 'update' | 'delete';

export interface TestInstance {
  readonly providerID: string;
  readonly address: string;
  /** A terminated instance still being torn down: exists says true until `finishTermination`. */
  terminating?: boolean;
}

export class TestProvider implements MachineProvider {
  readonly instances = new Map<string, TestInstance>();
  /** Thrown by the next calls of that kind, per Machine name, while set. */
  readonly failures = new Map<string, Partial<Record<Call, Error>>>();
  /** When true, delete leaves the instance terminating until `finishTermination`. */
  slowTermination = false;
  private readonly counts = new Map<string, Record<Call, number>>();
  private nextIP = 10;

  calls(name: string): Record<Call, number> {
    return { ...(this.counts.get(name) ?? { create: 0, exists: 0, update: 0, delete: 0 }) };
  }

  total(name: string): number {
    const c = this.calls(name);
    return c.create + c.exists + c.update + c.delete;
  }

  finishTermination(name: string): void {
    if (this.instances.get(name)?.terminating) this.instances.delete(name);
  }

  private count(name: string, call: Call): void {
    const c = this.counts.get(name) ?? { create: 0, exists: 0, update: 0, delete: 0 };
    c[call]++;
    this.counts.set(name, c);
    const failure = this.failures.get(name)?.[call];
    if (failure) throw failure;
  }

  private report(m: ReadonlyMachine, i: TestInstance): MachineUpdate {
    const name = m.metadata?.name ?? '';
    return {
      providerID: i.providerID,
      addresses: [
        { type: 'InternalIP', address: i.address },
        { type: 'Hostname', address: name },
      ],
      providerStatus: { instanceState: 'running' },
      labels: { [machineLabels.instanceType]: 'test.large', [machineLabels.region]: 'test', [machineLabels.zone]: 'test-a' },
      annotations: { [machineAnnotations.instanceState]: 'running' },
    };
  }

  async create(m: ReadonlyMachine): Promise<MachineUpdate> {
    const name = m.metadata?.name ?? '';
    this.count(name, 'create');
    const instance = this.instances.get(name) ?? { providerID: `test:///${name}`, address: `127.1.9.${this.nextIP++}` };
    this.instances.set(name, instance);
    return this.report(m, instance);
  }

  async exists(m: ReadonlyMachine): Promise<boolean> {
    const name = m.metadata?.name ?? '';
    this.count(name, 'exists');
    return this.instances.has(name);
  }

  async update(m: ReadonlyMachine): Promise<MachineUpdate> {
    const name = m.metadata?.name ?? '';
    this.count(name, 'update');
    const instance = this.instances.get(name);
    if (!instance) throw new Error(`no instance for ${name}`);
    return this.report(m, instance);
  }

  async delete(m: ReadonlyMachine): Promise<void> {
    const name = m.metadata?.name ?? '';
    this.count(name, 'delete');
    const instance = this.instances.get(name);
    if (!instance) return;
    if (!this.slowTermination) {
      this.instances.delete(name);
      return;
    }
    // Termination requested; exists keeps saying so until the test finishes it, so the controller polls.
    instance.terminating = true;
  }
}
