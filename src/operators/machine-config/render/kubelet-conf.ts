/**
 * The kubelet's configuration file, `/etc/kubernetes/kubelet.conf`, as the template controller
 * renders it into `01-<role>-kubelet` and the kubelet-config controller into
 * `99-<pool>-generated-kubelet`. It holds what `shipyard up` wrote at first boot before the MCO
 * managed it (250 pods, 500m CPU and 1Gi reserved for the system, status reported every 5
 * minutes), plus the settings OpenShift fixes for every node and forbids a KubeletConfig to
 * change (cgroup driver, cluster DNS and domain, static pod directory). `systemReserved` stays in
 * this file: OpenShift moves it to a node-sizing environment file, but Shipyard's kubelet reads it
 * here. Masters and workers get the same file; a master's role and taint come from the flags of
 * its kubelet unit (`kubelet-unit.ts`).
 */
import { stringify } from 'yaml';
import type { IgnitionFile } from '../../../api/ignition/index.ts';
import type { ControllerConfig } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { textFile } from './ignition-file.ts';

export const kubeletConfPath = '/etc/kubernetes/kubelet.conf';

export type KubeletConfiguration = Record<string, unknown>;

export function kubeletConfiguration(controllerConfig: DeepReadonly<ControllerConfig>): KubeletConfiguration {
  const dnsIP = controllerConfig.spec.clusterDNSIP;
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: 'systemd',
    ...(dnsIP ? { clusterDNS: [dnsIP] } : {}),
    clusterDomain: 'cluster.local',
    staticPodPath: '/etc/kubernetes/manifests',
    maxPods: 250,
    systemReserved: { cpu: '500m', memory: '1Gi' },
    nodeStatusReportFrequency: '5m',
  };
}

export function kubeletConfFile(configuration: DeepReadonly<KubeletConfiguration>): IgnitionFile {
  return textFile(kubeletConfPath, stringify(configuration));
}
