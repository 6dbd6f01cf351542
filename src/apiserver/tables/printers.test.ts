import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daemonSetTableConvertor, deploymentTableConvertor, replicaSetTableConvertor } from './apps-printers.ts';
import {
  configMapTableConvertor,
  endpointsTableConvertor,
  namespaceTableConvertor,
  nodeTableConvertor,
  secretTableConvertor,
  serviceAccountTableConvertor,
  serviceTableConvertor,
} from './core-printers.ts';
import { createdAtTableConvertor, defaultTableConvertor } from './crd-columns.ts';
import { eventTableConvertor, eventsV1TableConvertor } from './event-printers.ts';
import { leaseTableConvertor, podDisruptionBudgetTableConvertor } from './policy-printers.ts';
import type { PrintedObject, TableConvertor } from './types.ts';

const now = Date.parse('2025-01-01T12:00:00Z');
const ago = (ms: number): string => new Date(now - ms).toISOString();
const minute = 60_000;
const day = 24 * 60 * minute;
const meta = (name: string, extra: PrintedObject = {}): PrintedObject => ({ name, namespace: 'default', creationTimestamp: ago(5 * minute), ...extra });

interface PrinterCase {
  name: string;
  obj: PrintedObject;
  cells: unknown[];
}

/** Checks the column names (`*` marks priority 1) and each case's cells. */
function printerSuite(title: string, convertor: TableConvertor, columns: string[], cases: PrinterCase[]): void {
  describe(title, () => {
    it('has kubectl’s columns', () => {
      assert.deepEqual(
        convertor.columns.map((c) => (c.priority === 1 ? `${c.name}*` : c.name)),
        columns,
      );
      assert.equal(convertor.columns[columns.indexOf('Name') === -1 ? columns.indexOf('Name*') : columns.indexOf('Name')]?.format, 'name');
      for (const c of convertor.columns) assert.ok(c.description.length > 0, `${c.name} has a description`);
    });
    for (const c of cases) {
      it(c.name, () => assert.deepEqual(convertor.cells(c.obj, now), c.cells));
    }
  });
}

printerSuite('node table', nodeTableConvertor, ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*'], [
  {
    name: 'a ready, cordoned control-plane node',
    obj: {
      metadata: meta('n1', { namespace: undefined, labels: { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'n1' } }),
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True' }],
        addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.1.0.1' }, { type: 'ExternalIP', address: '1.2.3.4' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Shipyard OS', kernelVersion: '6.1.0', containerRuntimeVersion: 'shipyard://1.0' },
      },
    },
    cells: ['n1', 'Ready,SchedulingDisabled', 'control-plane,master', '5m', 'v1.32.0', '127.1.0.1', '1.2.3.4', 'Shipyard OS', '6.1.0', 'shipyard://1.0'],
  },
  {
    name: 'a worker that is not ready',
    obj: { metadata: meta('n2', { labels: { 'kubernetes.io/role': 'worker' } }), status: { conditions: [{ type: 'Ready', status: 'False' }], nodeInfo: { kubeletVersion: 'v1.32.0' } } },
    cells: ['n2', 'NotReady', 'worker', '5m', 'v1.32.0', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
  },
  {
    name: 'a node that never reported',
    obj: { metadata: meta('n3'), status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    cells: ['n3', 'NotReady', '<none>', '5m', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
  },
  {
    name: 'a node without a Ready condition',
    obj: { metadata: meta('n4'), spec: { unschedulable: true } },
    cells: ['n4', 'Unknown,SchedulingDisabled', '<none>', '5m', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
  },
]);

printerSuite('namespace table', namespaceTableConvertor, ['Name', 'Status', 'Age'], [
  { name: 'active', obj: { metadata: meta('default', { creationTimestamp: ago(10 * day) }), status: { phase: 'Active' } }, cells: ['default', 'Active', '10d'] },
  { name: 'terminating', obj: { metadata: meta('old'), status: { phase: 'Terminating' } }, cells: ['old', 'Terminating', '5m'] },
]);

printerSuite('configmap table', configMapTableConvertor, ['Name', 'Data', 'Age'], [
  { name: 'data and binaryData count together', obj: { metadata: meta('cfg'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, cells: ['cfg', 3, '5m'] },
  { name: 'empty', obj: { metadata: meta('empty') }, cells: ['empty', 0, '5m'] },
]);

printerSuite('secret table', secretTableConvertor, ['Name', 'Type', 'Data', 'Age'], [
  { name: 'opaque', obj: { metadata: meta('s'), type: 'Opaque', data: { user: 'YQ==', pass: 'Yg==' } }, cells: ['s', 'Opaque', 2, '5m'] },
  { name: 'tls', obj: { metadata: meta('tls'), type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' }, stringData: { 'tls.key': 'x', 'ca.crt': 'y' } }, cells: ['tls', 'kubernetes.io/tls', 3, '5m'] },
]);

printerSuite('serviceaccount table', serviceAccountTableConvertor, ['Name', 'Secrets', 'Age'], [
  { name: 'with a token secret', obj: { metadata: meta('builder'), secrets: [{ name: 'builder-token' }] }, cells: ['builder', 1, '5m'] },
  { name: 'without secrets', obj: { metadata: meta('default') }, cells: ['default', 0, '5m'] },
]);

printerSuite('service table', serviceTableConvertor, ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*'], [
  {
    name: 'cluster IP with a node port',
    obj: {
      metadata: meta('web'),
      spec: { type: 'NodePort', clusterIP: '127.64.0.10', selector: { tier: 'fe', app: 'web' }, ports: [{ port: 80, protocol: 'TCP' }, { port: 443, nodePort: 30443, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] },
    },
    cells: ['web', 'NodePort', '127.64.0.10', '<none>', '80/TCP,443:30443/TCP,53/UDP', '5m', 'app=web,tier=fe'],
  },
  {
    name: 'headless, without ports or selector',
    obj: { metadata: meta('db'), spec: { type: 'ClusterIP', clusterIP: 'None', externalIPs: ['127.0.1.5'] } },
    cells: ['db', 'ClusterIP', 'None', '127.0.1.5', '<none>', '5m', '<none>'],
  },
  {
    name: 'load balancer still pending',
    obj: { metadata: meta('lb'), spec: { type: 'LoadBalancer', clusterIP: '127.64.0.11', ports: [{ port: 80, nodePort: 31000, protocol: 'TCP' }] } },
    cells: ['lb', 'LoadBalancer', '127.64.0.11', '<pending>', '80:31000/TCP', '5m', '<none>'],
  },
  {
    name: 'load balancer with addresses',
    obj: {
      metadata: meta('lb2'),
      spec: { type: 'LoadBalancer', clusterIP: '127.64.0.12', ports: [{ port: 80, nodePort: 31001 }] },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }] } },
    },
    cells: ['lb2', 'LoadBalancer', '127.64.0.12', '203.0.113.9,lb.example.com', '80:31001/TCP', '5m', '<none>'],
  },
  {
    name: 'external name',
    obj: { metadata: meta('ext'), spec: { type: 'ExternalName', externalName: 'db.example.com' } },
    cells: ['ext', 'ExternalName', '<none>', 'db.example.com', '<none>', '5m', '<none>'],
  },
]);

const subset = (ips: string[], ports: number[]): PrintedObject => ({ addresses: ips.map((ip) => ({ ip })), ports: ports.map((port) => ({ port, protocol: 'TCP' })) });
printerSuite('endpoints table', endpointsTableConvertor, ['Name', 'Endpoints', 'Age'], [
  { name: 'a few', obj: { metadata: meta('web'), subsets: [subset(['127.1.0.1', '127.128.0.2'], [80])] }, cells: ['web', '127.1.0.1:80,127.128.0.2:80', '5m'] },
  {
    name: 'capped at three',
    obj: { metadata: meta('big'), subsets: [subset(['127.1.0.1', '127.128.0.2', '127.128.0.3'], [80, 443]), subset(['127.128.1.1'], [8080])] },
    cells: ['big', '127.1.0.1:80,127.128.0.2:80,127.128.0.3:80 + 4 more...', '5m'],
  },
  { name: 'IPv6 in brackets', obj: { metadata: meta('v6'), subsets: [subset(['2001:db8::1'], [80])] }, cells: ['v6', '[2001:db8::1]:80', '5m'] },
  { name: 'headless without ports', obj: { metadata: meta('hl'), subsets: [{ addresses: [{ ip: '127.128.0.7' }] }] }, cells: ['hl', '127.128.0.7', '5m'] },
  { name: 'no subsets', obj: { metadata: meta('none') }, cells: ['none', '<none>', '5m'] },
]);

const eventColumns = ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'];
printerSuite('event table (core/v1)', eventTableConvertor, eventColumns, [
  {
    name: 'a repeated kubelet event',
    obj: {
      metadata: meta('web.17a'),
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', fieldPath: 'spec.containers{app}' },
      reason: 'BackOff',
      message: ' Back-off restarting failed container \n',
      type: 'Warning',
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: ago(10 * minute),
      lastTimestamp: ago(30_000),
      count: 7,
    },
    cells: ['30s', 'Warning', 'BackOff', 'pod/web', 'spec.containers{app}', 'kubelet, n1', 'Back-off restarting failed container', '10m', 7, 'web.17a'],
  },
  {
    name: 'a new-style event with a series',
    obj: {
      metadata: meta('web.17b'),
      involvedObject: { kind: 'Deployment', name: 'web' },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up',
      type: 'Normal',
      eventTime: ago(20 * minute),
      series: { count: 2, lastObservedTime: ago(minute) },
      reportingComponent: 'deployment-controller',
    },
    cells: ['60s', 'Normal', 'ScalingReplicaSet', 'deployment/web', '', 'deployment-controller', 'Scaled up', '20m', 3, 'web.17b'],
  },
  {
    name: 'an event about a kind only, with no timestamps',
    obj: { metadata: meta('x'), involvedObject: { kind: 'Node' }, reason: 'Starting', type: 'Normal', message: 'Starting' },
    cells: ['<unknown>', 'Normal', 'Starting', 'node', '', '', 'Starting', '<unknown>', 1, 'x'],
  },
]);

printerSuite('event table (events.k8s.io/v1)', eventsV1TableConvertor, eventColumns, [
  {
    name: 'read through the core field names',
    obj: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('web.17c'),
      regarding: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      note: 'Pulled image',
      type: 'Normal',
      eventTime: ago(3 * minute),
      reportingController: 'kubelet',
      reportingInstance: 'n1',
      deprecatedCount: 2,
      deprecatedFirstTimestamp: ago(4 * minute),
      deprecatedLastTimestamp: ago(2 * minute),
    },
    cells: ['2m', 'Normal', 'Pulled', 'pod/web', 'spec.containers{app}', 'kubelet, n1', 'Pulled image', '4m', 2, 'web.17c'],
  },
]);

const template = { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'proxy', image: 'envoy:1' }] } };
printerSuite('deployment table', deploymentTableConvertor, ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*'], [
  {
    name: 'rolling out',
    obj: { metadata: meta('web'), spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } },
    cells: ['web', '2/3', 3, 2, '5m', 'nginx,proxy', 'nginx:1.27,envoy:1', 'app=web'],
  },
  {
    name: 'new, no status yet',
    obj: { metadata: meta('new'), spec: { replicas: 0, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'a'] }] }, template: { spec: { containers: [] } } } },
    cells: ['new', '0/0', 0, 0, '5m', '', '', 'app in (a,b)'],
  },
]);

printerSuite('replicaset table', replicaSetTableConvertor, ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers*', 'Images*', 'Selector*'], [
  {
    name: 'scaled',
    obj: { metadata: meta('web-7d4'), spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d4' } }, template }, status: { replicas: 3, readyReplicas: 1 } },
    cells: ['web-7d4', 3, 3, 1, '5m', 'nginx,proxy', 'nginx:1.27,envoy:1', 'app=web,pod-template-hash=7d4'],
  },
  { name: 'empty selector', obj: { metadata: meta('rs'), spec: { replicas: 1, selector: {} } }, cells: ['rs', 1, 0, 0, '5m', '', '', '<none>'] },
]);

printerSuite('daemonset table', daemonSetTableConvertor, ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers*', 'Images*', 'Selector*'], [
  {
    name: 'on linux nodes',
    obj: {
      metadata: meta('agent'),
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image: 'agent:2' }] } } },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 },
    },
    cells: ['agent', 3, 3, 2, 3, 2, 'kubernetes.io/os=linux', '5m', 'agent', 'agent:2', 'app=agent'],
  },
  { name: 'no node selector', obj: { metadata: meta('ds'), spec: { selector: { matchLabels: { a: 'b' } } } }, cells: ['ds', 0, 0, 0, 0, 0, '<none>', '5m', '', '', 'a=b'] },
]);

printerSuite('poddisruptionbudget table', podDisruptionBudgetTableConvertor, ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'], [
  { name: 'min available as a number', obj: { metadata: meta('web'), spec: { minAvailable: 2 }, status: { disruptionsAllowed: 1 } }, cells: ['web', '2', 'N/A', 1, '5m'] },
  { name: 'max unavailable as a percentage', obj: { metadata: meta('db'), spec: { maxUnavailable: '50%' } }, cells: ['db', 'N/A', '50%', 0, '5m'] },
]);

printerSuite('lease table', leaseTableConvertor, ['Name', 'Holder', 'Age'], [
  { name: 'held', obj: { metadata: meta('n1'), spec: { holderIdentity: 'n1' } }, cells: ['n1', 'n1', '5m'] },
  { name: 'free', obj: { metadata: meta('lock'), spec: {} }, cells: ['lock', '', '5m'] },
]);

printerSuite('customresourcedefinition table', createdAtTableConvertor, ['Name', 'Created At'], [
  { name: 'created at, as an RFC 3339 time in UTC', obj: { metadata: { name: 'widgets.example.com', creationTimestamp: '2024-06-01T10:20:30.123+02:00' } }, cells: ['widgets.example.com', '2024-06-01T08:20:30Z'] },
  { name: 'without a timestamp', obj: { metadata: { name: 'x.example.com' } }, cells: ['x.example.com', '0001-01-01T00:00:00Z'] },
]);

printerSuite('default table', defaultTableConvertor, ['Name', 'Age'], [{ name: 'name and age', obj: { metadata: meta('thing', { creationTimestamp: ago(3 * day) }) }, cells: ['thing', '3d'] }]);
