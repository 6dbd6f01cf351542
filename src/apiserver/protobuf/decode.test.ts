/**
 * Hand-built protobuf bodies for what kubectl's generators never send: full metadata with
 * times and owner references, rich pod templates, every DeleteOptions field, Eviction; and
 * the decoder's rules (zero values, unknown fields, merging, maps, packed fields, errors).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage, maxDepth } from './decode-message.ts';
import { ProtobufDecodeError } from './errors.ts';
import { decodeKubernetesProtobuf, supportedKinds } from './index.ts';
import { messages } from './kinds.ts';
import { compileTable, mergeTables } from './schema.ts';
import { WireReader } from './wire.ts';
import { magic } from './envelope.ts';
import { envelope, pb } from './wire-writer.ts';

const { varint, string, message, entry, bytes } = pb;
const seconds = (iso: string) => Date.parse(iso) / 1000;
const decode = (apiVersion: string, kind: string, ...raw: Uint8Array[]) => decodeKubernetesProtobuf(envelope(apiVersion, kind, ...raw)).object;

describe('decodeKubernetesProtobuf: hand-built objects', () => {
  it('DeleteOptions with every field, under any group version', () => {
    const raw = [
      varint(1, 0),
      message(2, string(1, 'u-1'), string(2, '')),
      varint(3, false),
      string(4, 'Foreground'),
      string(5, 'All'),
    ];
    for (const apiVersion of ['v1', 'meta.k8s.io/v1', 'apps/v1', 'policy/v1']) {
      assert.deepEqual(decode(apiVersion, 'DeleteOptions', ...raw), {
        apiVersion,
        kind: 'DeleteOptions',
        // Pointer fields: present on the wire means set, so zero values stay.
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u-1', resourceVersion: '' },
        orphanDependents: false,
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      });
    }
    assert.deepEqual(decode('v1', 'DeleteOptions'), { apiVersion: 'v1', kind: 'DeleteOptions' });
  });

  it('Eviction as client-go sends it', () => {
    const got = decode('policy/v1', 'Eviction', message(1, string(1, 'd2'), string(2, ''), string(3, 'default'), varint(7, 0), message(8)), message(2, varint(1, 7)));
    assert.deepEqual(got, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'd2', namespace: 'default', creationTimestamp: null }, deleteOptions: { gracePeriodSeconds: 7 } });
  });

  it('ObjectMeta: times, owner references, labels, annotations, finalizers', () => {
    const got = decode(
      'v1',
      'Namespace',
      message(
        1,
        string(1, 'ns1'),
        string(2, 'gen-'),
        string(5, '6a1c-uid'),
        string(6, '42'),
        varint(7, 3),
        message(8, varint(1, seconds('2026-11-23T20:38:28Z'))),
        message(9, varint(1, seconds('1999-12-31T23:59:59Z')), varint(2, 999_999_999)),
        varint(10, 0),
        entry(11, 'app', string(2, 'web')),
        entry(11, 'tier', string(2, '')),
        entry(12, 'note', string(2, 'ünïcode ✓')),
        message(13, string(1, 'Deployment'), string(3, 'web'), string(4, 'owner-uid'), string(5, 'apps/v1'), varint(6, true), varint(7, false)),
        string(14, 'example.com/a'),
        string(14, 'example.com/b'),
      ),
      message(2, string(1, 'kubernetes')),
      message(3, string(1, 'Active')),
    );
    assert.deepEqual(got, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'ns1',
        generateName: 'gen-',
        uid: '6a1c-uid',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2026-11-23T20:38:28Z',
        deletionTimestamp: '1999-12-31T23:59:59Z',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web', tier: '' },
        annotations: { note: 'ünïcode ✓' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'owner-uid', controller: true, blockOwnerDeletion: false }],
        finalizers: ['example.com/a', 'example.com/b'],
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  it('a Pod with env sources, resources, probes, volumes, tolerations and affinity', () => {
    const container = message(
      2,
      string(1, 'app'),
      string(2, 'nginx:1.27'),
      string(3, 'sh'),
      string(3, '-c'),
      string(4, 'exec nginx'),
      message(6, string(1, 'http'), varint(3, 80), string(4, 'TCP')),
      message(7, string(1, 'A'), string(2, '1')),
      message(7, string(1, 'B'), message(3, message(4, message(1, string(1, 'creds')), string(2, 'password'), varint(3, true)))),
      message(7, string(1, 'C'), message(3, message(2, string(2, 'limits.cpu'), message(3, string(1, '1m'))))),
      message(7, string(1, 'D'), message(3, message(1, string(1, 'v1'), string(2, 'metadata.name')))),
      message(8, entry(1, 'cpu', message(2, string(1, '500m'))), entry(1, 'memory', message(2, string(1, '128Mi'))), entry(2, 'cpu', message(2))),
      message(9, string(1, 'cfg'), varint(2, true), string(3, '/etc/cfg')),
      message(10, message(1, message(2, string(1, '/healthz'), message(2, varint(1, 1), string(3, 'http')), string(4, 'HTTP'))), varint(2, 5), varint(3, 0)),
      message(11, message(1, message(3, message(1, varint(1, 0), varint(2, 8080))))),
      string(14, 'IfNotPresent'),
      message(15, message(1, string(2, 'ALL')), varint(4, 0), varint(5, false), message(11, string(1, 'RuntimeDefault'))),
      message(19, string(1, 'CFG_'), message(2, message(1, string(1, 'settings')))),
    );
    const got = decode(
      'v1',
      'Pod',
      message(1, string(1, 'p1'), message(8)),
      message(
        2,
        message(1, string(1, 'cfg'), message(2, message(19, message(1, string(1, 'settings')), message(2, string(1, 'k'), string(2, 'p')), varint(3, 420)))),
        message(1, string(1, 'scratch'), message(2, message(2, string(1, 'Memory'), message(2, string(1, '64Mi'))))),
        container,
        string(3, 'Always'),
        varint(4, 30),
        entry(7, 'disk', string(2, 'ssd')),
        string(8, 'runner'),
        varint(11, false),
        message(18, message(3, message(2, varint(1, 100), message(2, message(1, entry(1, 'app', string(2, 'web'))), string(3, 'kubernetes.io/hostname'))))),
        message(22, string(1, 'node.kubernetes.io/not-ready'), string(2, 'Exists'), string(4, 'NoExecute'), varint(5, 300)),
        varint(25, -5),
      ),
      message(3),
    );
    assert.deepEqual(got, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p1', creationTimestamp: null },
      spec: {
        volumes: [
          { name: 'cfg', configMap: { name: 'settings', items: [{ key: 'k', path: 'p' }], defaultMode: 420 } },
          { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
        ],
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            command: ['sh', '-c'],
            args: ['exec nginx'],
            ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'password', optional: true } } },
              { name: 'C', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
              { name: 'D', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
            ],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '0' } },
            volumeMounts: [{ name: 'cfg', readOnly: true, mountPath: '/etc/cfg' }],
            livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 5 },
            readinessProbe: { tcpSocket: { port: 8080 } },
            imagePullPolicy: 'IfNotPresent',
            securityContext: { capabilities: { drop: ['ALL'] }, runAsUser: 0, runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } },
            envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'settings' } }],
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        nodeSelector: { disk: 'ssd' },
        serviceAccountName: 'runner',
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }],
          },
        },
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        priority: -5,
      },
      status: {},
    });
  });

  it('Deployment strategy and the omitempty rules of its spec', () => {
    const got = decode(
      'apps/v1',
      'Deployment',
      message(1, string(1, 'web')),
      message(
        2,
        varint(1, 0),
        message(4, string(1, 'RollingUpdate'), message(2, message(1, varint(1, 1), string(3, '25%')), message(2, varint(1, 0), varint(2, 1)))),
        varint(5, 0),
        varint(6, 0),
        varint(7, false),
        varint(9, 600),
      ),
    );
    assert.deepEqual(got, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      // replicas and revisionHistoryLimit are pointers (zero kept); minReadySeconds and paused are not (zero dropped).
      spec: { replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } }, revisionHistoryLimit: 0, progressDeadlineSeconds: 600 },
    });
  });
});

describe('decoder rules', () => {
  it('skips unknown fields of every wire type, at every level', () => {
    const got = decode(
      'v1',
      'ConfigMap',
      varint(99, 12345),
      pb.fixed32(100),
      message(1, string(1, 'cm'), pb.fixed64(1000), bytes(1001, Uint8Array.of(0xff, 0x00))),
      message(2, string(1, 'k'), string(2, 'v'), varint(3, 1)),
      bytes(102, Uint8Array.of(1, 2, 3)),
    );
    assert.deepEqual(got, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } });
  });

  it('merges a message sent twice; the last scalar wins; a later zero clears an omitempty field', () => {
    const got = decode('v1', 'Service', message(1, string(1, 'a'), entry(11, 'x', string(2, '1'))), message(1, string(1, 'b'), entry(11, 'y', string(2, '2'))), message(2, string(4, 'NodePort'), string(4, '')));
    assert.deepEqual(got, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b', labels: { x: '1', y: '2' } }, spec: {} });
  });

  it('map entries default their missing key and value; __proto__ is an ordinary key', () => {
    const got = decode('v1', 'ConfigMap', message(2, string(2, 'no key')), message(2, string(1, 'no value')), entry(2, '__proto__', string(2, 'polluted?')), message(3, string(1, 'bin')));
    const data = got.data as Record<string, string>;
    assert.equal(data[''], 'no key');
    assert.equal(data['no value'], '');
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(data, '__proto__')?.value, 'polluted?');
    assert.deepEqual(got.binaryData, { bin: '' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('reads packed and unpacked repeated integers alike', () => {
    const podSecurity = (...parts: Uint8Array[]) => decode('v1', 'Pod', message(2, message(14, ...parts))) as { spec: { securityContext: { supplementalGroups: number[] } } };
    const packed = bytes(4, pb.cat(pb.rawVarint(1), pb.rawVarint(2), pb.rawVarint(3000)));
    assert.deepEqual(podSecurity(packed).spec.securityContext.supplementalGroups, [1, 2, 3000]);
    assert.deepEqual(podSecurity(varint(4, 1), varint(4, 2)).spec.securityContext.supplementalGroups, [1, 2]);
  });

  it('every supported kind has a message, and the tables reject mistakes', () => {
    for (const k of supportedKinds) {
      const [apiVersion, kind] = [k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)];
      assert.equal(decode(apiVersion, kind).kind, kind);
    }
    assert.ok(messages.size > 80);
    assert.throws(() => compileTable({ A: { 1: 'b: Missing' } }), /unknown message Missing/);
    assert.throws(() => compileTable({ A: { 1: 'b string' } }), /cannot read/);
    assert.throws(() => compileTable({ A: { 1: 'b: A!' } }), /"!" applies to single scalars/);
    assert.throws(() => compileTable({ A: { 1: '...: string' } }), /only a single message can be inlined/);
    assert.throws(() => mergeTables({ A: {} }, { A: {} }), /defined twice/);
  });
});

describe('wrappers, RawExtension and depth (a synthetic table)', () => {
  const table = compileTable({ Node: { 1: 'child: Node', 2: 'raw: RawExtension', 3: 'q: Quantity', 4: 'port: IntOrString', 5: 'at: Time', 6: 'kids: []Node' } });
  const node = table.get('Node')!;
  const run = (...parts: Uint8Array[]) => decodeMessage(new WireReader(pb.cat(...parts)), node);

  it('RawExtension is the embedded JSON; absent raw is null', () => {
    assert.deepEqual(run(message(2, string(1, '{"a":[1,"x",null],"b":{"c":true}}'))), { raw: { a: [1, 'x', null], b: { c: true } } });
    assert.deepEqual(run(message(2)), { raw: null });
    assert.throws(() => run(message(2, string(1, '{nope'))), /raw\(2\): RawExtension.raw is not JSON/);
    assert.throws(() => run(message(2, bytes(1, pb.cat(magic, Uint8Array.of(1))))), /nested protobuf/);
  });

  it('Quantity, IntOrString and Time edge cases', () => {
    assert.deepEqual(run(message(3), message(4), message(5)), { q: '0', port: 0, at: null });
    assert.deepEqual(run(message(5, varint(1, 0))), { at: '1970-01-01T00:00:00Z' });
    assert.deepEqual(run(message(5, varint(1, seconds('0001-01-01T00:00:00Z')))), { at: '0001-01-01T00:00:00Z' });
    assert.deepEqual(run(message(4, varint(1, 0), varint(2, -1))), { port: -1 });
    assert.throws(() => run(message(4, varint(1, 2))), /port\(4\): IntOrString has impossible type 2/);
    assert.throws(() => run(message(5, varint(1, seconds('9999-12-31T23:59:59Z') + 1))), /outside years 0000-9999/);
    assert.throws(() => run(message(4, string(2, 'x'))), /IntOrString.intVal/);
  });

  it(`refuses nesting deeper than ${maxDepth} levels and names the path`, () => {
    const nest = (n: number): Uint8Array => (n === 0 ? message(3, string(1, '1')) : message(1, nest(n - 1)));
    assert.doesNotThrow(() => run(nest(maxDepth)));
    assert.throws(() => run(nest(maxDepth + 1)), (e: unknown) => e instanceof ProtobufDecodeError && /deeper than 32/.test(e.message) && e.message.startsWith('child(1).child(1).'));
    const kids = (n: number): Uint8Array => (n === 0 ? new Uint8Array(0) : message(6, kids(n - 1)));
    assert.throws(() => run(kids(200)), /kids\(6\)\[0\]\.kids\(6\)\[0\].*deeper than 32/);
  });
});

describe('errors', () => {
  const fails = (body: Buffer, pattern: RegExp) => assert.throws(() => decodeKubernetesProtobuf(body), (e: unknown) => e instanceof ProtobufDecodeError && pattern.test(e.message));

  it('unsupported kinds ask for JSON', () => {
    assert.throws(() => decodeKubernetesProtobuf(envelope('v1', 'Node')), { name: 'ProtobufDecodeError', message: 'unsupported protobuf kind v1/Node; send JSON' });
    fails(envelope('apps/v1', 'ReplicaSet'), /^unsupported protobuf kind apps\/v1\/ReplicaSet; send JSON$/);
    fails(envelope('v2', 'Pod'), /unsupported protobuf kind v2\/Pod/);
    fails(envelope('v1', 'toString'), /unsupported protobuf kind v1\/toString/);
  });

  it('known fields this decoder does not read are refused, not dropped', () => {
    fails(envelope('v1', 'Pod', message(2, message(1, string(1, 'v'), message(2, message(7, string(1, 'nfs.local')))))), /^decoding v1\/Pod: spec\(2\)\.volumes\(1\)\[0\]\.VolumeSource\(2\)\.nfs\(7\): this field is not supported in protobuf bodies; send JSON$/);
    fails(envelope('v1', 'Pod', message(2, message(34))), /spec\(2\)\.ephemeralContainers\(34\): .*send JSON/);
  });

  it('decodes managedFields and a CSR with extra values, as kubectl certificate approve sends them back', () => {
    const got = decode(
      'certificates.k8s.io/v1',
      'CertificateSigningRequest',
      message(1, string(1, 'c1'), message(17, string(1, 'kubectl'), string(2, 'Update'), string(3, 'certificates.k8s.io/v1'), message(4, varint(1, seconds('2026-01-02T03:04:05Z'))), string(6, 'FieldsV1'), message(7, bytes(1, Buffer.from('{"f:spec":{}}'))), string(8, 'approval'))),
      message(2, bytes(1, Buffer.from('PEM')), string(7, 'kubernetes.io/kube-apiserver-client'), varint(8, 600), string(5, 'client auth'), string(2, 'me'), string(4, 'system:authenticated'), entry(6, 'k', message(2, string(1, 'a'), string(1, 'b')))),
      message(3, message(1, string(1, 'Approved'), string(6, 'True'), string(2, 'KubectlApprove'))),
    );
    assert.deepEqual(got, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'c1', managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'certificates.k8s.io/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} }, subresource: 'approval' }] },
      spec: { request: Buffer.from('PEM').toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 600, usages: ['client auth'], username: 'me', groups: ['system:authenticated'], extra: { k: ['a', 'b'] } },
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }] },
    });
  });

  it('wrong wire types, bad numbers and bad envelopes name what broke', () => {
    fails(envelope('apps/v1', 'Deployment', message(2, string(1, 'two'))), /^decoding apps\/v1\/Deployment: spec\(2\)\.replicas\(1\): wire type 2 \(length-delimited\) where 0 \(varint\) belongs$/);
    fails(envelope('policy/v1', 'PodDisruptionBudget', message(2, message(1, varint(1, 7)))), /spec\(2\)\.minAvailable\(1\): IntOrString has impossible type 7/);
    fails(envelope('apps/v1', 'Deployment', message(1, varint(7, 2n ** 60n))), /metadata\(1\)\.generation\(7\): int64 1152921504606846976 does not fit/);
    fails(envelope('v1', 'ConfigMap', message(2, varint(1, 5))), /data\(2\): wire type 0/);
    fails(Buffer.from('{"kind":"Pod"}'), /does not start with the Kubernetes protobuf prefix/);
    fails(Buffer.from(pb.cat(magic, message(1, string(1, 'v1')))), /typeMeta.kind is missing/);
    fails(Buffer.from(pb.cat(magic, message(1, string(1, 'v1'), string(2, 'Pod')), string(3, 'gzip'))), /contentEncoding "gzip" is not supported/);
    fails(Buffer.from(pb.cat(magic, message(1, string(1, 'v1'), string(2, 'Pod')), string(4, 'application/json'))), /contentType "application\/json" is not supported/);
    fails(Buffer.from(pb.cat(magic, varint(1, 3))), /runtime.Unknown: field 1 has wire type 0/);
  });
});
