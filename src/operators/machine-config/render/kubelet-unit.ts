/**
 * The kubelet's systemd unit, `kubelet.service`, as the template controller renders it into
 * `01-<role>-kubelet` beside `kubelet.conf`, shaped after OpenShift's
 * (`templates/<role>/01-<role>-kubelet/_base/units/kubelet.service.yaml`). What a node is comes
 * from here: the kubelet reads its flags from this unit (src/node/kubelet/kubelet-unit.ts), so
 * the roles in `--node-labels` and a master's `--register-with-taints` are what the machine
 * booted from, not what its name suggests. `--bootstrap-kubeconfig` names the kubeconfig the
 * machine-config server hands a joining machine, with which the kubelet asks for its own
 * certificate when `--kubeconfig` has none.
 *
 * OpenShift's `node.openshift.io/os_id=${ID}` takes `ID` from `/etc/os-release`; every Shipyard
 * node runs the same simulated RHCOS, so the value is written as it expands there. Flags for the
 * container runtime, the cloud provider, node sizing and logging are left out: nothing here
 * reads them.
 */
import type { IgnitionUnit } from '../../../api/ignition/index.ts';
import { kubeletConfPath } from './kubelet-conf.ts';

export const kubeletUnitName = 'kubelet.service';

/** `--node-labels` of each role, in OpenShift's form (a role label has no value). */
export const kubeletNodeLabels = {
  master: ['node-role.kubernetes.io/master', 'node-role.kubernetes.io/control-plane', 'node.openshift.io/os_id=rhcos'],
  worker: ['node-role.kubernetes.io/worker', 'node.openshift.io/os_id=rhcos'],
} as const;

/** A master registers tainted, so only what tolerates it runs there (unless masters are made schedulable). */
export const masterRegisterTaint = 'node-role.kubernetes.io/master=:NoSchedule';

export function kubeletUnit(role: 'master' | 'worker'): IgnitionUnit {
  const flags = [
    `--config=${kubeletConfPath}`,
    '--bootstrap-kubeconfig=/etc/kubernetes/kubeconfig',
    '--kubeconfig=/var/lib/kubelet/kubeconfig',
    `--node-labels=${kubeletNodeLabels[role].join(',')}`,
    ...(role === 'master' ? [`--register-with-taints=${masterRegisterTaint}`] : []),
  ];
  const contents = [
    '[Unit]',
    'Description=Kubernetes Kubelet',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=notify',
    'ExecStartPre=/bin/mkdir --parents /etc/kubernetes/manifests',
    '',
    `ExecStart=/usr/bin/kubelet \\\n${flags.map((f) => `    ${f}`).join(' \\\n')}`,
    '',
    'Restart=always',
    'RestartSec=10',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
  return { name: kubeletUnitName, enabled: true, contents };
}
