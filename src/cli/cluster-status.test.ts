import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterOperator, ClusterVersion } from '../api/config/index.ts';
import { renderStatus } from './cluster-status.ts';

const now = Date.parse('2026-11-25T12:10:00Z');
const at = '2026-11-25T12:00:00Z';
const cv = {
  metadata: { name: 'version' },
  spec: { clusterID: 'x', overrides: [{ group: 'apps', kind: 'Deployment', namespace: 'openshift-config-operator', name: 'openshift-config-operator', unmanaged: true }] },
  status: {
    history: [{ state: 'Completed', version: '0.1.0', image: 'shipyard.local/release:0.1.0', startedTime: at, completionTime: at, verified: false }],
    conditions: [
      { type: 'Available', status: 'True', lastTransitionTime: at, message: 'Done applying 0.1.0' },
      { type: 'Progressing', status: 'False', lastTransitionTime: at, message: 'Cluster version is 0.1.0' },
      { type: 'Failing', status: 'True', lastTransitionTime: at, message: 'the API server refused it (ConfigMap openshift-config/x from 0000_90_x_00_cm.yaml)' },
      { type: 'Upgradeable', status: 'False', reason: 'ClusterVersionOverridesSet', lastTransitionTime: at, message: 'Disabling ownership via cluster version overrides prevents upgrades.' },
    ],
  },
} as unknown as ClusterVersion;
const co = (name: string, available: string, degraded: string, message = ''): ClusterOperator =>
  ({
    metadata: { name },
    status: {
      versions: [{ name: 'operator', version: '0.1.0' }],
      conditions: [
        { type: 'Available', status: available, lastTransitionTime: at, message },
        { type: 'Progressing', status: 'False', lastTransitionTime: at },
        { type: 'Degraded', status: degraded, lastTransitionTime: at, message },
      ],
    },
  }) as unknown as ClusterOperator;

describe('shipyard status', () => {
  it('shows the version, what blocks or pauses the CVO, every operator and the nodes', () => {
    const out = renderStatus({ cv, operators: [co('machine-config', 'True', 'True', 'pool worker is degraded'), co('config-operator', 'True', 'False')], cvoReplicas: 0, nodes: [{ name: 'master-0', ready: 'Ready', roles: 'control-plane,master' }] }, now);
    assert.match(out, /^NAME\s+VERSION\s+AVAILABLE\s+PROGRESSING\s+SINCE\s+STATUS\nversion\s+0\.1\.0\s+True\s+False\s+10m\s+Cluster version is 0\.1\.0\n/);
    assert.match(out, /scaled to 0 .*nothing is being reconciled/);
    assert.match(out, /Failing: the API server refused it/);
    assert.match(out, /Upgradeable=False \(ClusterVersionOverridesSet\)/);
    assert.match(out, /Unmanaged: Deployment apps openshift-config-operator\/openshift-config-operator/);
    // Operators sorted by name, MESSAGE computed as OpenShift does (nothing for a healthy one).
    const rows = out.split('\n').filter((l) => /^(config-operator|machine-config)\s/.test(l));
    assert.equal(rows.length, 2);
    assert.match(rows[0]!, /^config-operator\s+0\.1\.0\s+True\s+False\s+False\s+10m$/);
    assert.match(rows[1]!, /^machine-config\s+0\.1\.0\s+True\s+False\s+True\s+10m\s+pool worker is degraded$/);
    assert.match(out, /master-0\s+Ready\s+control-plane,master/);
  });

  it('says plainly when there is no ClusterVersion yet', () => {
    const out = renderStatus({ cv: undefined, operators: [], cvoReplicas: undefined, nodes: [] }, now);
    assert.match(out, /ClusterVersion: not created yet/);
    assert.match(out, /No ClusterOperators yet\./);
  });
});
