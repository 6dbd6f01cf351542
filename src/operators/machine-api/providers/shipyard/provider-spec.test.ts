import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateMessage, credentialsSecretName, parseProviderSpec, type Catalogue } from './provider-spec.ts';
import { providerSpecFor } from './install.ts';

const catalogue: Catalogue = { instanceTypes: ['s.small', 's.large'], zones: ['local-a', 'local-b'] };

function messages(value: unknown, c: Catalogue | undefined = catalogue): string[] {
  const parsed = parseProviderSpec(value, c);
  assert.equal(parsed.ok, false, 'expected the spec to be refused');
  return parsed.ok ? [] : parsed.errors.map((e) => e.message);
}

describe('Shipyard providerSpec', () => {
  it('reads a full spec, and defaults the Secrets', () => {
    const parsed = parseProviderSpec(providerSpecFor({ instanceType: 's.large', zone: 'local-b', tags: [{ name: 'team', value: 'infra' }] }), catalogue);
    assert.deepEqual(parsed, {
      ok: true,
      spec: { instanceType: 's.large', zone: 'local-b', userDataSecret: { name: 'worker-user-data' }, credentialsSecret: { name: 'shipyard-cloud-credentials' }, tags: [{ name: 'team', value: 'infra' }] },
    });
    const bare = parseProviderSpec({ instanceType: 's.small' }, catalogue);
    assert.ok(bare.ok);
    assert.equal(bare.spec.zone, undefined, 'no zone: the cloud picks one');
    assert.equal(bare.spec.userDataSecret.name, 'worker-user-data');
  });

  it('names each field at fault in the words kube-apiserver uses', () => {
    const cases: Array<[unknown, string[]]> = [
      [undefined, ['spec.providerSpec.value: Required value']],
      [{}, ['spec.providerSpec.value.instanceType: Required value']],
      [{ instanceType: 'x.huge' }, ['spec.providerSpec.value.instanceType: Unsupported value: "x.huge": supported values: "s.small", "s.large"']],
      [{ instanceType: 's.small', zone: 'mars-1' }, ['spec.providerSpec.value.zone: Unsupported value: "mars-1": supported values: "local-a", "local-b"']],
      [{ instanceType: 4 }, ['spec.providerSpec.value.instanceType: Invalid value: 4: must be a string']],
      [{ kind: 'AWSMachineProviderConfig', instanceType: 's.small' }, ['spec.providerSpec.value.kind: Unsupported value: "AWSMachineProviderConfig": supported values: "ShipyardMachineProviderSpec"']],
      [{ instanceType: 's.small', userDataSecret: { name: 7 } }, ['spec.providerSpec.value.userDataSecret.name: Invalid value: 7: must be a string']],
      [{ instanceType: 's.small', tags: [{ name: 'Name', value: 'x' }] }, ['spec.providerSpec.value.tags[0].name: Forbidden: tag "Name" is set by the machine controller']],
      [{ instanceType: 's.small', tags: [{ name: 'a' }, { name: 'a' }] }, ['spec.providerSpec.value.tags[1].name: Duplicate value: "a"']],
    ];
    for (const [value, want] of cases) assert.deepEqual(messages(value), want, JSON.stringify(value));
  });

  it('checks the catalogue only when it has one (a delete needs no cloud call to read the spec)', () => {
    assert.ok(parseProviderSpec({ instanceType: 'x.huge', zone: 'mars-1' }).ok);
  });

  it('aggregates several errors as Kubernetes does', () => {
    const parsed = parseProviderSpec({ instanceType: 'x', zone: 'y' }, catalogue);
    assert.ok(!parsed.ok);
    assert.match(aggregateMessage(parsed.errors), /^\[spec\.providerSpec\.value\.instanceType: Unsupported value: "x": .*, spec\.providerSpec\.value\.zone: Unsupported value: "y": .*\]$/);
  });

  it('finds the credentials Secret whatever else is wrong with the spec', () => {
    assert.equal(credentialsSecretName({ instanceType: 9, credentialsSecret: { name: 'creds' } }), 'creds');
    assert.equal(credentialsSecretName('garbage'), 'shipyard-cloud-credentials');
  });
});
