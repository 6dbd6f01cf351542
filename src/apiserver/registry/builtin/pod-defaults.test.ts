import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../resource.ts';
import { serviceStrategy } from './core-strategies.ts';
import { admitPod, defaultPod, defaultPodSpec, defaultPodTemplate } from './pod-defaults.ts';

const spec = (): KubeObject => ({
  containers: [
    {
      name: 'c',
      image: 'nginx:1.27',
      env: [
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
      ],
      ports: [{ containerPort: 80 }],
      readinessProbe: { httpGet: { port: 80 } },
      livenessProbe: { grpc: { port: 9000 }, periodSeconds: 5 },
      lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
      resources: { limits: { memory: '128Mi', cpu: '1' }, requests: { cpu: '100m' } },
    },
  ],
  volumes: [
    { name: 'scratch' },
    { name: 'cfg', configMap: { name: 'x' } },
    { name: 'sec', secret: { secretName: 'x', defaultMode: 0o400 } },
    { name: 'host', hostPath: { path: '/var' } },
    { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
    { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] } },
  ],
});

describe('pod defaults', () => {
  it('defaults a PodSpec as kube 1.32: fieldRef apiVersion, sourceless volumes, probes, HTTP actions, volume modes', () => {
    const s = spec();
    defaultPodSpec(s);
    const c = s.containers[0];
    assert.equal(c.env[0].valueFrom.fieldRef.apiVersion, 'v1', 'kubectl describe prints (v1:metadata.name)');
    assert.equal(c.env[1].valueFrom.resourceFieldRef.divisor, '0');
    assert.deepEqual(s.volumes[0], { name: 'scratch', emptyDir: {} });
    assert.equal(s.volumes[1].configMap.defaultMode, 420);
    assert.equal(s.volumes[2].secret.defaultMode, 0o400, 'a mode that is set is kept');
    assert.equal(s.volumes[3].hostPath.type, '');
    assert.equal(s.volumes[4].downwardAPI.defaultMode, 420);
    assert.equal(s.volumes[4].downwardAPI.items[0].fieldRef.apiVersion, 'v1');
    assert.equal(s.volumes[5].projected.defaultMode, 420);
    assert.equal(s.volumes[5].projected.sources[0].serviceAccountToken.expirationSeconds, 3600);
    assert.equal(s.volumes[5].projected.sources[1].downwardAPI.items[0].fieldRef.apiVersion, 'v1');
    assert.deepEqual(c.readinessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.livenessProbe, { grpc: { port: 9000, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(c.lifecycle.preStop.httpGet, { port: 80, path: '/stop', scheme: 'HTTP' });
    assert.equal(c.ports[0].protocol, 'TCP');
    assert.equal(c.imagePullPolicy, 'IfNotPresent');
    assert.equal(c.terminationMessagePath, '/dev/termination-log');
    assert.deepEqual({ dns: s.dnsPolicy, restart: s.restartPolicy, grace: s.terminationGracePeriodSeconds, scheduler: s.schedulerName, sc: s.securityContext }, { dns: 'ClusterFirst', restart: 'Always', grace: 30, scheduler: 'default-scheduler', sc: {} });
  });

  it('gives a template only the PodSpec defaults: no service account, service links, priority or request defaults', () => {
    const template: KubeObject = { metadata: { labels: { app: 'a' } }, spec: spec() };
    defaultPodTemplate(template);
    const s = template.spec;
    assert.equal(s.serviceAccountName, undefined);
    assert.equal(s.enableServiceLinks, undefined);
    assert.equal(s.priority, undefined);
    assert.equal(s.tolerations, undefined);
    assert.deepEqual(s.containers[0].resources.requests, { cpu: '100m' });
    assert.equal(s.containers[0].env[0].valueFrom.fieldRef.apiVersion, 'v1');
  });

  it('gives a Pod SetDefaults_Pod and the create-time admission defaults', () => {
    const s: KubeObject = { ...spec(), hostNetwork: true };
    defaultPod(s);
    admitPod(s);
    assert.deepEqual(s.containers[0].resources.requests, { cpu: '100m', memory: '128Mi' }, 'requests default to limits, a set request is kept');
    assert.equal(s.enableServiceLinks, true);
    assert.equal(s.containers[0].ports[0].hostPort, 80, 'a host-network pod\'s ports are host ports');
    assert.equal(s.serviceAccountName, 'default');
    assert.equal(s.serviceAccount, 'default');
    assert.equal(s.priority, 0);
    assert.equal(s.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(s.tolerations.map((t: KubeObject) => t.key), ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
    const critical: KubeObject = { priorityClassName: 'system-node-critical', containers: [{ name: 'c', image: 'x' }] };
    admitPod(critical);
    assert.equal(critical.priority, 2000001000);
  });

  it('defaults a Service as SetDefaults_Service', () => {
    const svc = (s: KubeObject): KubeObject => {
      const obj = { metadata: { name: 's' }, spec: s };
      serviceStrategy.prepareForCreate!(obj);
      return obj.spec;
    };
    assert.deepEqual(svc({ ports: [{ port: 80 }] }), { ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster' });
    const lb = svc({ type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
    assert.equal(lb.externalTrafficPolicy, 'Cluster');
    assert.equal(lb.allocateLoadBalancerNodePorts, true);
    assert.deepEqual(lb.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    const external = svc({ type: 'ExternalName', externalName: 'example.com' });
    assert.equal(external.internalTrafficPolicy, undefined);
  });
});
