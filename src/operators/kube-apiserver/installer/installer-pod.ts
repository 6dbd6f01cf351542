/**
 * The installer pod the installer controller creates for one node and revision (issue 17,
 * item 5; reference §7): pinned to its node, privileged, run as `installer-sa`, never restarted
 * (a failure is the controller's to retry, under the next name), critical and tolerating every
 * taint so a cordoned or not-ready master still gets its revision, owned by `revision-status-N`
 * so pruning a revision removes its installers too. It runs the operator image's `installer`
 * command (`command.ts`) over the node's `/etc/kubernetes/` mounted at the same path.
 * `FallbackToLogsOnError` makes the kubelet put the log tail into the termination message,
 * which the controller records as the node's `lastFailedRevisionErrors`.
 */
import type { V1Container, V1Pod, V1Volume } from '@kubernetes/client-node';
import { installerPodName, kubeAPIServerNamespace, revisionLabels, revisionStatusName, type LogLevel } from '../../../api/operator/index.ts';
import type { RevisionInput } from '../revision/decide.ts';
import { certDirName, podManifestDir, podResourceName, resourceDir } from './install.ts';

export const installerServiceAccount = 'installer-sa';
export const installerContainerName = 'installer';
/** The operator binary's subcommand; upstream's image runs `cluster-kube-apiserver-operator installer`. */
export const defaultInstallerCommand: readonly string[] = ['cluster-kube-apiserver-operator', 'installer'];

/** Installer pods' `-v` by the operator's log level (reference §2): TraceAll is 8 here, not 10. */
export function installerVerbosity(level: LogLevel | undefined): number {
  return ({ Debug: 4, Trace: 6, TraceAll: 8 } as Record<string, number>)[level ?? ''] ?? 2;
}

export interface InstallerPodOptions {
  readonly revision: number;
  readonly nodeName: string;
  /** K of `installer-N-retry-K-<node>`; 0 for the first attempt. */
  readonly retry: number;
  readonly image: string;
  readonly command?: readonly string[];
  readonly inputs: readonly RevisionInput[];
  /** Copied unrevisioned into the cert dir. */
  readonly certInputs?: readonly RevisionInput[];
  /** `revision-status-N`'s uid: the owner. */
  readonly ownerUid: string;
  readonly logLevel?: LogLevel;
  readonly namespace?: string;
}

/** One `--configmaps=`/`--optional-configmaps=`/`--secrets=`/`--optional-secrets=` per input, with `prefix` (`cert-`) for cert inputs. */
export function inputArgs(inputs: readonly RevisionInput[], prefix = ''): string[] {
  return inputs.map((i) => `--${i.optional ? 'optional-' : ''}${prefix}${i.kind === 'configmap' ? 'configmaps' : 'secrets'}=${i.name}`);
}

/**
 * What an installer and a pruner pod share: pinned to a node, run as `installer-sa`, never
 * restarted, critical and tolerating every taint, owned by `revision-status-<revision>`, one
 * privileged container whose log tail is its termination message.
 */
export function revisionNodePod(o: { readonly name: string; readonly namespace: string; readonly app: string; readonly revision: number; readonly ownerUid: string; readonly nodeName: string; readonly container: V1Container; readonly volumes: V1Volume[] }): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      labels: { [revisionLabels.app]: o.app },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: revisionStatusName(o.revision), uid: o.ownerUid }],
    },
    spec: {
      nodeName: o.nodeName,
      serviceAccountName: installerServiceAccount,
      restartPolicy: 'Never',
      priorityClassName: 'system-node-critical',
      tolerations: [{ operator: 'Exists' }],
      containers: [{ ...o.container, securityContext: { privileged: true, runAsUser: 0 }, terminationMessagePolicy: 'FallbackToLogsOnError' }],
      volumes: o.volumes,
    },
  };
}

export function installerPod(o: InstallerPodOptions): V1Pod {
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const certArgs = o.certInputs?.length ? [`--cert-dir=${resourceDir}/${certDirName}`, ...inputArgs(o.certInputs, 'cert-')] : [];
  return revisionNodePod({
    name: installerPodName(o.revision, o.nodeName, o.retry),
    namespace,
    app: 'installer',
    revision: o.revision,
    ownerUid: o.ownerUid,
    nodeName: o.nodeName,
    container: {
      name: installerContainerName,
      image: o.image,
      command: [...(o.command ?? defaultInstallerCommand)],
      args: [
        `-v=${installerVerbosity(o.logLevel)}`,
        `--revision=${o.revision}`,
        `--namespace=${namespace}`,
        `--pod=${podResourceName}`,
        `--resource-dir=${resourceDir}`,
        `--pod-manifest-dir=${podManifestDir}`,
        ...inputArgs(o.inputs),
        ...certArgs,
      ],
      env: [
        { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        // The subject of its StaticPodInstaller* events.
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      resources: { requests: { cpu: '150m', memory: '200M' }, limits: { cpu: '150m', memory: '200M' } },
      volumeMounts: [
        { name: 'kubelet-dir', mountPath: '/etc/kubernetes/' },
        { name: 'var-lock', mountPath: '/var/lock' },
      ],
    },
    volumes: [
      { name: 'kubelet-dir', hostPath: { path: '/etc/kubernetes/' } },
      { name: 'var-lock', hostPath: { path: '/var/lock' } },
    ],
  });
}
