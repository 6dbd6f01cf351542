/**
 * What the target-config controller renders (issue 17, items 3 and 6), as pure functions of the
 * KubeAPIServer spec: the operand's `config.yaml` (default ← observedConfig ←
 * unsupportedConfigOverrides, merged and checked against the operand's schema by
 * `runtime/config-merge.ts`) and the `kube-apiserver-pod` ConfigMap's data — the static pod
 * manifest the installer writes on each master, with `REVISION` left for the installer to fill
 * in, the spec's `forceRedeploymentReason` and the operator's version. A config that fails its
 * check is never rendered, so no revision can be cut from it.
 */
import { stringify } from 'yaml';
import { kubeAPIServerConfig } from '../../../api/kubecontrolplane/kube-apiserver-config.ts';
import { defaultKubeAPIServerConfig } from '../../../api/kubecontrolplane/default-config.ts';
import { validateKubeAPIServerConfigValues } from '../../../api/kubecontrolplane/validate.ts';
import { kubeAPIServerNamespace, kubeAPIServerStaticPodName, revisionLabels, type KubeAPIServerSpec } from '../../../api/operator/index.ts';
import { formatConfigError, mergeAndValidate, unsupportedOverridesPaths, unsupportedOverridesMessage, type ConfigLayerError } from '../../../runtime/config-merge.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { SparseConfig } from '../../../runtime/sparse-config.ts';

/** Where the installer puts revision N's copies; `REVISION` is replaced by it on the node (installer/install.ts). */
export const revisionResourceDir = '/etc/kubernetes/static-pod-resources/kube-apiserver-pod-REVISION';
/** Where the pod mounts that directory (volume `resource-dir`), as upstream's pod does. */
export const resourceMountPath = '/etc/kubernetes/static-pod-resources';
/** The revision's config as the server sees it: a container path, inside the mounted revision directory. */
export const renderedConfigPath = `${resourceMountPath}/configmaps/config/config.yaml`;

/** The ConfigMap keys, as upstream names them. */
export const configKey = 'config.yaml';
export const podKeys = { pod: 'pod.yaml', forceRedeploymentReason: 'forceRedeploymentReason', version: 'version' } as const;

/** The operand's `-v` for the intent-based log level: upstream's table (anything unknown is Normal). */
export function operandVerbosity(logLevel: string | undefined): number {
  switch (logLevel) {
    case 'Debug':
      return 4;
    case 'Trace':
      return 6;
    case 'TraceAll':
      return 10;
    default:
      return 2;
  }
}

export type RenderedConfig = { readonly ok: true; readonly config: SparseConfig; readonly data: Record<string, string> } | { readonly ok: false; readonly errors: readonly ConfigLayerError[]; readonly message: string };

type SpecLayers = Pick<DeepReadonly<KubeAPIServerSpec>, 'observedConfig' | 'unsupportedConfigOverrides'>;

/**
 * The `config` ConfigMap's data: `config.yaml` as JSON, keys in a stable order so the same
 * layers always give the same bytes (a revision is cut on any change of them). On failure the
 * message is one line per error, `<layer>: <path>: <problem>`.
 */
export function renderConfig(spec: SpecLayers | undefined): RenderedConfig {
  const r = mergeAndValidate(
    [
      { name: 'defaultConfig', content: defaultKubeAPIServerConfig() as SparseConfig },
      { name: 'observedConfig', content: (spec?.observedConfig ?? undefined) as SparseConfig | undefined },
      { name: 'unsupportedConfigOverrides', content: (spec?.unsupportedConfigOverrides ?? undefined) as SparseConfig | undefined },
    ],
    { schema: kubeAPIServerConfig.json, check: validateKubeAPIServerConfigValues },
  );
  if (!r.ok) return { ok: false, errors: r.errors, message: r.errors.map(formatConfigError).join('\n') };
  return { ok: true, config: r.config, data: { [configKey]: JSON.stringify(sortKeys(r.config)) } };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}

export interface PodSettings {
  /** The operand's image (Shipyard's `kube-apiserver` component image). */
  readonly image: string;
  /** The port every replica serves on, on its node's address. */
  readonly securePort: number;
  /** The load balancer's URL, which the server advertises. */
  readonly advertiseUrl?: string;
  /** Names clients reach the servers by, for the serving certificate (the node address is always added). */
  readonly tlsSans?: readonly string[];
  /** Seconds the kubelet gives the server to stop (the config's gracefulTerminationDuration wins). */
  readonly defaultGracePeriodSeconds?: number;
}

/**
 * The static pod manifest (`pod.yaml`) of revision REVISION: Shipyard's API server reading the
 * revision's `config.yaml`, bound to its node's address (the kubelet fills `$(HOST_IP)` from the
 * downward API, as bootstrap-ignition.ts's manifest does), labelled with its revision so the
 * installer knows the mirror pod runs it, Ready once `/readyz` passes.
 */
export function renderPodManifest(spec: Pick<DeepReadonly<KubeAPIServerSpec>, 'logLevel'> | undefined, config: SparseConfig, s: PodSettings): Record<string, unknown> {
  const grace = Number(config.gracefulTerminationDuration);
  const gracePeriod = Number.isInteger(grace) && grace > 0 ? grace : (s.defaultGracePeriodSeconds ?? 70);
  const args = [
    `--config=${renderedConfigPath}`,
    `--v=${operandVerbosity(spec?.logLevel)}`,
    '--bind-address=$(HOST_IP)',
    '--advertise-address=$(HOST_IP)',
    `--secure-port=${s.securePort}`,
    ...(s.advertiseUrl ? [`--advertise-url=${s.advertiseUrl}`] : []),
    '--tls-san=$(HOST_IP)',
    ...(s.tlsSans ?? []).map((san) => `--tls-san=${san}`),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: kubeAPIServerStaticPodName,
      namespace: kubeAPIServerNamespace,
      labels: { app: 'openshift-kube-apiserver', [revisionLabels.apiserver]: 'true', [revisionLabels.revision]: 'REVISION' },
    },
    spec: {
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      tolerations: [{ operator: 'Exists' }],
      terminationGracePeriodSeconds: gracePeriod,
      containers: [
        {
          name: kubeAPIServerStaticPodName,
          image: s.image,
          args,
          env: [{ name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }],
          readinessProbe: { httpGet: { scheme: 'HTTPS', path: '/readyz', port: s.securePort }, periodSeconds: 2, failureThreshold: 3 },
          // A replica that exits on a bad config says why in its termination message, which
          // StaticPodsDegraded and `kubectl describe` show without a log read.
          terminationMessagePolicy: 'FallbackToLogsOnError',
          volumeMounts: [
            { name: 'resource-dir', mountPath: resourceMountPath },
            { name: 'cert-dir', mountPath: '/etc/kubernetes/static-pod-certs' },
          ],
        },
      ],
      volumes: [
        { name: 'resource-dir', hostPath: { path: revisionResourceDir } },
        { name: 'cert-dir', hostPath: { path: '/etc/kubernetes/static-pod-resources/kube-apiserver-certs' } },
      ],
    },
  };
}

/** The `kube-apiserver-pod` ConfigMap's data. */
export function renderPodData(spec: Pick<DeepReadonly<KubeAPIServerSpec>, 'logLevel' | 'forceRedeploymentReason'> | undefined, config: SparseConfig, s: PodSettings & { readonly operatorVersion: string }): Record<string, string> {
  return {
    // Every string quoted: the installer replaces REVISION in the text, and `revision: REVISION`
    // would become the number 1, which no label may be (upstream's template quotes it too).
    [podKeys.pod]: stringify(renderPodManifest(spec, config, s), { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }),
    [podKeys.forceRedeploymentReason]: spec?.forceRedeploymentReason ?? '',
    [podKeys.version]: s.operatorVersion,
  };
}

export interface ConditionUpdate {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message?: string;
}

/** `UnsupportedConfigOverridesUpgradeable`, as library-go's unsupportedconfigoverridescontroller writes it. */
export function unsupportedOverridesCondition(overrides: unknown): ConditionUpdate {
  const type = 'UnsupportedConfigOverridesUpgradeable';
  const content = overrides as SparseConfig | null | undefined;
  if (unsupportedOverridesPaths(content).length === 0) return { type, status: 'True', reason: 'NoUnsupportedConfigOverrides' };
  return { type, status: 'False', reason: 'UnsupportedConfigOverridesSet', message: unsupportedOverridesMessage(content) };
}

/** `TargetConfigControllerDegraded`: the layer-and-path messages of a config that failed its check. */
export function targetConfigDegradedCondition(rendered: RenderedConfig): ConditionUpdate {
  const type = 'TargetConfigControllerDegraded';
  if (rendered.ok) return { type, status: 'False', reason: 'AsExpected' };
  return { type, status: 'True', reason: 'InvalidConfig', message: rendered.message };
}
