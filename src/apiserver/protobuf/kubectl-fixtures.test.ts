/**
 * Real kubectl 1.32 protobuf bodies (testdata/*.pb.b64, captured by a proxy in front of the
 * server) decode to exactly the JSON that `kubectl create ... --dry-run=client -o json`
 * prints for the same command (testdata/*.json). See testdata/README.md.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { decodeKubernetesProtobuf } from './index.ts';

const dir = new URL('./testdata/', import.meta.url);

/** Every fixture and the kubectl command that produced it. */
const commands: Record<string, string> = {
  namespace: 'create namespace pbns',
  'configmap-literals': "create configmap cm1 --from-literal=a=b --from-literal=greeting='héllo wörld ✓ 日本 🚀' --from-literal=empty=",
  'configmap-binary': 'create configmap cmb --from-file=bin=<300 random bytes> --from-literal=txt=hello',
  'configmap-env-file': 'create configmap cme --from-env-file=<K1=v1, K2=v 2>',
  'secret-generic': "create secret generic s1 --from-literal=user=admin --from-literal=pass='p@ss wörd 🔑'",
  'secret-generic-typed-file': 'create secret generic typed1 --type=example.com/x --from-literal=k=v --from-file=bin=<300 random bytes>',
  'secret-docker-registry': 'create secret docker-registry reg1 --docker-server=r.io --docker-username=u --docker-password=p --docker-email=e@x.io',
  deployment: 'create deployment web --image=nginx --replicas=2 --port=80',
  'deployment-two-images': 'create deployment multi --image=nginx --image=redis:7 -n pbns',
  'service-clusterip': 'create service clusterip svc1 --tcp=80:8080',
  'service-clusterip-headless': 'create service clusterip hl --clusterip=None --tcp=5678:8080',
  'service-nodeport': 'create service nodeport np1 --tcp=80:8080 --tcp=443 --node-port=30080',
  'service-externalname': 'create service externalname ext1 --external-name=example.com',
  'service-loadbalancer-named-port': 'create service loadbalancer lb1 --tcp=8443:https',
  serviceaccount: 'create serviceaccount sa1',
  'pdb-min-available': 'create poddisruptionbudget pdb1 --selector=app=web --min-available=1',
  'pdb-max-unavailable-percent': 'create poddisruptionbudget pdb2 --selector=app=web --max-unavailable=50%',
  'pdb-match-expressions': "create poddisruptionbudget pdb3 --selector='app in (a,b),tier notin (x),!legacy' --max-unavailable=1",
  'drain-delete-options': 'drain n1 --force --disable-eviction --grace-period=5 (the DELETE of each pod)',
  'token-request': 'create token sa1 --audience=a1 --audience=a2 --duration=20m --bound-object-kind=Pod --bound-object-name=p1 --bound-object-uid=0d4691ed-659b-4935-a832-355f77ee47cc',
};

describe('kubectl protobuf bodies decode to the JSON kubectl would have sent', () => {
  const fixtures = readdirSync(dir).filter((f) => f.endsWith('.pb.b64')).map((f) => f.slice(0, -'.pb.b64'.length));

  it('every fixture is listed with its command, and every listed one exists', () => {
    assert.deepEqual([...fixtures].sort(), Object.keys(commands).sort());
  });

  for (const name of Object.keys(commands)) {
    it(`kubectl ${commands[name]}`, () => {
      const body = Buffer.from(readFileSync(new URL(`${name}.pb.b64`, dir), 'utf8'), 'base64');
      const want = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as Record<string, unknown>;
      const got = decodeKubernetesProtobuf(body);
      assert.equal(got.apiVersion, want.apiVersion);
      assert.equal(got.kind, want.kind);
      assert.deepEqual(got.object, want);
    });
  }

  it('secret data values are the base64 of the exact bytes (unicode included)', () => {
    const body = Buffer.from(readFileSync(new URL('secret-generic.pb.b64', dir), 'utf8'), 'base64');
    const data = decodeKubernetesProtobuf(body).object.data as Record<string, string>;
    assert.equal(Buffer.from(data.pass!, 'base64').toString('utf8'), 'p@ss wörd 🔑');
  });
});
